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
