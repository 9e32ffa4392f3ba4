"""The workbench's first paint does no work twice: rows are added once, in columns that fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.triage import Row
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.unit_table import UnitTable, cells_of_row, fit_columns
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
    add_row, add_rows = UnitTable.add_row, UnitTable._add_rows

    def counting(self: UnitTable, *cells: object, **kwargs: object) -> object:
        added.append(kwargs.get("key"))
        return add_row(self, *cells, **kwargs)  # type: ignore[arg-type]

    def counting_all(self: UnitTable, rows: list[Row]) -> None:
        added.extend(row.unit.unit_id for row in rows)
        add_rows(self, rows)

    monkeypatch.setattr(UnitTable, "add_row", counting)
    monkeypatch.setattr(UnitTable, "_add_rows", counting_all)
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


async def test_rows_added_at_once_are_the_rows_add_row_adds(repo: GitRepoBuilder,
                                                            tmp_path: Path) -> None:
    """The table's own bulk fill leaves it as Textual's ``add_row``, row by row, does."""
    _change(repo)
    app = ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)),
                    store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        table = app.query_one(UnitTable)

        def state() -> tuple[object, ...]:
            return (dict(table._data), dict(table.rows),
                    {k: table._row_locations.get(k) for k in table.rows},
                    set(table._new_rows), table.cursor_coordinate, table.row_count,
                    [str(v) for row in table._data.values() for v in row.values()])

        assert table.row_count == 30
        table.clear()
        table._add_rows(app.rows)
        bulk = state()
        await pilot.pause()
        bulk_size, bulk_unit = table.virtual_size, table.current_unit
        table.clear()
        for row in app.rows:
            table.add_row(*cells_of_row(row, table.fit), key=row.unit.unit_id)
        assert state() == bulk
        await pilot.pause()
        assert (table.virtual_size, table.current_unit) == (bulk_size, bulk_unit)
        assert bulk_unit == app.rows[0].unit.unit_id
