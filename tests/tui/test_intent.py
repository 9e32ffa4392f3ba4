"""The change's stated purpose in the workbench: its line in the header, ``I`` shows it whole,
``i`` writes the description in $EDITOR (a stub script here), the planner reads it, and it
survives a restart (the session store keeps it)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.sessions.store import SessionStore
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.intent_pane import IntentPane
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

DESCRIPTION = "Refuse inactive users at login.\n\nFixes #9; key sk-abcdefghijklmnopqrstuvwx1"


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/auth.py", "def login(u):\n    return u.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(u):\n    return u.ok and u.active\n")
    return repo


def _app(repo: GitRepoBuilder, store: Path) -> ReviewApp:
    return ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)),
                     store_path=store)


def _editor(tmp_path: Path, text: str) -> Path:
    """An "editor" that writes ``text`` into the file it is given (its last argument)."""
    source = tmp_path / "typed.txt"
    source.write_text(text)
    script = tmp_path / "bin" / "write-description"
    script.parent.mkdir(exist_ok=True)
    script.write_text(f'#!/bin/sh\nfor last; do :; done\ncat "{source}" > "$last"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _pane_text(app: ReviewApp) -> str:
    return str(app.query_one("#intent-text").render())


@pytest.mark.skipif(os.name != "posix", reason="a shell script as the editor")
async def test_i_writes_the_description_the_planner_reads_it_and_it_survives_a_restart(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    monkeypatch.setenv("EDITOR", str(_editor(tmp_path, DESCRIPTION)))
    monkeypatch.delenv("VISUAL", raising=False)
    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert app.sub_title == ("all: HEAD -> worktree · branch main · "
                                 "no description (i writes one)")
        assert not app.query_one(IntentPane).has_class("visible")
        await pilot.press("i")
        await pilot.pause()
        assert app.sub_title == ("all: HEAD -> worktree · Refuse inactive users at login. · "
                                 "branch main · issues #9")
        await pilot.press("I")  # the whole of it
        assert app.query_one(IntentPane).has_class("visible")
        text = _pane_text(app)
        assert "Refuse inactive users at login." in text and "Fixes #9; key [REDACTED]" in text

        fake_llm.script(Reply.json({"plan": []}))
        await pilot.press("P")
        await app.workers.wait_for_complete()
        await pilot.pause()
        sent = fake_llm.chat_requests[0].body["messages"][1]["content"]
        assert "### Description\nRefuse inactive users at login." in sent
        assert "sk-abcdefghijklmnopqrstuvwx1" not in sent
        await pilot.press("I")
        assert not app.query_one(IntentPane).has_class("visible")

    with SessionStore(store) as kept:
        [session] = kept.list_sessions()
        assert kept.description(session.session_id) == (
            "Refuse inactive users at login.\n\nFixes #9; key [REDACTED]")

    monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
    again = _app(repo, store)  # a restart on the same repository and store
    async with again.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert again.sub_title == ("all: HEAD -> worktree · Refuse inactive users at login. · "
                                   "branch main · issues #9")
        assert again.loaded.intent is not None
        assert again.loaded.intent.description_source == "workbench"
        await pilot.press("i")  # the editor is missing: one notification, nothing lost
        await pilot.pause()
        assert "Refuse inactive users" in again.sub_title


@pytest.mark.skipif(os.name != "posix", reason="a shell script as the editor")
async def test_an_emptied_description_is_removed(repo: GitRepoBuilder, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(_editor(tmp_path, "Short-lived.\n")))
    app = _app(repo, store)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("i")
        await pilot.pause()
        assert "Short-lived." in app.sub_title
        monkeypatch.setenv("EDITOR", str(_editor(tmp_path, "\n")))
        await pilot.press("i")
        await pilot.pause()
        assert app.sub_title.endswith("no description (i writes one)")
        assert app.session.description() is None
