"""What ``reviewtui ask`` prints on stdout: the text the model streamed, lines kept apart."""

from __future__ import annotations

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

SEARCH = [{"name": "search_in_project", "arguments": {"query": "charge"}}]


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")
    return repo


def test_text_before_a_tool_call_is_not_glued_to_the_answer(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # 'Let me check the callers.pay() calls it.': what the model said before calling a tool
    # ran straight into the answer
    _repo(repo)
    fake_llm.script(Reply.tool_calls(SEARCH, content="Let me check the callers."),
                    Reply.text("pay() calls it."))
    result = cli("ask", "--rules-plan", "Who calls charge?", repo.root)
    assert (result.code, result.out) == (0, "Let me check the callers.\npay() calls it.\n"), (
        result.err)


def test_an_error_after_text_was_printed_ends_its_line(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # the shell prompt (or the error, on a terminal) went on on the answer's last line
    _repo(repo)
    fake_llm.script(Reply.tool_calls(SEARCH, content="Let me check the callers."),
                    Reply.error(400, "bad request"))
    result = cli("ask", "--rules-plan", "Who calls charge?", repo.root)
    assert (result.code, result.out) == (2, "Let me check the callers.\n"), result.err
    assert result.err.splitlines()[-1].startswith("reviewtui: error: ")


def test_the_bookkeeping_on_stderr_shows_a_path_s_controls(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # stderr is the person's: a changed file named with ESC [2J, read by a tool and inherited
    # by the next round, cleared the terminal from the 'tool ...' and 'inherited: ...' lines
    odd = "a\x1b[2Jb.py"
    repo.write(odd, "def f():\n    return 1\n")
    repo.commit("base")
    repo.write(odd, "def f():\n    return 2\n")
    fake_llm.script(Reply.tool_calls([{"name": "read_file_hunk",
                                       "arguments": {"path": odd, "start": 1, "end": 2}}]),
                    Reply.text("It returns 2 now."), Reply.text("Still 2."))
    first = cli("ask", "--rules-plan", "What does f return?", repo.root)
    second = cli("ask", "--rules-plan", "And what does f return now?", repo.root)
    assert (first.code, second.code) == (0, 0), first.err + second.err
    assert "tool read_file_hunk" in first.err and "inherited: a\u241b[2Jb.py" in second.err
    assert "\x1b" not in first.err + second.err
