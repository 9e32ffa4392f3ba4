"""``reviewtui ask`` and the model's context window: a request that cannot fit is never sent."""

from __future__ import annotations

from reviewtui.llm import token_counter
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


def _sixty_files(repo: GitRepoBuilder) -> None:
    for n in range(60):
        repo.write(f"pkg/m{n:02d}.py", "".join(f"def f{j}(x):\n    return x + {j}\n\n"
                                               for j in range(20)))
    repo.commit("base")
    for n in range(60):
        repo.write(f"pkg/m{n:02d}.py", "".join(f"def f{j}(x):\n    return x * 2 + {j}\n\n"
                                               for j in range(20)))


def test_diffs_left_out_of_the_review_context_are_named_not_cut_mid_fence(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # 60 changed files: the review context was cut at 40% of the window in the middle of the
    # 12th diff (an open code fence), and neither the model nor the person heard that the
    # other 48 diffs were missing -- the model answered as if the change were 12 files
    _sixty_files(repo)
    fake_llm.script(Reply.text("ok"))
    result = cli("ask", "--rules-plan", "Which files change?", repo.root)
    assert result.code == 0, result.err
    system = fake_llm.chat_requests[0].body["messages"][0]["content"]
    diffs = system.split("## Diffs", 1)[1]
    sent = diffs.count("```diff")
    assert 0 < sent < 60 and diffs.count("```") == 2 * sent  # every fence closed
    assert f"The diffs of {60 - sent} of the 60 kept units are left out" in system
    note = diffs.split("left out", 1)[1]
    assert f"(pkg/m{sent:02d}.py:L2-59)" in note  # named, for get_unit to read
    assert f"and {60 - sent - 40} more (the review index lists them)" in note
    assert (f"review context: the diffs of {sent} of 60 kept units (the rest left out to "
            "fit [llm] context_window") in result.err


def test_the_review_context_leaves_room_for_a_long_reply(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # A 4,000-token model answering in up to 1,500: the review context took 40% of the window
    # whatever the reply and the tool schemas left, so a large change could not be asked about
    _sixty_files(repo)
    repo.write(".reviewtui.toml", "[llm]\ncontext_window = 4000\nmax_output_tokens = 1500\n")
    fake_llm.script(Reply.text("ok"))
    result = cli("ask", "--rules-plan", "Which files change?", repo.root)
    assert (result.code, result.out) == (0, "ok\n"), result.err
    assert "review context: the diffs of" in result.err
    body = fake_llm.chat_requests[0].body
    counter = token_counter("test-model")
    assert (counter.count_messages(body["messages"]) + counter.count_tools(body["tools"])
            + body["max_tokens"]) <= 4000
