"""ChatSession over many rounds: persistence, tool memory across processes, summaries, budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reviewtui.agent import Workspace
from reviewtui.conversation import ChatSession
from reviewtui.conversation.engine import WINDOW_ROUNDS
from reviewtui.errors import UsageError
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.llm import LLMClient, resolve_llm, token_counter
from reviewtui.pipeline import load_change
from reviewtui.sessions import SessionStore
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

BIG = "".join(f"LINE_{i} = {i}\n" for i in range(3000))


def _session(repo: GitRepoBuilder, store: SessionStore, **kw: Any) -> ChatSession:
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    workspace = Workspace(loaded, loaded.plan(use_llm=False))
    config = resolve_llm(loaded.settings.llm)
    return ChatSession.open(workspace, store, LLMClient(config), token_counter(config.model),
                            **kw)


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.write("app/big.py", BIG)
    repo.write(".reviewtui.toml", "[llm]\ncontext_window = 6000\nmax_output_tokens = 500\n"
                                   "max_retries = 0\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    return repo


def test_many_rounds_stay_in_budget_and_persist(repo: GitRepoBuilder, tmp_path: Path,
                                                fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = SessionStore(tmp_path / "s.sqlite3")
    chat = _session(repo, store)
    rounds = WINDOW_ROUNDS + 4
    for n in range(rounds):
        if n > WINDOW_ROUNDS:  # this round's prompt needs a summary: the model fails it
            fake_llm.script(Reply.error(500, "no summary"))
        fake_llm.script(
            Reply.tool_calls([{"name": "read_file_hunk",
                               "arguments": {"path": "app/big.py", "start": 1, "end": 400}}]),
            Reply.text(f"Answer {n}: app/auth.py:2 must check user.active (decided)."))
        result = chat.ask(f"Question {n} about login in app/auth.py?")
        assert result.packed.tokens <= result.packed.budget
        assert result.answer.startswith(f"Answer {n}")
    # Every request fitted the model's context (prompt budget = window - output).
    for request in fake_llm.chat_requests:
        text = " ".join(str(m.get("content") or "") for m in request.body["messages"])
        assert "Question" in text
    stored = store.rounds(chat.session.session_id)
    assert [r.index for r in stored] == list(range(rounds))
    assert all(r.ended_at for r in stored)
    # Rounds out of the window were summarised by the next round whose prompt held them: the
    # model is asked, and when it fails the extractive summary stands in; either keeps
    # file:line. (The last round pushed out is summarised by the round after this test.)
    summarised = [r for r in stored if r.summary]
    assert len(summarised) == rounds - WINDOW_ROUNDS - 1
    assert all("app/auth.py:2" in (r.summary or "") for r in summarised)
    # Tool messages are stored compressed, with the id of the full result.
    messages = store.messages(chat.session.session_id)
    tool_messages = [m for m in messages if m.role == "tool"]
    assert tool_messages and all(m.ref_id for m in tool_messages)
    assert all(len(m.content) < 3000 for m in tool_messages)
    ref = tool_messages[0].ref_id
    assert ref is not None
    full = store.tool_result(chat.session.session_id, ref)
    assert full is not None and "LINE_399 = 399" in full.content
    store.close()


def test_a_later_process_continues_the_session_and_reads_old_tool_results(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    path = tmp_path / "s.sqlite3"
    with SessionStore(path) as store:
        chat = _session(repo, store)
        fake_llm.script(
            Reply.tool_calls([{"name": "read_file_hunk",
                               "arguments": {"path": "app/big.py", "start": 1, "end": 300}}]),
            Reply.text("Read it."))
        chat.ask("Read big.py please")
        ref = chat.memory.records()[0].ref_id
        first_id = chat.session.session_id
    with SessionStore(path) as store:
        again = _session(repo, store)  # a new process: a fresh ToolMemory
        assert again.session.session_id == first_id
        fake_llm.script(
            Reply.tool_calls([{"name": "get_tool_result", "arguments": {"ref_id": ref}}]),
            Reply.text("Got it."))
        result = again.ask("Show me that full result again")
        (run,) = result.turn.tool_runs
        assert run.outcome.ok and "LINE_299 = 299" in run.outcome.content
        assert result.round.index == 1
        fresh = _session(repo, store, new=True)
        assert fresh.session.session_id != first_id


def test_a_long_tool_loop_is_kept_inside_the_context(repo: GitRepoBuilder, tmp_path: Path,
                                                     fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    repo.write(".reviewtui.toml", "[llm]\ncontext_window = 8000\nmax_output_tokens = 500\n"
                                  "max_retries = 0\n")
    repo.commit("small context")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    with SessionStore(tmp_path / "s.sqlite3") as store:
        chat = _session(repo, store)
        read = [{"name": "read_file_hunk",
                 "arguments": {"path": "app/big.py", "start": 1 + 400 * n, "end": 400 * (n + 1)}}
                for n in range(3)]
        fake_llm.script(*(Reply.tool_calls([call]) for call in read), Reply.text("done"))
        result = chat.ask("Read big.py in three parts")
        assert result.answer == "done" and result.turn.tool_rounds == 3
    # Every request fits the window as sent: messages with their tool calls, the tool
    # schemas and the reply it may get.
    counter = token_counter("test-model")
    for request in fake_llm.chat_requests:
        body = request.body
        assert (counter.count_messages(body["messages"]) + counter.count_tools(body.get("tools"))
                + body["max_tokens"]) <= 8000
    last = fake_llm.chat_requests[-1].body["messages"]
    tools = [m for m in last if m["role"] == "tool"]
    # The oldest results shrank to head/tail with the id to read them back.
    assert "get_tool_result" in tools[0]["content"] and "LINE_0 = 0" in tools[0]["content"]


def test_an_answer_stopped_at_the_token_limit_is_kept_marked_and_continued(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """finish_reason "length" while the model wrote a tool call: the half-written call is not
    run, the round is stored incomplete; continue_answer goes on in a round that says so."""
    _repo(repo)
    store = SessionStore(tmp_path / "s.sqlite3")
    chat = _session(repo, store)
    fake_llm.script(Reply.tool_calls(
        [{"name": "read_file_hunk", "arguments": '{"path": "app/au'}],
        content="login() now also checks", finish_reason="length"))
    ran: list[object] = []
    result = chat.ask("What does login check?", on_tool=ran.append)
    assert ran == [] and result.turn.truncated and not result.turn.cut_off
    assert (result.round.truncated, result.round.incomplete) == (True, True)
    assert result.answer == "login() now also checks"
    unfinished = chat.unfinished()
    assert unfinished is not None and unfinished.index == 0
    fake_llm.script(Reply.text(" user.active, in app/auth.py:2."))
    more = chat.continue_answer()
    assert (more.round.index, more.round.continues, more.round.incomplete) == (1, 0, False)
    assert chat.unfinished() is None
    with pytest.raises(UsageError, match="nothing to continue"):
        chat.continue_answer()
    stored = store.rounds(chat.session.session_id)
    assert [(r.truncated, r.continues) for r in stored] == [(True, None), (False, 0)]
    store.close()


def test_two_sessions_objects_on_one_store_never_share_a_round(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """The workbench and ``ask`` (two ChatSessions, two connections): each question is its
    own round, and each sees the other's rounds when it asks next."""
    _repo(repo)
    path = tmp_path / "s.sqlite3"
    first_store, second_store = SessionStore(path), SessionStore(path)
    first = _session(repo, first_store)
    second = _session(repo, second_store)
    assert first.session.session_id == second.session.session_id
    fake_llm.script(Reply.text("one"), Reply.text("two"))
    assert first.ask("first question?").round.index == 0
    assert second.ask("second question?").round.index == 1

    def sees_both(request: dict[str, Any]) -> Reply:
        contents = " ".join(str(m.get("content")) for m in request["messages"])
        assert "second question?" in contents and "first question?" in contents
        return Reply.text("three")

    fake_llm.script(sees_both)
    assert first.ask("third question?").round.index == 2
    assert [(r.index, r.answer) for r in first_store.rounds(first.session.session_id)] == [
        (0, "one"), (1, "two"), (2, "three")]
    first_store.close()
    second_store.close()


def test_a_key_in_the_question_reaches_the_store_nowhere(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The question's keywords were taken before redaction, so an AWS key id was stored
    (lowercased) in the round's keywords and an ``sk-`` key in pieces; the configured key,
    which the store's patterns do not know, was stored whole in the question and keywords."""
    import sqlite3

    monkeypatch.setenv("OPENAI_API_KEY", "cfg-Secret-Key-42")
    _repo(repo)
    store = SessionStore(tmp_path / "s.sqlite3")
    chat = _session(repo, store)
    fake_llm.script(Reply.text("Noted."))
    chat.ask("Did AKIAIOSFODNN7EXAMPLE, sk-proj-AbCdEfGhIjKlMnOpQrStUvWx12 or "
             "cfg-Secret-Key-42 leak in app/auth.py?")
    store.close()
    dump = "\n".join(sqlite3.connect(tmp_path / "s.sqlite3").iterdump()).lower()
    for secret in ("akiaiosfodnn7example", "abcdefghijklmnopqrstuvwx", "cfg-secret-key-42",
                   "wx12"):
        assert secret not in dump, secret
    with SessionStore(tmp_path / "s.sqlite3") as reopened:
        [stored] = reopened.rounds(chat.session.session_id)
    assert stored.user_message.count("[REDACTED]") == 3, stored.user_message
    assert "app/auth.py" in stored.files


def test_an_answer_the_store_could_not_keep_says_so(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """Another process held the store while the answer streamed: the answer was shown, then
    lost, and the error only said 'busy ... try again in a moment' -- as if nothing had been
    answered. It names the answer as not kept, and where the question stays."""
    import sqlite3

    from reviewtui.errors import StoreError

    _repo(repo)
    path = tmp_path / "s.sqlite3"
    store = SessionStore(path, busy_timeout=0.05)
    chat = _session(repo, store)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)

    def answer_while_locked(request: dict[str, Any]) -> Reply:
        holder.execute("BEGIN IMMEDIATE")  # the round is open; its end cannot be written
        return Reply.text("The answer.")

    fake_llm.script(answer_while_locked)
    shown: list[str] = []
    try:
        with pytest.raises(StoreError) as raised:
            chat.ask("Why?", on_delta=shown.append)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "".join(shown) == "The answer."
    message = str(raised.value)
    assert message.startswith(f"the answer was not kept in session {chat.session.session_id}: "
                              "the session store"), message
    assert "busy" in message and "try again" not in message
    [left] = store.rounds(chat.session.session_id)
    assert (left.user_message, left.ended_at) == ("Why?", None)
    store.close()


def test_the_summary_of_an_old_round_fits_a_small_window(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """The summary request took up to 3,000 tokens of the round's transcript whatever the
    window: with a 2,000-token model it was refused (or, on a server that truncates, cut)."""
    _repo(repo)
    repo.write(".reviewtui.toml", "[llm]\ncontext_window = 2000\nmax_output_tokens = 64\n"
                                  "max_retries = 0\n")
    repo.commit("small window")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    long_answer = "\n".join(f"app/auth.py:2 detail {n}." for n in range(600))
    with SessionStore(tmp_path / "s.sqlite3") as store:
        chat = _session(repo, store)
        for n in range(WINDOW_ROUNDS):
            fake_llm.script(Reply.text(long_answer if n == 0 else f"Answer {n}."))
            chat.ask(f"Question {n}?")
        fake_llm.script(Reply.text("last"), Reply.text("A short summary of app/auth.py:2."),
                        Reply.text("after"))
        chat.ask("Last?")  # round 1 falls out of the window...
        chat.ask("After?")  # ...and is summarised for the prompt that holds it first
        [summary] = store.rounds(chat.session.session_id)[:1]
    summaries = [r.body for r in fake_llm.chat_requests
                 if r.body["messages"][0]["content"].startswith("You summarise")]
    assert summaries, "no summary was asked for"
    counter = token_counter("test-model")
    for body in summaries:
        assert counter.count_messages(body["messages"]) + body["max_tokens"] <= 2000
    assert summary.summary is not None and summary.summary.startswith("A short summary")


def test_a_round_left_empty_is_resent_with_a_note_not_an_empty_message(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """A round whose answer had no text went into the next prompts as an assistant message
    with empty content (and its tool-call message with "" where the live request had null):
    some OpenAI-compatible servers refuse both. The next request, as the server received it
    through the SDK, carries a short bracketed note instead, and the tool-call message as it
    was first sent."""
    from reviewtui.conversation.packing import EMPTY_ANSWER_MARKER

    _repo(repo)
    store = SessionStore(tmp_path / "s.sqlite3")
    chat = _session(repo, store)
    fake_llm.script(
        Reply.tool_calls([{"name": "read_file_hunk", "id": "call_a",
                           "arguments": {"path": "app/auth.py", "start": 1, "end": 2}}]),
        Reply.text(""),  # the model read the file and said nothing
        Reply.text(""),  # ... and nothing to the next question either
        Reply.text("It checks user.active."))
    assert chat.ask("What does login check?").answer == ""
    assert chat.ask("Anything?").answer == ""
    assert chat.ask("Well?").answer == "It checks user.active."
    live = fake_llm.chat_requests[1].body["messages"]  # round 1's answer, after the tool
    sent = fake_llm.chat_requests[3].body["messages"]  # round 3: both rounds before it
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant",
                                         "user", "assistant", "user"]
    assert sent[2]["tool_calls"][0]["id"] == "call_a"
    assert sent[2]["content"] is None and sent[2]["content"] == live[2]["content"]
    assert sent[4]["content"] == EMPTY_ANSWER_MARKER
    assert sent[6]["content"] == EMPTY_ANSWER_MARKER
    assert all(m["content"] != "" for m in sent)
    # stored as they were: the note is what is sent, not what the model said
    assert [r.answer for r in store.rounds(chat.session.session_id)] == [
        "", "", "It checks user.active."]
    store.close()


def test_a_round_without_stored_messages_and_no_answer_keeps_the_turns_alternating() -> None:
    """Rebuilt from its record alone (no stored messages), an empty round was its question
    only: two user messages in a row, which strict chat templates refuse."""
    from reviewtui.conversation.packing import EMPTY_ANSWER_MARKER, round_messages
    from reviewtui.sessions.records import RoundRecord

    record = RoundRecord(index=0, user_message="why?", answer="")
    assert round_messages(record, []) == [
        {"role": "user", "content": "why?"},
        {"role": "assistant", "content": EMPTY_ANSWER_MARKER}]
    answered = RoundRecord(index=0, user_message="why?", answer="Because.")
    assert round_messages(answered, [])[-1] == {"role": "assistant", "content": "Because."}
