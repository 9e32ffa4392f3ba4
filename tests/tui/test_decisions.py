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


def _two_files(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    repo.write("b.py", "def b():\n    return 2\n")
    repo.commit("init")
    repo.write("a.py", "def a():\n    return 10\n")
    repo.write("b.py", "def b():\n    return 20\n")


async def test_two_workbenches_on_one_change_keep_each_others_decisions(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """Workbench A marks a.py reviewed and gives it full_file while B, open on the same change,
    marks b.py reviewed and takes b.py's level down: each decision is there when the change
    is opened again (B's save does not unmark A's mark, A's does not drop B's level)."""
    _two_files(repo)
    store = tmp_path / "s.sqlite3"
    one, two = _app(repo, store), _app(repo, store)
    async with one.run_test(size=(160, 40)) as a, two.run_test(size=(160, 40)) as b:
        await a.pause()
        await b.pause()
        for app in (one, two):
            app.triage.sort_key = "file"
            app.refresh_rows()
        await a.press("space", "4")
        await b.press("j", "space", "1")
        await a.press("j", "k")  # A moves on; nothing of B's is undone by A
        assert _shown(one, "st") == {"a.py:L2": "✓", "b.py:L2": "●"}
        assert _shown(two, "st") == {"a.py:L2": "●", "b.py:L2": "✓"}
        await a.press("space", "space")  # A takes its mark back and marks again
    three = _app(repo, store)
    async with three.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        assert _shown(three, "st") == {"a.py:L2": "✓", "b.py:L2": "✓"}
        assert _shown(three, "final") == {"a.py:L2": "full_file", "b.py:L2": "diff_only"}
