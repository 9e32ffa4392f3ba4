"""``reviewtui ask`` under absurd settings: one line naming the key, never a traceback."""

from __future__ import annotations

import pytest

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


@pytest.mark.parametrize(("section", "key", "value"), [
    ("llm", "timeout", "inf"), ("llm", "timeout", "1e300"),
    ("context", "search_timeout", "inf"), ("context", "search_timeout", "1e300")])
def test_a_timeout_beyond_what_a_clock_holds_is_refused_naming_the_key(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
        section: str, key: str, value: str) -> None:
    # socket.settimeout / subprocess raised OverflowError ('timestamp out of range for
    # platform time_t', 'cannot convert float infinity to integer'): a traceback, exit 1
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")
    repo.write(".reviewtui.toml", f"[{section}]\n{key} = {value}\n")
    fake_llm.script(Reply.tool_calls([{"name": "search_in_project",
                                       "arguments": {"query": "charge"}}]), Reply.text("ok"))
    result = cli("ask", "--rules-plan", "Who calls charge?", repo.root)
    assert result.code == 2 and fake_llm.chat_requests == [], result.err
    last = result.err.splitlines()[-1]
    assert last.startswith("reviewtui: error: ") and f"{section}.{key}" in last, last
    assert "Traceback" not in result.err
