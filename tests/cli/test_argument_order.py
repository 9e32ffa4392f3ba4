"""Options may come anywhere on every command line, also between two positionals."""

from __future__ import annotations

import json

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

SERVICE = "def charge(amount):\n    return amount * 2\n"


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", SERVICE)
    repo.commit("base")
    repo.write("app/service.py", SERVICE.replace("amount * 2", "amount * 3"))
    return repo


def test_workbench_command_line_takes_options_after_the_path(repo: GitRepoBuilder,
                                                             cli: CliRunner) -> None:
    _repo(repo)
    result = cli(repo.root, "--no-cache", "--working")  # piped: the index table
    assert result.code == 0, result.err
    assert "app/service.py:L2" in result.out


def test_watch_is_a_workbench_option_piped_output_ignores(repo: GitRepoBuilder,
                                                         cli: CliRunner,
                                                         installed: CliRunner) -> None:
    _repo(repo)
    result = cli(repo.root, "--watch")  # piped: the index table, --watch has nothing to do
    assert result.code == 0, result.err
    assert "app/service.py:L2" in result.out
    refused = installed("index", "--watch", repo.root)  # not an index option
    assert refused.code == 2 and "unrecognized arguments: --watch" in refused.err


def test_export_options_after_the_path(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _repo(repo)
    result = cli("export", repo.root, "--format", "json", "--no-cache")
    assert result.code == 0, result.err
    assert result.json()["summary"]["units"] == 1


def test_index_options_after_the_path(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _repo(repo)
    result = cli("index", repo.root, "--json", "--no-cache")
    assert result.code == 0, result.err
    assert [u["file_path"] for u in result.json()["units"]] == ["app/service.py"]


def test_plan_options_after_the_path(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _repo(repo)
    result = cli("plan", repo.root, "--no-llm", "--json")
    assert result.code == 0, result.err
    assert result.json()["planner"]["status"] == "skipped"


def test_bundle_options_around_the_path(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _repo(repo)
    result = cli("bundle", "--no-llm", repo.root, "--json", "--budget", "500")
    assert result.code == 0, result.err
    [bundle] = json.loads(result.out)["bundles"]
    assert bundle["budget"]["limit"] == 500


def test_review_options_after_the_path(repo: GitRepoBuilder, cli: CliRunner,
                                       fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.json({"verdict": "approve", "summary": "Fine.", "findings": []}))
    result = cli("review", repo.root, "--rules-plan", "--format", "json")
    assert result.code == 0, result.err
    assert result.json()["verdict"] == "approve"


def test_ask_options_between_the_question_and_the_path(repo: GitRepoBuilder, cli: CliRunner,
                                                       fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.text("It triples the charge."))
    result = cli("ask", "what changed?", "--new", repo.root, "--rules-plan")
    assert result.code == 0, result.err
    assert result.out == "It triples the charge.\n"


def test_sessions_options_after_the_path(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _repo(repo)
    result = cli("sessions", repo.root, "--json")
    assert result.code == 0, result.err
    assert result.json() == []


def test_rules_check_options_before_the_file(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _repo(repo)
    pack = repo.write("team.toml", "[patterns.test_code]\nenabled = false\n")
    result = cli("rules", "check", "--repo", repo.root, pack)
    assert result.code == 0, result.err
    assert result.out.startswith(f"ok: {pack}")


def test_rules_explain_options_between_the_unit_and_the_path(repo: GitRepoBuilder,
                                                             cli: CliRunner) -> None:
    _repo(repo)
    unit = cli("index", repo.root, "--json").json()["units"][0]["unit_id"]
    result = cli("rules", "explain", unit, "--no-cache", repo.root, "--working")
    assert result.code == 0, result.err
    assert unit in result.out and "confidence" in result.out


def test_an_unknown_rules_action_says_which_exist(installed: CliRunner) -> None:
    result = installed("rules", "bogus")
    assert result.code == 2
    assert "invalid choice: 'bogus'" in result.err.splitlines()[-1]
    assert "Traceback" not in result.err
