"""The person's decisions as the workbench shows them: they stay on the unit they were taken
on through edits and refreshes (Pilot, real repositories, a real session store)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot

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


_Two = tuple[ReviewApp, ReviewApp, Pilot[None], Pilot[None]]


@asynccontextmanager
async def _two_workbenches(repo: GitRepoBuilder, store: Path) -> AsyncIterator[_Two]:
    """Two workbenches open at once on ``_two_files``' change and one store, sorted by file:
    the apps and their pilots."""
    _two_files(repo)
    one, two = _app(repo, store), _app(repo, store)
    async with one.run_test(size=(160, 40)) as a, two.run_test(size=(160, 40)) as b:
        await a.pause()
        await b.pause()
        for app in (one, two):
            app.triage.sort_key = "file"
            app.refresh_rows()
        yield one, two, a, b


async def test_two_workbenches_on_one_change_keep_each_others_decisions(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """Workbench A marks a.py reviewed and gives it full_file while B, open on the same change,
    marks b.py reviewed and takes b.py's level down: each decision is there when the change
    is opened again (B's save does not unmark A's mark, A's does not drop B's level)."""
    store = tmp_path / "s.sqlite3"
    async with _two_workbenches(repo, store) as (one, two, a, b):
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


async def test_r_shows_what_another_workbench_decided_meanwhile(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """B pressed r after A gave a.py full_file and marked it: B showed A's mark but still its
    own old level for a.py, and B's decisions taken before stay B's."""
    store = tmp_path / "s.sqlite3"
    async with _two_workbenches(repo, store) as (_one, two, a, b):
        await b.press("j", "1")  # B: b.py diff_only
        await a.press("space", "4")  # A: a.py reviewed, full_file
        assert _shown(two, "final")["a.py:L2"] != "full_file"
        await b.press("r")
        await two.workers.wait_for_complete()
        await b.pause()
        assert _shown(two, "final") == {"a.py:L2": "full_file", "b.py:L2": "diff_only"}
        assert _shown(two, "st")["a.py:L2"] == "✓"
        await b.press("k", "2")  # B's next decision on a.py is written over A's, as taken
    three = _app(repo, store)
    async with three.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        assert _shown(three, "final") == {"a.py:L2": "function", "b.py:L2": "diff_only"}


GLYPH = {"new": "●", "reviewed": "✓", "skipped": "–", "changed": "↻"}


def _painted_as_decided(app: ReviewApp) -> None:
    """Every row shows the status the workbench holds for its unit (no row left stale)."""
    shown = _shown(app, "st")
    held = {r.unit.location: GLYPH[app.triage.row(r.unit.unit_id).status] for r in app.rows}
    assert shown == held


async def test_each_unit_of_a_function_keeps_its_own_reviewed_mark(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """Both units of big() marked: both show ✓, as they are, and again once reopened."""
    _big_with_two_units(repo)
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        app.triage.sort_key = "file"
        app.refresh_rows()
        await pilot.press("space")
        assert _shown(app, "st") == {"mod.py:L5": "✓", "mod.py:L52": "●"}
        await pilot.press("j", "space")
        assert _shown(app, "st") == {"mod.py:L5": "✓", "mod.py:L52": "✓"}
        _painted_as_decided(app)
        await pilot.press("k", "space")  # the first one's mark taken back: only it
        assert _shown(app, "st") == {"mod.py:L5": "●", "mod.py:L52": "✓"}
        _painted_as_decided(app)
        await pilot.press("space")
    again = _app(repo, store)
    async with again.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        assert _shown(again, "st") == {"mod.py:L5": "✓", "mod.py:L52": "✓"}


async def test_a_commits_units_stay_reviewed_whatever_another_commit_marks(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """The tester's --commit HEAD~1 / --commit HEAD: f() marked in each; HEAD~1 reopened is
    ✓, not ↻; and HEAD marked first does not make HEAD~1's f() ↻."""
    repo.write("m.py", "def f(x):\n    a = 1\n    b = 2\n    return a + b\n")
    repo.commit("init")
    repo.write("m.py", "def f(x):\n    a = 10\n    b = 2\n    return a + b\n")
    repo.commit("c1")
    repo.write("m.py", "def f(x):\n    a = 10\n    b = 20\n    return a + b\n")
    repo.commit("c2")
    store = tmp_path / "s.sqlite3"
    older, newer = (ChangeSelector(SelectorMode.COMMIT, rev) for rev in ("HEAD~1", "HEAD"))

    async def visit(selector: ChangeSelector, *keys: str) -> tuple[dict[str, str], ...]:
        """The status column when opened, and after ``keys``."""
        app = _app(repo, store, selector)
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.pause()
            opened = _shown(app, "st")
            await pilot.press(*keys)
            return opened, _shown(app, "st")

    assert await visit(newer, "space") == ({"m.py:L3": "●"}, {"m.py:L3": "✓"})
    assert await visit(older, "space") == ({"m.py:L2": "●"}, {"m.py:L2": "✓"})
    assert await visit(older) == ({"m.py:L2": "✓"},) * 2  # a commit never changes
    assert await visit(newer) == ({"m.py:L3": "✓"},) * 2


def _two_functions(repo: GitRepoBuilder, a_body: str, b_body: str) -> None:
    consts = "".join(f"CONST_{i} = {i}\n" for i in range(30))
    repo.write("m.py", f"def a(x):\n{a_body}    return y\n\n{consts}\n"
                       f"def b(x):\n{b_body}    return z\n")


async def test_a_reviewed_unit_that_only_moved_stays_reviewed(repo: GitRepoBuilder,
                                                               tmp_path: Path) -> None:
    """b() reviewed; a line added in a() moves b() down a line, same content: b() is still
    ✓ after ``r`` (and a() new); b() edited, ``r``: b() is ↻ (changed since review)."""
    _two_functions(repo, "    y = x + 1\n", "    z = x * 2\n")
    repo.commit("base")
    _two_functions(repo, "    y = x + 2\n", "    z = x * 3\n")
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        app.triage.sort_key = "file"
        app.refresh_rows()
        await pilot.press("j", "space")
        assert _shown(app, "st") == {"m.py:L2": "●", "m.py:L37": "✓"}
        _two_functions(repo, "    y = x + 2\n    y += 0\n", "    z = x * 3\n")
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _shown(app, "st") == {"m.py:L2-3": "●", "m.py:L38": "✓"}
        _two_functions(repo, "    y = x + 2\n    y += 0\n", "    z = x * 4\n")
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _shown(app, "st") == {"m.py:L2-3": "●", "m.py:L38": "↻"}
        _painted_as_decided(app)
