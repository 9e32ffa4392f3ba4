"""The chat opened on a change whose session already has rounds (``reviewtui ask``, an earlier
workbench): its header said "no messages yet" and the transcript was empty, while the model was
given those rounds as the conversation so far. They are shown, the last few whole."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Markdown, Static

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.chat_input import ChatInput
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


def _repo(repo: GitRepoBuilder) -> None:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")


def _app(repo: GitRepoBuilder, store: Path) -> ReviewApp:
    return ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)), store_path=store)


async def _ask(app: ReviewApp, pilot: object, question: str) -> None:
    app.query_one(ChatInput).focus()
    await pilot.press(*question, "enter")  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]


async def test_the_rounds_of_an_earlier_workbench_are_shown_when_the_chat_opens(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    fake_llm.script(Reply.text("It also checks the account is active."),
                    Reply.text("Yes, inactive users are refused now."))
    first = _app(repo, store)
    async with first.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await _ask(first, pilot, "what changed")
    again = _app(repo, store)
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        header = str(again.query_one("#chat-rounds", Static).render())
        assert "no messages yet" not in header and "round 1" in header
        questions = [str(w.render()) for w in again.query(".chat-question")]
        answers = [w.source for w in again.query(".chat-answer").results(Markdown)]
        assert questions == ["> what changed"]
        assert answers == ["It also checks the account is active."]
        await _ask(again, pilot, "are inactive users refused")
        answers = [w.source for w in again.query(".chat-answer").results(Markdown)]
        assert answers[-1] == "Yes, inactive users are refused now."
        assert len(fake_llm.chat_requests[-1].body["messages"]) > 2  # the history was sent
        await pilot.press("escape", "c", "c")  # closed and opened again: shown once
        await pilot.pause()
        assert len(again.query(".chat-question")) == 2


async def test_a_continuation_is_shown_as_one_not_as_the_prompt_sent_for_it(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """A round that went on with an unfinished answer showed, opened again, the instruction
    reviewtui sends the model ("Your previous answer stopped before...") as the person's
    question; while it ran it was "(continue the answer)"."""
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    fake_llm.script(Reply.text("It checks the account", finish_reason="length"),
                    Reply.text(" is active."))
    first = _app(repo, store)
    async with first.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await _ask(first, pilot, "what changed")
        await pilot.press("c")  # the transcript has the focus: c continues the answer
        await first.workers.wait_for_complete()
        await pilot.pause()
        live = [str(w.render()) for w in first.query(".chat-question")]
    assert live == ["> what changed", "> (continue the answer)"]
    again = _app(repo, store)
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert [str(w.render()) for w in again.query(".chat-question")] == live
