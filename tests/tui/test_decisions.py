"""The person's decisions as the workbench shows them: they stay on the unit they were taken
on through edits and refreshes (Pilot, real repositories, a real session store)."""

from __future__ import annotations

from pathlib import Path

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.unit_table import UnitTable
from tests.conftest import GitRepoBuilder

BIG = ["def big(x):", *[f"    v{i} = x + {i}" for i in range(60)], "    return x"]


def _write_big(repo: GitRepoBuilder, edits: dict[int, str]) -> None:
    repo.write("mod.py", "\n".join(edits.get(i, line) for i, line in enumerate(BIG)) + "\n")


def _big_with_two_units(repo: GitRepoBuilder) -> None:
    """One function, two units: L5 and L52 (as the tester's mod.py)."""
    _write_big(repo, {})
    repo.commit("base")
    _write_big(repo, {4: "    v3 = x + 300", 51: "    v50 = x + 5000"})


def _app(repo: GitRepoBuilder, store: Path, selector: ChangeSelector | None = None
         ) -> ReviewApp:
    loaded = load_change(repo.root, selector or ChangeSelector(SelectorMode.AUTO))
    return ReviewApp(loaded, store_path=store)


def _shown(app: ReviewApp, column: str) -> dict[str, str]:
    """``location -> the text of ``column`` `` as the table shows each row."""
    table = app.query_one(UnitTable)
    labels = [str(c.label) for c in table.columns.values()]
    where, what = labels.index("location"), labels.index(column)
    return {str(cells[where]).strip(): str(cells[what]).strip()
            for cells in (table.get_row_at(n) for n in range(table.row_count))}


async def test_a_decision_stays_on_the_unit_that_was_edited(repo: GitRepoBuilder,
                                                            tmp_path: Path) -> None:
    """full_file on the second unit of big(), that unit edited, ``r``: the decision is on it,
    not on the function's first unit (which was not touched)."""
    _big_with_two_units(repo)
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        app.triage.sort_key = "file"
        app.refresh_rows()
        await pilot.press("j", "4")
        assert _shown(app, "final") == {"mod.py:L5": "function", "mod.py:L52": "full_file"}
        _write_big(repo, {4: "    v3 = x + 300", 51: "    v50 = x + 5001"})
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _shown(app, "final") == {"mod.py:L5": "function", "mod.py:L52": "full_file"}
        assert app.triage.by_id[app.current() or ""].location == "mod.py:L52"
    again = _app(repo, store)  # and it was kept there
    async with again.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        assert _shown(again, "final") == {"mod.py:L5": "function", "mod.py:L52": "full_file"}
