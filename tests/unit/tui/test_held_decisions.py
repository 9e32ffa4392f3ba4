"""Two workbenches' sessions on one repository write only their own decisions (no App here)."""

from __future__ import annotations

from pathlib import Path

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextLevel
from reviewtui.pipeline import load_change
from reviewtui.plan import OverrideSet, UnitOverride
from reviewtui.sessions.marks import ReviewMarks
from reviewtui.sessions.store import SessionStore
from reviewtui.tui.session import TuiSession
from reviewtui.units.identity import UnitContents
from tests.conftest import GitRepoBuilder


def _opened(repo: GitRepoBuilder, store: Path, selector: ChangeSelector
            ) -> tuple[TuiSession, OverrideSet, ReviewMarks]:
    session = TuiSession(load_change(repo.root, selector), store)
    return session, session.overrides(), session.marks()


def test_marks_of_workbenches_on_other_selectors_are_not_taken_back(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """Marks are per repository: a workbench on the last commit and one on the working tree
    each mark a unit; neither's saves take the other's mark back."""
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("base")
    repo.write("a.py", "def a():\n    return 2\n")
    repo.commit("a change")
    repo.write("b.py", "def b():\n    return 3\n")
    store = tmp_path / "s.sqlite3"
    work, work_decided, work_marks = _opened(repo, store, ChangeSelector(SelectorMode.AUTO))
    last, _, last_marks = _opened(repo, store, ChangeSelector(SelectorMode.COMMIT, "HEAD"))
    assert len(work_marks) == len(last_marks) == 0
    (b_unit,), (a_unit,) = work.loaded.units, last.loaded.units
    b_in, a_in = UnitContents([b_unit]), UnitContents([a_unit])

    def stored() -> set[str]:
        with SessionStore(store) as opened:
            return {m.unit_id for m in opened.review_marks(str(repo.root))}

    last_marks.mark(a_unit, a_in)
    assert last.save(OverrideSet(), last_marks) is None
    work_marks.mark(b_unit, b_in)
    assert work.save(work_decided, work_marks) is None
    assert stored() == {a_unit.unit_id, b_unit.unit_id}
    level = OverrideSet(units={b_unit.unit_id: UnitOverride(level=ContextLevel.FULL_FILE)})
    assert work.save(level, work_marks) is None
    assert last.save(OverrideSet(), last_marks) is None
    assert stored() == {a_unit.unit_id, b_unit.unit_id}
    last_marks.unmark(a_unit, a_in)  # the person took a.py's mark back
    assert last.save(OverrideSet(), last_marks) is None
    assert stored() == {b_unit.unit_id}
    work_marks.unmark(b_unit, b_in)  # ...and b.py's, in the other workbench
    assert work.save(level, work_marks) is None
    last_marks.mark(a_unit, a_in)  # a.py marked again
    assert last.save(OverrideSet(), last_marks) is None
    assert stored() == {a_unit.unit_id}


def test_a_refresh_moves_what_is_stored_and_keeps_the_other_workbenchs_decisions(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    repo.write("a.py", "def a():\n    return 1\n")
    repo.write("b.py", "def b():\n    return 2\n")
    repo.commit("base")
    repo.write("a.py", "def a():\n    return 10\n")
    repo.write("b.py", "def b():\n    return 20\n")
    store = tmp_path / "s.sqlite3"
    one, _, _ = _opened(repo, store, ChangeSelector(SelectorMode.AUTO))
    two, _, _ = _opened(repo, store, ChangeSelector(SelectorMode.AUTO))
    a_id, b_id = (u.unit_id for u in one.loaded.units)
    mine = OverrideSet(units={a_id: UnitOverride(level=ContextLevel.FULL_FILE)})
    assert one.save(mine) is None
    assert two.save(OverrideSet(units={b_id: UnitOverride(skip=True)})) is None
    repo.write("a.py", "def a():\n    return 11\n")  # a.py edited: its unit gets a new id
    refreshed = one.refresh(one.loaded.plan(use_llm=False))
    carried, moves = one.carry(mine, refreshed.loaded)
    (new_a,) = moves.values()
    one.adopt(refreshed.loaded, carried, moves)
    assert one.save(carried) is None
    with SessionStore(store) as opened:
        (info,) = opened.list_sessions()
        stored = opened.overrides(info.session_id).units
    assert set(stored) == {new_a, b_id} and stored[b_id].skip is True
    assert stored[new_a].level is ContextLevel.FULL_FILE


def test_a_comment_another_workbench_deleted_keeps_the_text_typed_into_it(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """Workbench B edits a comment while workbench A deletes it: B's save was refused ("no
    comment 1 in session …") and the text typed was lost with the dialog."""
    from reviewtui.sessions.review_records import ReviewComment

    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("base")
    repo.write("a.py", "def a():\n    return 2\n")
    store = tmp_path / "s.sqlite3"
    first, _, _ = _opened(repo, store, ChangeSelector(SelectorMode.AUTO))
    second, _, _ = _opened(repo, store, ChangeSelector(SelectorMode.AUTO))
    draft = ReviewComment(file_path="a.py", start_line=2, end_line=2, body="Why 2?")
    assert first.save_comment(draft) is None
    [kept] = second.review_records()[1]
    assert kept.comment_id is not None
    assert first.delete_comment(kept.comment_id) is None
    edited = kept.model_copy(update={"body": "Why 2 and not 3?"})
    assert second.save_comment(edited) is None
    assert [c.body for c in first.review_records()[1]] == ["Why 2 and not 3?"]
