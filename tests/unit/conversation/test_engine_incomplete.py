"""Answers that are not whole, through the real engine, the SDK and the scripted server.

* An answer the model stopped at its output token limit (finish_reason "length") went into
  the next rounds' prompts as it was: the model then took its own half answer for complete.
"""

from __future__ import annotations

from pathlib import Path

from reviewtui.conversation.packing import TRUNCATED_MARKER
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
