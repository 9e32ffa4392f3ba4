"""Summaries of old rounds in ``reviewtui ask``: asked for when a round's prompt needs them.

Before, the round that pushed an old round out of the last six asked the model for its summary
after the answer was printed: the answer looked complete, and ``ask`` did not return for as
long as the summary request took (2 s here, a slow model's whole reply in life). Now the summary
is asked for by the next ``ask``, whose prompt is the first to need it, said on stderr; it is
asked for once, and a summary request that fails loses nothing.
"""

from __future__ import annotations

import time
from typing import Any

from reviewtui.sessions import SessionStore
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

SUMMARY = "Round one: the charge now triples the amount (app/service.py:2)."


def _repo(repo: GitRepoBuilder) -> None:
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")


def _replies(summary: Reply) -> Any:
    def reply(request: dict[str, Any]) -> Reply:
        if not request.get("stream"):  # the summary request is the one that does not stream
            return summary
        asked = str(request["messages"][-1]["content"]).rsplit("Q", 1)[-1]
        return Reply.text(f"Answer to Q{asked}")
    return reply


def _summary_requests(fake_llm: ScriptedOpenAIServer) -> list[int]:
    """The positions of the summary requests among the chat requests."""
    return [n for n, r in enumerate(fake_llm.chat_requests) if not r.body.get("stream")]


def test_the_answer_returns_without_waiting_for_a_summary(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(*[_replies(Reply.delay(2.0, Reply.text(SUMMARY)))] * 20)
    for n in range(1, 7):
        assert cli("ask", "--rules-plan", f"Q{n}", repo.root).code == 0
    started = time.monotonic()
    seventh = cli("ask", "--rules-plan", "Q7", repo.root)
    spent = time.monotonic() - started
    assert (seventh.code, seventh.out) == (0, "Answer to Q7\n"), seventh.err
    # round 1 left the window with this round: its summary is not asked for now...
    assert _summary_requests(fake_llm) == [], spent
    eighth = cli("ask", "--rules-plan", "Q8", repo.root)
    assert (eighth.code, eighth.out) == (0, "Answer to Q8\n"), eighth.err
    # ...but by the next round, whose prompt needs it, before its question, and said so
    assert "summarising round 1 for the prompt" in eighth.err
    answer = len(fake_llm.chat_requests) - 1
    assert _summary_requests(fake_llm) == [answer - 1]
    system = fake_llm.chat_requests[answer].body["messages"][0]["content"]
    assert f"- Round 1: {SUMMARY}" in system
    with SessionStore() as store:
        [session] = store.list_sessions(limit=0)
        rounds = store.rounds(session.session_id)
    assert [r.summary is not None for r in rounds] == [True] + [False] * 7
    # asked for once: the next round asks only for the summary of the round it pushes out
    assert cli("ask", "--rules-plan", "Q9", repo.root).code == 0
    assert len(_summary_requests(fake_llm)) == 2


def test_a_failing_summary_request_loses_neither_the_round_nor_the_summary(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(*[_replies(Reply.error(400, "summaries are not allowed"))] * 20)
    for n in range(1, 9):
        result = cli("ask", "--rules-plan", f"Q{n}", repo.root)
        assert (result.code, result.out) == (0, f"Answer to Q{n}\n"), result.err
    with SessionStore() as store:
        [session] = store.list_sessions(limit=0)
        rounds = store.rounds(session.session_id)
    assert [r.answer for r in rounds] == [f"Answer to Q{n}" for n in range(1, 9)]
    # the summary by rules stands in, kept: it is not asked for again with every question
    assert rounds[0].summary is not None and rounds[0].summary.startswith("Q: Q1")
    assert len(_summary_requests(fake_llm)) == sum(r.summary is not None for r in rounds)
