"""The workbench's session logs the person's changed decisions as evidence (no App here)."""

from __future__ import annotations

from pathlib import Path

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextLevel
from reviewtui.pipeline import load_change
from reviewtui.plan import OverrideSet, UnitOverride, read_conflicts
from reviewtui.tui.session import TuiSession
from reviewtui.units.identity import UnitContents
from tests.conftest import GitRepoBuilder
from tests.support import learning


def _session(repo: GitRepoBuilder, tmp_path: Path) -> tuple[TuiSession, str]:
    learning.base(repo, 1)
    learning.change(repo, 0, commit=False)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    unit = next(u.unit_id for u in loaded.units if u.file_path.startswith("tests/"))
    session = TuiSession(loaded, tmp_path / "s.sqlite3")
    session.overrides()
    return session, unit


def test_only_changed_decisions_are_logged_and_a_reopened_session_knows_them(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    session, unit = _session(repo, tmp_path)
    level = OverrideSet(units={unit: UnitOverride(level=ContextLevel.DIFF_ONLY)})
    assert session.save(level) is None
    marks = session.marks()
    reviewed = session.loaded.unit(unit)
    assert reviewed is not None
    marks.mark(reviewed, UnitContents(session.loaded.units))
    assert session.save(level, marks) is None  # a reviewed mark: not a decision on levels
    log = repo.root / ".git" / "reviewtui" / "conflicts.jsonl"
    assert [r.user_level for r in read_conflicts(log)] == [ContextLevel.DIFF_ONLY]
    again = TuiSession(session.loaded, tmp_path / "s.sqlite3")
    assert again.overrides() == level
    assert again.save(OverrideSet()) is None  # taken back, in a later session
    assert [(r.user_level, r.user_skip) for r in read_conflicts(log)] == [
        (ContextLevel.DIFF_ONLY, None), (None, None)]


def test_a_log_that_cannot_be_written_is_one_line_and_the_decision_is_kept(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    session, unit = _session(repo, tmp_path)
    (repo.root / ".git" / "reviewtui").mkdir(exist_ok=True)
    (repo.root / ".git" / "reviewtui" / "conflicts.jsonl").mkdir()  # in the way
    skip = OverrideSet(units={unit: UnitOverride(skip=True)})
    problem = session.save(skip)
    assert problem == "decision saved, but not logged for learning: Is a directory"
    assert TuiSession(session.loaded, tmp_path / "s.sqlite3").overrides() == skip


def test_a_refresh_carries_decisions_without_logging_them_again(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """The edited unit gets a new id and keeps the person's decision; that is not a new
    decision (nor one taken back), so the evidence log does not grow."""
    session, unit = _session(repo, tmp_path)
    level = OverrideSet(units={unit: UnitOverride(level=ContextLevel.DIFF_ONLY)})
    assert session.save(level) is None
    log = repo.root / ".git" / "reviewtui" / "conflicts.jsonl"
    before = read_conflicts(log)
    path = session.loaded.unit(unit)
    assert path is not None
    target = repo.root / path.file_path
    target.write_text(target.read_text() + "\n# one more line\n")
    refreshed = session.refresh(session.loaded.plan(use_llm=False))
    overrides, moves = session.carry(level, refreshed.loaded)
    [carried] = overrides.units
    assert carried != unit and overrides.units[carried].level is ContextLevel.DIFF_ONLY
    assert moves == {unit: carried}
    session.adopt(refreshed.loaded, overrides, moves)
    assert session.save(overrides) is None
    assert read_conflicts(log) == before


def test_decisions_on_the_working_tree_come_back_once_it_is_committed(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """Committing the pending change makes it another change (``commit:``, not ``all:``): the
    same units (same ids: paths, hunks, lines) get the levels and skips chosen on them back,
    and that is not logged again as a new decision."""
    session, unit = _session(repo, tmp_path)
    others = [u.unit_id for u in session.loaded.units if u.unit_id != unit]
    decided = OverrideSet(units={unit: UnitOverride(level=ContextLevel.FULL_FILE),
                                 others[0]: UnitOverride(skip=True)})
    assert session.save(decided) is None
    log = repo.root / ".git" / "reviewtui" / "conflicts.jsonl"
    logged = read_conflicts(log)
    repo.commit("the pending change")
    committed = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    assert committed.change_set.key != session.loaded.change_set.key
    reopened = TuiSession(committed, tmp_path / "s.sqlite3")
    assert reopened.overrides() == decided
    assert reopened.save(decided) is None
    assert read_conflicts(log) == logged
    # a change decided on, even back to nothing, keeps its own decisions
    assert reopened.save(OverrideSet()) is None
    assert TuiSession(committed, tmp_path / "s.sqlite3").overrides() == OverrideSet()
