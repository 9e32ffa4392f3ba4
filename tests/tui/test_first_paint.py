"""The workbench's first paint does no work twice: rows are added once, in columns that fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.triage import Row
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.unit_table import UnitTable, fit_columns
from tests.conftest import GitRepoBuilder


def _change(repo: GitRepoBuilder, count: int = 30) -> None:
    for n in range(count):
        repo.write(f"app/module_{n:02}.py", f"def f{n}():\n    return {n}\n")
    repo.commit("base")
    for n in range(count):
        repo.write(f"app/module_{n:02}.py", f"def f{n}():\n    return {n + 1}\n")


@pytest.mark.parametrize("size", [(160, 50), (80, 24)])
async def test_rows_are_added_once_in_columns_that_fit(repo: GitRepoBuilder, tmp_path: Path,
                                                       size: tuple[int, int],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _change(repo)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    added: list[object] = []
    add_row = UnitTable.add_row

    def counting(self: UnitTable, *cells: object, **kwargs: object) -> object:
        added.append(kwargs.get("key"))
        return add_row(self, *cells, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(UnitTable, "add_row", counting)
    shown: list[str | None] = []
    show = DetailPane.show

    def recording(self: DetailPane, row: Row | None, *args: object, **kwargs: object) -> None:
        shown.append(row.unit.unit_id if row is not None else None)
        show(self, row, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(DetailPane, "show", recording)
    app = ReviewApp(loaded, store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.query_one(UnitTable)
        # the default fit (120 cells) is not the one these sizes give: filling before the
        # layout would have added every row twice
        assert table.fit != fit_columns(120, table.longest_location)
        assert table.fit == fit_columns(table.size.width, table.longest_location)
        assert table.row_count == len(loaded.units) == 30
        assert len(added) == 30 and set(added) == {u.unit_id for u in loaded.units}
        assert table.current_unit == app.rows[0].unit.unit_id
        assert shown[-1] == app.rows[0].unit.unit_id  # the detail pane shows the first row
