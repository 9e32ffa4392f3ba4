"""Decisions written one by one: two connections, or two processes, on one real store file
keep each other's overrides and marks (no last writer wins)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reviewtui.models import ContextLevel
from reviewtui.plan.schema import OverrideSet, UnitOverride
from reviewtui.sessions.marks import ReviewMark
from reviewtui.sessions.store import SessionStore

FULL = UnitOverride(level=ContextLevel.FULL_FILE)
SKIP = UnitOverride(skip=True)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "sessions.sqlite3"


def test_two_connections_keep_each_others_overrides(store_path: Path) -> None:
    with SessionStore(store_path) as one, SessionStore(store_path) as two:
        sid = one.session_for_change("/r", "all:x", "t").session_id
        assert two.session_for_change("/r", "all:x", "t").session_id == sid
        one.update_overrides(sid, {"u_a": FULL})
        two.update_overrides(sid, {"u_b": SKIP})  # two never read u_a: it stays
        assert one.overrides(sid) == OverrideSet(units={"u_a": FULL, "u_b": SKIP})
        one.update_overrides(sid, {"u_a": None})  # taken back in one: only u_a goes
        two.update_overrides(sid, {"u_b": UnitOverride()})  # empty: no override either
        two.update_overrides(sid, {"u_c": SKIP})
        assert two.overrides(sid) == OverrideSet(units={"u_c": SKIP})


def test_a_new_set_starts_from_the_carried_decisions_once(store_path: Path) -> None:
    """A session with no set yet starts from what the workbench carried over from other
    changes; a second writer's start is not applied over what the first wrote."""
    carried = OverrideSet(units={"u_old": SKIP})
    with SessionStore(store_path) as one, SessionStore(store_path) as two:
        sid = one.create_session("/r", "c", "t").session_id
        one.update_overrides(sid, {"u_a": FULL}, start=carried)
        two.update_overrides(sid, {"u_old": None}, start=carried)  # taken back in two
        two.update_overrides(sid, {"u_b": SKIP}, start=carried)
        assert one.overrides(sid) == OverrideSet(units={"u_a": FULL, "u_b": SKIP})


def test_moves_move_what_is_stored(store_path: Path) -> None:
    with SessionStore(store_path) as one, SessionStore(store_path) as two:
        sid = one.create_session("/r", "c", "t").session_id
        one.update_overrides(sid, {"u_1": FULL, "u_2": SKIP, "u_3": SKIP, "u_9": FULL})
        two.update_overrides(sid, {"u_1": SKIP})  # changed in two meanwhile
        two.update_overrides(sid, {"u_2": None})  # taken back in two meanwhile
        one.update_overrides(sid, {}, moves={"u_1": "u_1b", "u_2": "u_2b", "u_3": "u_9"})
        assert one.overrides(sid) == OverrideSet(units={
            "u_1b": SKIP,  # two's decision moved, not one's older one
            "u_3": SKIP, "u_9": FULL})  # u_9 had its own: u_3's stays where it was


def _mark(path: str, content: str) -> ReviewMark:
    return ReviewMark(path, content, f"{path}::f", "u_" + content, 1, 2)


def test_marks_of_two_connections_are_each_their_own(store_path: Path) -> None:
    with SessionStore(store_path) as one, SessionStore(store_path) as two:
        one.mark_reviewed("/r", _mark("a.py", "c_1"))
        two.mark_reviewed("/r", _mark("a.py", "c_2"))  # the same function's other unit
        two.mark_reviewed("/r", _mark("b.py", "c_1"))
        two.unmark_reviewed("/r", "b.py", "c_1")
        assert [m.key for m in one.review_marks("/r")] == [("a.py", "c_1"), ("a.py", "c_2")]


def test_the_marks_of_the_files_asked_for_come_oldest_first(store_path: Path) -> None:
    """A change reads the marks of its own files: a year of marks on other files is not read
    on every opening and refresh. More files than one query binds are read and picked here; in
    both ways the order is the order of marking."""
    paths = [f"pkg/m{n:04}.py" for n in range(1200)]
    with SessionStore(store_path) as store:
        for path in reversed(paths):  # marked last file first: the oldest is m1199
            store.mark_reviewed("/r", _mark(path, "c_1"))
        store.mark_reviewed("/r", _mark("pkg/m0005.py", "c_2"))
        store.mark_reviewed("/other", _mark("pkg/m0005.py", "c_3"))
        everything = store.review_marks("/r")
        asked = store.review_marks("/r", [*paths[::2], "gone.py"])
        few = store.review_marks("/r", ["pkg/m0005.py", "pkg/m0004.py"])
        none = store.review_marks("/r", [])
    assert len(everything) == 1201
    assert [m.key for m in asked] == [m.key for m in everything if m.file_path in paths[::2]]
    assert [m.key for m in few] == [("pkg/m0005.py", "c_1"), ("pkg/m0004.py", "c_1"),
                                    ("pkg/m0005.py", "c_2")]
    assert none == []


WRITER = """
import sys
from reviewtui.models import ContextLevel
from reviewtui.plan.schema import UnitOverride
from reviewtui.sessions.marks import ReviewMark
from reviewtui.sessions.store import SessionStore
store = SessionStore(__import__("pathlib").Path(sys.argv[1]))
sid, name = sys.argv[2], sys.argv[3]
sys.stdin.readline()  # both start together
for i in range(40):
    store.update_overrides(sid, {f"{name}{i}": UnitOverride(level=ContextLevel.FULL_FILE)})
    if i % 2:
        store.update_overrides(sid, {f"{name}{i - 1}": None})
    store.mark_reviewed("/r", ReviewMark(f"{name}.py", f"c_{i}", f"{name}.py::f", f"u_{i}"))
store.close()
"""


def test_two_processes_deciding_at_once_lose_nothing(store_path: Path) -> None:
    with SessionStore(store_path) as store:
        sid = store.create_session("/r", "c", "t").session_id
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(store_path), sid, name],
                              stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("a", "b")]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    with SessionStore(store_path) as store:
        kept = set(store.overrides(sid).units)
        marks = store.review_marks("/r")
    assert kept == {f"{name}{i}" for name in "ab" for i in range(1, 40, 2)}
    assert len(marks) == 80
