"""A refresh that finds another change (the automatic selector after a commit or a checkout,
under --watch or r) switches the workbench to that change: its session, its stated purpose
(commits, branch), the header, and the status line says so — what the person does next goes
to the change shown, not to the one before."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextLevel
from reviewtui.pipeline import load_change
from reviewtui.sessions.store import SessionStore
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.screens.verdict_modal import VerdictModal
from tests.conftest import GitRepoBuilder

A_BEFORE = "def a():\n    return 1\n"
A_AFTER = "def a():\n    return 10\n"


async def _until(pilot: object, done: Callable[[], bool], seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not done():
        await pilot.pause(0.2)  # type: ignore[attr-defined]
    return done()


def _status(app: ReviewApp) -> str:
    return str(app.query_one("#status").render())


def _feature(repo: GitRepoBuilder) -> None:
    repo.write("a.py", A_BEFORE)
    repo.commit("init")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("a.py", A_AFTER)  # the working tree's change, not committed yet


def _auto(repo: GitRepoBuilder) -> str:
    return load_change(repo.root, ChangeSelector(SelectorMode.AUTO)).change_set.key


async def test_a_commit_makes_the_workbench_work_on_the_committed_change_and_its_session(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    _feature(repo)
    store = tmp_path / "s.sqlite3"
    working = _auto(repo)
    app = ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)), store_path=store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert app.sub_title.startswith("all: HEAD -> worktree")
        await pilot.press("4")  # a decision on the working tree's change
        unit = app.current()
        repo.commit("feature work")
        committed = _auto(repo)
        assert committed != working
        await pilot.press("r")
        assert await _until(pilot, lambda: "refreshed:" in _status(app))
        await pilot.pause()
        assert app.session.change_key == committed
        assert app.loaded.change_set.key == committed
        # The header and the intent are the committed change's: its commit, its branch.
        assert not app.sub_title.startswith("all:")
        assert "feature work" in app.sub_title and "branch feature" in app.sub_title
        intent = app.loaded.intent
        assert intent is not None and [c.subject for c in intent.commits] == ["feature work"]
        assert "the change is now " in _status(app) and "(from all: HEAD -> worktree)" in (
            _status(app))
        # The decision came along (the committed unit is the same unit), as on opening it.
        row = next(r for r in app.rows if r.unit.unit_id == unit)
        assert row.item.final_context_level is ContextLevel.FULL_FILE
        # What the person does now goes to the committed change's session.
        await pilot.press("V")
        assert isinstance(app.screen, VerdictModal)
        app.screen.query_one("#verdict-summary").value = "Looks good"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("3")  # a decision after the switch
    with SessionStore(store) as opened:
        sessions = {s.change_key: s.session_id for s in opened.list_sessions()}
        assert set(sessions) == {working, committed}
        verdict = opened.verdict(sessions[committed])
        assert verdict is not None and verdict.summary == "Looks good"
        assert opened.verdict(sessions[working]) is None
        assert opened.overrides(sessions[committed]).units[unit].level is ContextLevel.FILE_CONTEXT
        assert opened.overrides(sessions[working]).units[unit].level is ContextLevel.FULL_FILE


async def test_a_checkout_to_a_change_decided_on_before_takes_its_own_decisions(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """Back on a change that has a session: its decisions, as opening it gives them — not
    the ones of the change the workbench showed before the checkout."""
    _feature(repo)
    repo.commit("feature work")
    store = tmp_path / "s.sqlite3"
    feature = _auto(repo)
    app = ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)), store_path=store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("1")  # diff only, on feature's change
        unit = app.current()
        repo.git("checkout", "-q", "main")
        repo.git("checkout", "-q", "-b", "other")
        repo.write("a.py", A_AFTER)  # the same edit, uncommitted on another branch
        await pilot.press("r")
        assert await _until(pilot, lambda: "refreshed:" in _status(app))
        other = app.session.change_key
        assert other != feature and app.current() == unit  # the same unit (same content)
        await pilot.press("4")  # decided otherwise here
        repo.write("a.py", A_BEFORE)
        repo.git("checkout", "-q", "feature")
        await pilot.press("r")
        assert await _until(pilot, lambda: app.session.change_key == feature)
        await pilot.pause()
        assert "branch feature" in app.sub_title
        row = next(r for r in app.rows if r.unit.unit_id == unit)
        assert row.item.final_context_level is ContextLevel.DIFF_ONLY  # feature's own
    with SessionStore(store) as opened:
        sessions = {s.change_key: s.session_id for s in opened.list_sessions()}
        assert opened.overrides(sessions[feature]).units[unit].level is ContextLevel.DIFF_ONLY
        assert opened.overrides(sessions[other]).units[unit].level is ContextLevel.FULL_FILE
