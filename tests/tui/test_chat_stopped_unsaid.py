"""An answer stopped before the model said anything is not offered for continuing.

Escape while the model had not yet sent a word (nor called a tool) kept the question, marked
interrupted, and offered ``c`` to continue it: a continuation that asked the model to go on
from nowhere. ``reviewtui ask --continue`` refuses such a round; the workbench now agrees,
says there is nothing to continue, and puts the question back in the input to ask again.
"""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import Markdown

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.sessions import SessionStore
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.chat_input import ChatInput
from reviewtui.tui.widgets.chat_pane import ChatPane
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


def _app(repo: GitRepoBuilder, store: Path) -> ReviewApp:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    return ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)), store_path=store)


async def _wait_for_the_request(pilot: object, fake_llm: ScriptedOpenAIServer,
                                count: int) -> None:
    deadline = time.monotonic() + 20
    while len(fake_llm.chat_requests) < count and time.monotonic() < deadline:
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    assert len(fake_llm.chat_requests) == count


async def test_escape_before_the_first_word_offers_the_question_again_not_continuing(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    store_path = tmp_path / "s.sqlite3"
    fake_llm.script(Reply.delay(5.0, Reply.text("too late")),
                    Reply.text("It checks user.active."))
    app = _app(repo, store_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        await _wait_for_the_request(pilot, fake_llm, 1)
        await pilot.press("escape")  # the model has not said a word yet
        await app.workers.wait_for_complete()
        await pilot.pause()
        pane = app.query_one(ChatPane)
        notices = [str(w.render()) for w in app.query(".chat-notice")]
        assert not pane.continuable
        assert not any("continues it" in notice for notice in notices)
        assert "before the model said anything" in notices[-1]
        assert "nothing to continue" in notices[-1]
        chat_input = app.query_one(ChatInput)
        assert isinstance(app.focused, ChatInput) and chat_input.text == "why?"
        await pilot.press("enter")  # asked again, as it was
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = [m.source for m in app.query(".chat-answer").results(Markdown)]
        assert shown[-1] == "It checks user.active."
        assert "round 2 answered" in str(app.query_one("#status").render())
    assert fake_llm.chat_requests[1].body["messages"][-1]["content"].endswith("why?")
    with SessionStore(store_path) as store:
        [session] = store.list_sessions(limit=0)
        rounds = store.rounds(session.session_id)
    assert [(r.user_message, r.answer, r.interrupted, r.continues) for r in rounds] == [
        ("why?", "", True, None), ("why?", "It checks user.active.", False, None)]
    # opened again, the stopped question says what happened, not that an answer is partial
    app = ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)),
                    store_path=store_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        notices = [str(w.render()) for w in app.query(".chat-notice")]
        assert "(you stopped this question before any answer came)" in notices
        assert not any("this answer is not whole" in notice for notice in notices)


async def test_stopped_from_the_table_before_the_first_word_c_does_not_continue(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """Away from the input, a stopped answer gave the transcript the focus so that ``c``
    continued it; with nothing said, ``c`` stays the chat key and nothing is sent."""
    store_path = tmp_path / "s.sqlite3"
    fake_llm.script(Reply.delay(5.0, Reply.text("too late")),
                    Reply.text("continued from nothing"))
    app = _app(repo, store_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        await _wait_for_the_request(pilot, fake_llm, 1)
        app.table.focus()
        await pilot.pause()
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.focused is not app.query_one("#chat-log")
        app.query_one("#chat-log").focus()
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "continu" not in str(app.query_one("#status").render())
        assert app.query_one(ChatInput).text == "why?"  # back in the input all the same
    assert len(fake_llm.chat_requests) == 1
