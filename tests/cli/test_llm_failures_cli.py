"""What ``reviewtui ask`` does when the model's server misbehaves: a stream cut off mid-answer,
a stream that ends before its first word, a server that never answers, an answer stopped at the
token limit (and ``--continue``)."""

from __future__ import annotations

import time
from typing import Any

from reviewtui.conversation.packing import CUT_OFF_MARKER, TRUNCATED_MARKER
from reviewtui.sessions import SessionStore
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")
    return repo


def test_an_answer_cut_off_mid_stream_is_marked_and_kept(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.text("It triples the charge because",
                               chunks=["It triples ", "the charge ", "because"], cut_after=2))
    result = cli("ask", "--rules-plan", "what changed?", repo.root)
    assert result.code == 2
    assert result.out == ("It triples the charge \n"
                          "[answer cut off: the server closed the stream before it finished]\n")
    last = result.err.splitlines()[-1]
    assert last.startswith("reviewtui: error: the answer was cut off")
    assert "kept in session" in last and "Traceback" not in result.err
    assert len(fake_llm.chat_requests) == 1  # words were shown: not asked again
    with SessionStore() as store:
        [session] = store.list_sessions()
        [record] = store.rounds(session.session_id)
    assert (record.answer, record.cut_off) == ("It triples the charge ", True)


def test_an_answer_cut_off_mid_stream_is_continued_with_its_marker(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """``ask --continue`` goes on with a cut-off answer as with the other unfinished kinds,
    and its prompt shows that answer ending with the cut-off marker."""
    _repo(repo)
    fake_llm.script(Reply.text("It triples the charge because",
                               chunks=["It triples ", "the charge ", "because"], cut_after=2))
    assert cli("ask", "--rules-plan", "what changed?", repo.root).code == 2

    def rest(request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        assert messages[-2:-1] == [{"role": "assistant",
                                    "content": "It triples the charge \n\n" + CUT_OFF_MARKER}]
        assert "Continue it exactly where it stopped" in messages[-1]["content"]
        return Reply.text("because amount is now multiplied by 3.")

    fake_llm.script(rest)
    going_on = cli("ask", "--rules-plan", "--continue", repo.root)
    assert going_on.code == 0, going_on.err
    assert going_on.out == "because amount is now multiplied by 3.\n"
    assert "continuing round 1" in going_on.err
    with SessionStore() as store:
        [session] = store.list_sessions()
        stopped, continued = store.rounds(session.session_id)
    assert (stopped.cut_off, continued.continues, continued.incomplete) == (True, 0, False)


def test_a_stream_that_ends_before_its_first_word_is_asked_again(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.text("lost", cut_after=0), Reply.text("It triples the charge."))
    result = cli("ask", "--rules-plan", "what changed?", repo.root)
    assert result.code == 0, result.err
    assert result.out == "It triples the charge.\n"
    assert len(fake_llm.chat_requests) == 2
    with SessionStore() as store:
        [session] = store.list_sessions()
        [record] = store.rounds(session.session_id)
    assert record.cut_off is False


def test_a_silent_server_is_given_up_on_once_within_the_time_budget(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """timeout 1 s, 1 retry: the planner tries twice (2 s in all) and the question is not sent
    to the same silent server all over again."""
    _repo(repo)
    repo.write(".reviewtui.toml", "[llm]\ntimeout = 1\nmax_retries = 1\n")
    fake_llm.script(*[Reply.delay(4.0)] * 4)
    started = time.monotonic()
    result = cli("ask", "what changed?", repo.root)
    spent = time.monotonic() - started
    assert result.code == 2
    [line] = [x for x in result.err.splitlines() if x.startswith("reviewtui: error:")]
    assert "did not answer within 1 s (2 attempts, " in line and " s in all)" in line
    assert "--rules-plan" in line
    assert len(fake_llm.chat_requests) == 2
    assert spent < 2 * 2  # the budget is 2 s: far from two full budgets plus backoff


def test_an_answer_stopped_at_the_token_limit_is_flagged_and_continued(
        repo: GitRepoBuilder, installed: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """finish_reason "length": printed, marked, stored incomplete, exit 3; ``--continue`` asks
    the model to go on (the partial answer is in its prompt) in a round that completes it."""
    _repo(repo)
    fake_llm.script(Reply.text("It triples the charge, which breaks",
                               chunks=["It triples ", "the charge, ", "which breaks"],
                               finish_reason="length"))
    first = installed("ask", "--rules-plan", "what changed?", cwd=repo.root)
    assert first.code == 3, first.err
    assert first.out == ("It triples the charge, which breaks\n[answer incomplete: the model "
                         "stopped at its output token limit; reviewtui ask --continue goes on]\n")
    last = first.err.splitlines()[-1]
    assert last.startswith("reviewtui: error: the answer stopped at the model's output token "
                           "limit") and "ask --continue" in last
    assert "Traceback" not in first.err

    def rest(request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        assert messages[-2:-1] == [{"role": "assistant",
                                    "content": "It triples the charge, which breaks\n\n"
                                               + TRUNCATED_MARKER}]
        assert "Continue it exactly where it stopped" in messages[-1]["content"]
        return Reply.text(" every caller of charge().")

    fake_llm.script(rest)
    second = installed("ask", "--rules-plan", "--continue", repo.root)
    assert second.code == 0, second.err
    assert second.out == " every caller of charge().\n"
    assert "continuing round 1" in second.err
    with SessionStore() as store:
        [session] = store.list_sessions()
        stopped, continued = store.rounds(session.session_id)
    assert (stopped.answer, stopped.truncated, stopped.incomplete) == (
        "It triples the charge, which breaks", True, True)
    assert (continued.continues, continued.incomplete) == (0, False)
    assert continued.answer == " every caller of charge()."
    again = installed("ask", "--rules-plan", "--continue", cwd=repo.root)
    assert again.code == 2 and "nothing to continue" in again.err
    assert len(fake_llm.chat_requests) == 2


def test_ask_arguments_are_checked_before_any_work(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _repo(repo)
    bare = cli("ask")
    assert bare.code == 2 and bare.err.startswith("reviewtui: error: ask needs a QUESTION")
    assert "not with --new" in cli("ask", "--continue", "--new", repo.root).err
    both = cli("ask", "--continue", "why?", repo.root)
    assert both.code == 2 and "--continue takes no QUESTION" in both.err
