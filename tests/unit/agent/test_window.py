"""Every request of the review agent, the chat and a fix request fits the model's context window:
messages, the assistant messages' tool calls, the tool schemas sent with them and the reply
(``max_tokens``), counted the way the project counts tokens (``TokenCounter``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewtui.agent import Reviewer, Workspace
from reviewtui.agent.fix_request import ask_fix
from reviewtui.conversation import ChatSession
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.llm import LLMClient, resolve_llm, token_counter
from reviewtui.pipeline import load_change
from reviewtui.sessions import SessionStore
from reviewtui.sessions.review_records import StoredFinding
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

BIG = "".join(f"LINE_{i} = compute_value({i}, factor={i * 7}, label='row {i}')\n"
              for i in range(3000))
WINDOW = 8000
OUTPUT = 500


def _repo(repo: GitRepoBuilder, window: int = WINDOW) -> GitRepoBuilder:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.write("app/big.py", BIG)
    repo.write(".reviewtui.toml", f"[llm]\ncontext_window = {window}\n"
                                   f"max_output_tokens = {OUTPUT}\nmax_retries = 0\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    return repo


def _workspace(repo: GitRepoBuilder) -> tuple[Workspace, LLMClient]:
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    config = resolve_llm(loaded.settings.llm)
    return Workspace(loaded, loaded.plan(use_llm=False)), LLMClient(config)


def _sent(body: dict[str, Any]) -> int:
    """A request's tokens as sent: messages with their tool calls, tool schemas, max_tokens."""
    counter = token_counter(body["model"])
    return (counter.count_messages(body["messages"]) + counter.count_tools(body.get("tools"))
            + body["max_tokens"])


def _reads(n: int) -> list[Reply]:
    return [Reply.tool_calls([{"name": "read_file_hunk", "arguments": {
        "path": "app/big.py", "start": 1 + 400 * k, "end": 400 * (k + 1)}}]) for k in range(n)]


def _all_fit(fake_llm: ScriptedOpenAIServer, window: int = WINDOW) -> list[dict[str, Any]]:
    bodies = [r.body for r in fake_llm.chat_requests]
    sizes = [_sent(body) for body in bodies]
    assert sizes and all(size <= window for size in sizes), sizes
    return bodies


VERDICT = {"verdict": "approve", "summary": "ok", "findings": []}


def test_the_review_agents_tool_rounds_fit_the_window(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    workspace, client = _workspace(repo)
    fake_llm.script(*_reads(5), Reply.json(VERDICT))
    result = Reviewer(workspace, client, token_counter(client.config.model)).review()
    assert result.verdict == "approve"
    bodies = _all_fit(fake_llm)
    assert len(bodies) == 6 and all(body.get("tools") for body in bodies[:6])
    # the oldest results shrank (head/tail, or their reference id) to make room
    tools = [m for m in bodies[-1]["messages"] if m["role"] == "tool"]
    assert "get_tool_result" in tools[0]["content"]
    assert "LINE_1999 = compute_value" in tools[-1]["content"]  # the newest is whole


def test_a_repair_request_fits_the_window_too(repo: GitRepoBuilder,
                                              fake_llm: ScriptedOpenAIServer) -> None:
    """An answer that is not JSON, after tool rounds, is asked again with everything so far:
    the tool results shrink to their ids and the long answer is cut to fit."""
    _repo(repo)
    workspace, client = _workspace(repo)
    prose = "The login change looks fine to me overall, with some remarks. " * 500
    fake_llm.script(*_reads(5), Reply.text(prose), Reply.json(VERDICT))
    result = Reviewer(workspace, client, token_counter(client.config.model)).review()
    assert result.verdict == "approve"
    repair = _all_fit(fake_llm)[-1]
    assert "could not be used" in repair["messages"][-1]["content"]
    assert "The login change looks fine" in json.dumps(repair["messages"])


def test_a_tool_loop_with_no_room_left_answers_without_tools(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    """When even the shrunk results leave no room for the tool schemas and another round, the
    tools are withdrawn and the model is told to answer now; the request still fits."""
    _repo(repo, window=3000)
    workspace, client = _workspace(repo)

    def read_while_offered(body: dict[str, Any]) -> Reply:
        if not body.get("tools"):
            return Reply.json(VERDICT)
        start = 1 + 100 * sum(1 for m in body["messages"] if m["role"] == "tool")
        return Reply.tool_calls([{"name": "read_file_hunk", "arguments": {
            "path": "app/big.py", "start": start, "end": start + 99}}])

    fake_llm.script(*[read_while_offered] * 40)
    result = Reviewer(workspace, client, token_counter(client.config.model),
                      max_tool_rounds=30).review()
    assert result.verdict == "approve"
    bodies = _all_fit(fake_llm, 3000)
    last = bodies[-1]
    assert "tools" not in last and "context window is full" in last["messages"][-1]["content"]
    assert 3 < len(bodies) < 30 and all(body.get("tools") for body in bodies[:-1])


def test_a_fix_requests_tool_rounds_fit_the_window(repo: GitRepoBuilder,
                                                   fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    workspace, client = _workspace(repo)
    finding = StoredFinding(fingerprint="f" * 16, title="login ignores inactive users",
                            body="check it", severity="P1", confidence=0.9,
                            file_path="app/auth.py", start_line=2, end_line=2,
                            state="open", model="test-model",
                            first_seen="2025-01-01T00:00:00+00:00",
                            updated_at="2025-01-01T00:00:00+00:00")
    fix = {"fix": {"start_line": 2, "end_line": 2, "replacement": "    return user.ok\n"},
           "explanation": "x"}
    fake_llm.script(*_reads(5), Reply.json(fix))
    answer = ask_fix(workspace, client, token_counter(client.config.model), finding)
    assert answer.fix is not None and answer.fix.start_line == 2
    _all_fit(fake_llm)


def test_the_review_batches_fit_with_their_index_rows_and_the_tool_schemas(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    """Many small units: each part's first request holds the index rows, the bundles and the
    tool schemas of its part within the window."""
    paths = [f"app/services/billing/handlers/module_number_{n}.py" for n in range(160)]
    for path in paths:
        repo.write(path, "def f(x):\n    return x + 1\n")
    _repo(repo, window=32000)
    for path in paths:
        repo.write(path, "def f(x):\n    return x - 1\n")
    workspace, client = _workspace(repo)
    reviewer = Reviewer(workspace, client, token_counter(client.config.model))
    prepared = reviewer.prepare(all_batches=True)
    assert len(prepared.messages) > 1
    fake_llm.script(*[Reply.json(VERDICT)] * len(prepared.messages))
    reviewer.review(prepared=prepared)
    _all_fit(fake_llm, 32000)


def test_the_chats_packed_history_leaves_room_for_the_tool_schemas(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo, window=6000)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    config = resolve_llm(loaded.settings.llm)
    with SessionStore(tmp_path / "s.sqlite3") as store:
        chat = ChatSession.open(Workspace(loaded, loaded.plan(use_llm=False)), store,
                                LLMClient(config), token_counter(config.model))
        # a round whose prompt holds a round out of the window asks for its summary first
        fake_llm.script(*[lambda body: Reply.text("Answer: " + "login checks the user. " * 180)
                          if body.get("stream") else Reply.text("Round 1 asked that.")] * 20)
        for n in range(8):
            chat.ask(f"Question {n}: what does login check?")
    _all_fit(fake_llm, 6000)
