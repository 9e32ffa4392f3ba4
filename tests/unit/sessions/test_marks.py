"""Reviewed marks kept by each unit's content, on real repositories: a function's units each
have their own, a unit that only moved stays reviewed, an edited one is ↻ (and only it), a
commit's units keep their marks whatever is marked in other commits."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.git.runner import open_repository
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.sessions.marks import ReviewMarks, commit_time
from reviewtui.sessions.schema import APPLICATION_ID, MIGRATIONS
from reviewtui.sessions.store import SessionStore
from reviewtui.units import ReviewUnit
from reviewtui.units.identity import UnitContents, content_ids
from tests.conftest import GitRepoBuilder

BIG = ["def big(x):", *[f"    v{i} = x + {i}" for i in range(60)], "    return x"]
AUTO = ChangeSelector(SelectorMode.AUTO)


def _write_big(repo: GitRepoBuilder, edits: dict[int, str], top: str = "") -> None:
    lines = [edits.get(i, line) for i, line in enumerate(BIG)]
    repo.write("mod.py", top + "\n".join(lines) + "\n")


def _loaded(repo: GitRepoBuilder, selector: ChangeSelector = AUTO) -> LoadedChange:
    return load_change(repo.root, selector)


def _statuses(units: list[ReviewUnit], marks: ReviewMarks) -> list[str]:
    """Each unit's status, in the order of its lines."""
    found = marks.statuses(units, UnitContents(units))
    return [found.get(u.unit_id, "new") for u in sorted(units, key=lambda u: u.span() or (0,))]


def _by_lines(units: list[ReviewUnit]) -> list[ReviewUnit]:
    return sorted(units, key=lambda u: u.span() or (0, 0))


def test_each_unit_of_a_function_has_its_own_mark(repo: GitRepoBuilder) -> None:
    _write_big(repo, {})
    repo.commit("base")
    _write_big(repo, {4: "    v3 = x + 300", 51: "    v50 = x + 5000"})
    first, second = _by_lines(_loaded(repo).units)
    marks = ReviewMarks()
    marks.mark(first, UnitContents([first, second]))
    assert _statuses([first, second], marks) == ["reviewed", "new"]
    marks.mark(second, UnitContents([first, second]))
    assert _statuses([first, second], marks) == ["reviewed", "reviewed"]
    marks.unmark(first, UnitContents([first, second]))
    assert _statuses([first, second], marks) == ["new", "reviewed"]


def test_a_unit_that_only_moved_stays_reviewed_an_edited_one_is_changed(
        repo: GitRepoBuilder) -> None:
    header = "".join(f"C_{i} = {i}\n" for i in range(20))
    _write_big(repo, {}, top=header)
    repo.commit("base")
    _write_big(repo, {4: "    v3 = x + 300", 51: "    v50 = x + 5000"}, top=header)
    units = _loaded(repo).units
    marks = ReviewMarks()
    for unit in units:
        marks.mark(unit, UnitContents(units))
    header = "import os\n" + header  # a unit of its own, far enough above
    _write_big(repo, {4: "    v3 = x + 300", 51: "    v50 = x + 5000"}, top=header)
    moved = _loaded(repo).units  # big()'s units moved a line down: new ids, the same content
    assert not {u.unit_id for u in moved} & {u.unit_id for u in units}
    assert _statuses(moved, marks) == ["new", "reviewed", "reviewed"]
    _write_big(repo, {4: "    v3 = x + 300", 51: "    v50 = x + 5001"}, top=header)
    edited = _loaded(repo).units
    assert _statuses(edited, marks) == ["new", "reviewed", "changed"]  # import os: new
    lower = _by_lines(edited)[-1]
    marks.mark(lower, UnitContents(edited))  # reviewed again after the edit
    assert _statuses(edited, marks) == ["new", "reviewed", "reviewed"]


def test_an_edit_makes_only_the_edited_unit_changed(repo: GitRepoBuilder) -> None:
    """The first unit reviewed, the second not; the first edited: only it is ↻; marked again,
    the earlier mark does not make the function's other unit ↻."""
    _write_big(repo, {})
    repo.commit("base")
    _write_big(repo, {4: "    v3 = x + 300", 51: "    v50 = x + 5000"})
    units = _by_lines(_loaded(repo).units)
    marks = ReviewMarks()
    marks.mark(units[0], UnitContents(units))
    _write_big(repo, {4: "    v3 = x + 301", 51: "    v50 = x + 5000"})
    edited = _by_lines(_loaded(repo).units)
    assert _statuses(edited, marks) == ["changed", "new"]
    marks.mark(edited[0], UnitContents(edited))
    assert _statuses(edited, marks) == ["reviewed", "new"]
    assert len(marks) == 2  # the earlier version's mark is kept (another change may have it)


def test_units_with_the_same_content_in_one_function_are_told_apart(
        repo: GitRepoBuilder) -> None:
    body = ["def f(x):", "    a = 0", "    x = 1", "    b = 0", *["    pass"] * 20,
            "    a = 0", "    x = 1", "    b = 0", "    return x"]
    repo.write("m.py", "\n".join(body) + "\n")
    repo.commit("base")
    repo.write("m.py", "\n".join(body).replace("x = 1", "x = 2") + "\n")
    units = _by_lines(_loaded(repo).units)
    assert len(units) == 2
    ids = content_ids(units)
    assert ids[units[0].unit_id] != ids[units[1].unit_id]
    marks = ReviewMarks()
    marks.mark(units[1], UnitContents(units))
    assert _statuses(units, marks) == ["new", "reviewed"]


def test_commits_keep_their_marks_and_a_later_one_does_not_mark_an_older_changed(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    repo.write("m.py", "def f(x):\n    a = 1\n    b = 2\n    return a + b\n")
    repo.commit("init")
    repo.write("m.py", "def f(x):\n    a = 10\n    b = 2\n    return a + b\n")
    repo.commit("c1")
    repo.write("m.py", "def f(x):\n    a = 10\n    b = 20\n    return a + b\n")
    repo.commit("c2")
    older = _loaded(repo, ChangeSelector(SelectorMode.COMMIT, "HEAD~1"))
    newer = _loaded(repo, ChangeSelector(SelectorMode.COMMIT, "HEAD"))
    repo_git = open_repository(repo.root)

    def seen(loaded: LoadedChange, store: SessionStore) -> list[str]:
        marks = ReviewMarks(store.review_marks(str(repo.root)), version_time=lambda: (
            commit_time(repo_git, loaded.change_set.new_side)))
        return _statuses(loaded.units, marks)

    with SessionStore(tmp_path / "s.sqlite3") as store:
        marks = ReviewMarks()
        store.mark_reviewed(str(repo.root), marks.mark(newer.units[0],
                                                       UnitContents(newer.units)))
        assert seen(older, store) == ["new"]  # marked on a later commit: not "changed"
        store.mark_reviewed(str(repo.root), marks.mark(older.units[0],
                                                       UnitContents(older.units)))
        assert seen(older, store) == seen(newer, store) == ["reviewed"]
        repo.write("m.py", "def f(x):\n    a = 10\n    b = 21\n    return a + b\n")
        repo.commit("c3, after the review", date="2099-01-01T00:00:00Z")
        later = _loaded(repo, ChangeSelector(SelectorMode.COMMIT, "HEAD"))
        assert seen(later, store) == ["changed"]  # its function reviewed before it was made


def test_marks_of_a_version_7_store_stay_readable(repo: GitRepoBuilder, tmp_path: Path) -> None:
    """A mark kept by unit key and unit id before schema 8 still marks the unit with that id;
    the function's other unit is not marked by it."""
    _write_big(repo, {})
    repo.commit("base")
    _write_big(repo, {4: "    v3 = x + 300", 51: "    v50 = x + 5000"})
    first, second = _by_lines(_loaded(repo).units)
    path = tmp_path / "s.sqlite3"
    conn = sqlite3.connect(path)
    for step in MIGRATIONS[:7]:
        for statement in step:
            conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 7")
    conn.execute("INSERT INTO review_marks VALUES (?, 'mod.py::big', ?, "
                 "'2024-01-01T00:00:00.000000+00:00')", (str(repo.root), second.unit_id))
    conn.execute("INSERT INTO review_marks VALUES ('/other', 'lib/x.cc::ns::A::f', 'u_1', "
                 "'2024-01-01T00:00:00.000000+00:00')")
    conn.commit()
    conn.close()
    with SessionStore(path) as store:
        marks = ReviewMarks(store.review_marks(str(repo.root)))
        (other,) = store.review_marks("/other")
    assert _statuses([first, second], marks) == ["new", "reviewed"]
    assert (other.file_path, other.unit_key, other.span) == ("lib/x.cc", "lib/x.cc::ns::A::f",
                                                             None)
    marks.unmark(second, UnitContents([first, second]))
    assert len(marks) == 0
