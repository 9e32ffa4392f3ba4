"""What ``reviewtui ask`` does when the model's server misbehaves: a stream cut off mid-answer,
a stream that ends before its first word, a server that never answers."""

from __future__ import annotations

import time

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
