"""Snapshots of the workbench: triage at the common terminal sizes, the extra-request modal,
and a streamed chat answer (wide, and at 80×24). Plain ``def`` tests: ``snap_compare`` runs its
own event loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.chat_input import ChatInput
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

Snap = Any


def _app(repo: GitRepoBuilder, tmp_path: Path) -> ReviewApp:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    repo.write("app/util.py", "def add(a, b):\n    # no None\n    return a + b\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    return ReviewApp(loaded, store_path=tmp_path / "s.sqlite3")


def test_triage_screen(repo: GitRepoBuilder, tmp_path: Path, snap_compare: Snap) -> None:
    assert snap_compare(_app(repo, tmp_path), terminal_size=(140, 30), press=["j", "3"])


def test_extra_request_modal(repo: GitRepoBuilder, tmp_path: Path, snap_compare: Snap) -> None:
    assert snap_compare(_app(repo, tmp_path), terminal_size=(140, 34), press=["e"])


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 45)],
                         ids=["80x24", "100x30", "160x45"])
def test_terminal_sizes(repo: GitRepoBuilder, tmp_path: Path, snap_compare: Snap,
                        size: tuple[int, int]) -> None:
    assert snap_compare(_app(repo, tmp_path), terminal_size=size)


@pytest.mark.parametrize("size", [(140, 34), (80, 24)], ids=["140x34", "80x24"])
def test_chat_with_a_streamed_answer(repo: GitRepoBuilder, tmp_path: Path,
                                     fake_llm: ScriptedOpenAIServer, snap_compare: Snap,
                                     size: tuple[int, int]) -> None:
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.text("`login` now also requires **active** users (app/auth.py:2).",
                               chunks=["`login` now also ", "requires **active** users ",
                                       "(app/auth.py:2)."]))

    async def ask(pilot: Pilot[None]) -> None:
        pilot.app.query_one(ChatInput).cursor_blink = False  # a blinking cursor is not stable
        await pilot.press("c", *"what changed?", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=ask)


def test_detail_pane_with_findings_and_comments(repo: GitRepoBuilder, tmp_path: Path,
                                                fake_llm: ScriptedOpenAIServer,
                                                snap_compare: Snap) -> None:
    """After R: one finding dismissed with a reason, one open (the f cursor on it), a comment of
    the reviewer's own; the table counts them, the diff marks the flagged line."""
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.json({"verdict": "comment", "summary": "", "findings": [
        {"title": "Inactive users were allowed before", "body": "Is this a behaviour change "
         "callers rely on?", "severity": "P1", "confidence": 0.8, "file_path": "app/auth.py",
         "start_line": 2, "end_line": 2},
        {"title": "No test for inactive users", "body": "", "severity": "P3",
         "confidence": 0.5, "file_path": "app/auth.py", "start_line": 2, "end_line": 2}]}))

    async def finish(pilot: Pilot[None]) -> None:
        await pilot.press("R")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("f", "x", *"covered elsewhere", "enter")
        await pilot.press("f", "m")
        pilot.app.screen.query_one(ChatInput).cursor_blink = False
        await pilot.press(*"Please add a test with an inactive user.", "enter")
        await pilot.press("c")  # the review's report opened the chat: close it
        await pilot.pause()

    assert snap_compare(app, terminal_size=(140, 34), run_before=finish)
