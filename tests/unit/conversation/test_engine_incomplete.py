"""Answers that are not whole, through the real engine, the SDK and the scripted server.

* An answer the model stopped at its output token limit (finish_reason "length") went into
  the next rounds' prompts as it was: the model then took its own half answer for complete.
* An answer the server cut off mid-stream (the connection closed with no finish reason) is
  kept with the text that came, marked ``cut_off``: it too went into later prompts as it was.
* An answer the person stopped before the model said anything (no text, no tool round) was
  offered for continuing: there was nothing to go on with, and "continue" sent the model an
  instruction to go on from a place that does not exist.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reviewtui.conversation.engine import CONTINUE_PROMPT
from reviewtui.conversation.packing import (
    CUT_OFF_MARKER,
    INTERRUPTED_MARKER,
    TRUNCATED_MARKER,
)
from reviewtui.errors import LLMCancelledError, StoreError, UsageError
from reviewtui.sessions import SessionStore
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.unit.conversation.test_engine import _repo, _session


def test_an_answer_cut_at_the_token_limit_is_marked_in_the_next_request(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = SessionStore(tmp_path / "s.sqlite3")
    chat = _session(repo, store)
    fake_llm.script(Reply.text("login() now also checks user.active, and", finish_reason="length"),
                    Reply.text("It returns a bool."))
    first = chat.ask("What does login check?")
    assert first.round.truncated and first.answer == "login() now also checks user.active, and"
    chat.ask("What does it return?")
    sent = fake_llm.chat_requests[1].body["messages"]  # as the server received it
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2]["content"] == f"{first.answer}\n\n{TRUNCATED_MARKER}"
    assert sent[3]["content"].endswith("What does it return?")
    # stored as the model said it: the marker is what is sent, not what was answered
    assert store.rounds(chat.session.session_id)[0].answer == first.answer
    store.close()


def test_an_answer_cut_off_mid_stream_is_marked_in_the_next_request_and_continued(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = SessionStore(tmp_path / "s.sqlite3")
    chat = _session(repo, store)
    # the server hangs up after two chunks: no finish reason
    fake_llm.script(Reply.text("login() now also checks user.active, and",
                               chunks=["login() now ", "also checks user.active, ", "and"],
                               cut_after=2),
                    Reply.text("It returns a bool."))
    shown: list[str] = []  # streamed (a cut is a streamed answer's)
    first = chat.ask("What does login check?", on_delta=shown.append)
    assert first.round.cut_off and not first.round.truncated
    assert first.answer == "login() now also checks user.active, "
    [kept] = store.rounds(chat.session.session_id)
    assert (kept.answer, kept.cut_off) == (first.answer, True)  # stored as it came
    assert shown == ["login() now ", "also checks user.active, "]
    chat.ask("What does it return?")
    sent = fake_llm.chat_requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2]["content"] == f"{first.answer}\n\n{CUT_OFF_MARKER}"
    assert TRUNCATED_MARKER not in sent[2]["content"]
    store.close()


def test_a_continuation_of_a_cut_off_answer_sees_it_marked(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = SessionStore(tmp_path / "s.sqlite3")
    chat = _session(repo, store)
    fake_llm.script(Reply.text("It checks user.active, and",
                               chunks=["It checks ", "user.active, ", "and"], cut_after=2),
                    Reply.text("and user.ok."))
    first = chat.ask("What does login check?", on_delta=lambda _: None)
    assert first.round.cut_off
    unfinished = chat.unfinished()
    assert unfinished is not None and unfinished.index == first.round.index
    more = chat.continue_answer()
    assert more.round.continues == 0 and more.answer == "and user.ok."
    sent = fake_llm.chat_requests[-1].body["messages"]
    assert sent[-2] == {"role": "assistant",
                        "content": f"It checks user.active, \n\n{CUT_OFF_MARKER}"}
    store.close()


def _stop_at_once(cancel: threading.Event) -> threading.Timer:
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    return timer


def test_an_answer_stopped_before_any_word_is_kept_but_not_offered_for_continuing(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = SessionStore(tmp_path / "s.sqlite3")
    chat = _session(repo, store)
    # the model is slow to start: the person stops it before its first word
    fake_llm.script(Reply.delay(3.0, Reply.text("too late")),
                    Reply.text("It checks user.active."))
    cancel = threading.Event()
    timer = _stop_at_once(cancel)
    with pytest.raises(LLMCancelledError):
        chat.ask("What does login check?", cancel=cancel)
    timer.join()
    [stopped] = store.rounds(chat.session.session_id)
    assert stopped.ended_at is not None and stopped.interrupted and stopped.answer == ""
    # nothing was said: nothing to continue, and the message says to ask again
    assert chat.unfinished() is None
    with pytest.raises(UsageError, match="nothing to continue") as refused:
        chat.continue_answer()
    assert "before the model said anything" in refused.value.message
    assert refused.value.hint is not None and "ask the question again" in refused.value.hint
    # ... which works, and the model sees the stopped question for what it was
    again = chat.ask("What does login check?")
    assert again.answer == "It checks user.active." and again.round.continues is None
    sent = fake_llm.chat_requests[-1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2]["content"] == INTERRUPTED_MARKER
    store.close()


def test_an_answer_stopped_after_a_tool_round_can_still_be_continued(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """No text yet, but the model read code for it: that work is what a continuation goes
    on from."""
    _repo(repo)
    store = SessionStore(tmp_path / "s.sqlite3")
    chat = _session(repo, store)
    fake_llm.script(
        Reply.tool_calls([{"name": "read_file_hunk",
                           "arguments": {"path": "app/auth.py", "start": 1, "end": 2}}]),
        Reply.text("It checks user.active."))
    cancel = threading.Event()  # set once the tool ran: before the request for the text
    with pytest.raises(LLMCancelledError):
        chat.ask("What does login check?", cancel=cancel, on_tool=lambda run: cancel.set())
    unfinished = chat.unfinished()
    assert unfinished is not None and unfinished.interrupted and unfinished.answer == ""
    more = chat.continue_answer()
    assert more.round.continues == 0 and more.answer == "It checks user.active."
    store.close()


def test_ask_continuing_a_round_where_nothing_was_said_is_refused_by_the_store(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """``unfinished`` and ``continue_answer`` leave such a round out; ``ask(continues=...)``
    called directly is refused too, by the store's claim, before anything is sent."""
    _repo(repo)
    store = SessionStore(tmp_path / "s.sqlite3")
    chat = _session(repo, store)
    fake_llm.script(Reply.delay(3.0, Reply.text("too late")))
    cancel = threading.Event()
    timer = _stop_at_once(cancel)
    with pytest.raises(LLMCancelledError):
        chat.ask("What does login check?", cancel=cancel)
    timer.join()
    asked = len(fake_llm.chat_requests)
    with pytest.raises(StoreError, match="before the model said anything"):
        chat.ask(CONTINUE_PROMPT, continues=0)
    assert len(fake_llm.chat_requests) == asked  # the model was asked nothing
    assert [r.index for r in store.rounds(chat.session.session_id)] == [0]
    assert [r.index for r in chat.rounds.rounds] == [0]  # the guess was dropped
    store.close()
