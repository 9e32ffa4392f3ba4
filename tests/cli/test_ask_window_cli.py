"""``reviewtui ask`` and the model's context window: a request that cannot fit is never sent."""

from __future__ import annotations

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.write(".reviewtui.toml", "[llm]\ncontext_window = 2000\nmax_output_tokens = 64\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")
    return repo


def test_a_question_too_long_for_the_window_is_refused_before_anything_is_sent(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # A pasted log longer than the model's window went out whole ('packed 3410/1029' on
    # stderr, exit 0): a server refuses it, or (Ollama) silently drops the prompt's start --
    # the review context -- and the question stayed in the session as a round with no answer.
    _repo(repo)
    fake_llm.script(Reply.text("ok"))
    result = cli("ask", "--rules-plan", "why " * 3000, repo.root)
    assert result.code == 2 and fake_llm.chat_requests == []
    last = result.err.splitlines()[-1]
    assert last.startswith("reviewtui: error: the question does not fit the model's context "
                           "window"), last
    assert "[llm] context_window = 2,000" in last and "shorten the question" in last
    # no unanswered round left behind
    assert [s["rounds"] for s in cli("sessions", "--json", repo.root).json()] == [0]
    # the same session goes on with a question that fits
    fine = cli("ask", "--rules-plan", "why?", repo.root)
    assert (fine.code, fine.out) == (0, "ok\n"), fine.err


def test_a_reply_limit_that_leaves_no_room_in_the_window_is_named(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # max_output_tokens above the window left a negative budget ('packed 395/-8907'), and the
    # request went out anyway
    _repo(repo)
    repo.write(".reviewtui.toml", "[llm]\nmax_output_tokens = 40000\n")
    result = cli("ask", "--rules-plan", "why?", repo.root)
    assert result.code == 2 and fake_llm.chat_requests == []
    last = result.err.splitlines()[-1]
    assert last.startswith("reviewtui: error: the review context does not fit the model's "
                           "context window"), last
    assert "lower [llm] max_output_tokens" in last
