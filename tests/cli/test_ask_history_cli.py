"""The history a later ``reviewtui ask`` sends: each earlier tool call with its own result."""

from __future__ import annotations

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


def test_tool_calls_the_server_gave_one_id_keep_their_own_results(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # A server that numbers parallel calls with one id: the next round's history paired both
    # calls with the first result -- the search twice, the file read lost
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.write("app/views.py", "from app.service import charge\n\n\ndef pay():\n"
                               "    return charge(10)\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")
    fake_llm.script(
        Reply.tool_calls([
            {"id": "same", "name": "search_in_project", "arguments": {"query": "charge("}},
            {"id": "same", "name": "read_file_hunk",
             "arguments": {"path": "app/views.py", "start": 4, "end": 5}}]),
        Reply.text("pay() calls it."), Reply.text("ok"))
    assert cli("ask", "--rules-plan", "Who calls charge?", repo.root).code == 0
    first = fake_llm.chat_requests[1].body["messages"]
    assert cli("ask", "--rules-plan", "And?", repo.root).code == 0
    history = fake_llm.chat_requests[2].body["messages"]
    for messages in (first, history):
        [calls] = [m["tool_calls"] for m in messages if m.get("tool_calls")]
        results = [m for m in messages if m["role"] == "tool"]
        assert len({c["id"] for c in calls}) == 2  # told apart
        assert [r["tool_call_id"] for r in results] == [c["id"] for c in calls]
        assert "result" in results[0]["content"] and "def pay" in results[1]["content"]


def test_the_chat_names_the_skipped_units_so_it_can_answer_about_them(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # "what changed in the lockfile?": skipped units were in neither the index nor the diffs
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.write("poetry.lock", "[[package]]\nname = \"requests\"\nversion = \"2.31.0\"\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")
    repo.write("poetry.lock", "[[package]]\nname = \"requests\"\nversion = \"2.32.3\"\n")
    units = {u["file_path"]: u for u in cli("index", "--json", repo.root).json()["units"]}
    lock = units["poetry.lock"]["unit_id"]
    fake_llm.script(Reply.text("requests went to 2.32.3."))
    assert cli("ask", "--rules-plan", "What changed in the lockfile?", repo.root).code == 0
    system = fake_llm.chat_requests[0].body["messages"][0]["content"]
    index = system.split("## Review index", 1)[1].split("## Diffs", 1)[0]
    assert f"| {lock} |" not in index  # not for review...
    assert "Skipped, not for review (1; get_unit reads one)" in index
    assert f"{lock} poetry.lock" in index  # ...but named, so get_unit can read it
