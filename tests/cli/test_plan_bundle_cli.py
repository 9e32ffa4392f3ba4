"""``reviewtui plan`` and ``reviewtui bundle`` as a user runs them."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from reviewtui.llm.tokens import counter_for_encoding
from reviewtui.models import BundleSet
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

SERVICE = "def charge(amount):\n    return amount * 2\n"


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", SERVICE)
    repo.write("app/views.py", "from app.service import charge\n\n\ndef pay():\n"
                               "    return charge(10)\n")
    repo.write("README.md", "# shop\n")
    repo.commit("base")
    repo.write("app/service.py", SERVICE.replace("amount * 2", "amount * 3"))
    repo.write("README.md", "# shop\n\n<!-- a comment -->\n")
    return repo


def test_plan_without_a_model_says_so_and_uses_the_rules(repo: GitRepoBuilder,
                                                         cli: CliRunner) -> None:
    _repo(repo)
    result = cli("plan", repo.root)
    assert result.code == 0
    assert "REVIEWTUI_MODEL" in result.err and "the rules decide" in result.err
    assert "app/service.py" in result.out and "units kept for review" in result.out
    data = cli("plan", "--json", repo.root).json()
    assert data["planner"]["status"] == "not_configured"
    assert {item["provenance"]["level"] for item in data["plan"]} == {"rule"}
    assert all("final_context_level" in item for item in data["plan"])


def test_plan_with_the_model_through_the_installed_command(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer, installed: CliRunner) -> None:
    _repo(repo)

    def answer(request: dict[str, Any]) -> Reply:
        ids = re.findall(r'"unit_id":"([^"]+)"', request["messages"][1]["content"])
        return Reply.json({"plan": [
            {"unit_id": uid, "llm_context_level": "file_context",
             "extra_requests": [{"type": "callers", "details": "charge"}],
             "skip_review": False, "reason": "public function changed"} for uid in ids]})

    fake_llm.script(answer)
    result = installed("plan", "--json", cwd=repo.root)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["planner"]["status"] == "ok" and data["planner"]["model"] == "test-model"
    service = next(i for i in data["plan"] if i["file_path"] == "app/service.py")
    assert service["llm_context_level"] == "file_context"
    assert service["extra_requests"][0] == {"type": "callers", "symbol": "charge"}
    assert "planner: ok (test-model" in result.err
    assert "test-key" not in result.err + result.out


def test_no_llm_flag_never_calls_the_model(repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer,
                                           cli: CliRunner) -> None:
    _repo(repo)
    result = cli("plan", "--no-llm", repo.root)
    assert result.code == 0 and fake_llm.chat_requests == []
    assert "turned off" in result.err


def test_bundle_json_markdown_and_table(repo: GitRepoBuilder, cli: CliRunner,
                                        tmp_path: Any) -> None:
    _repo(repo)
    unit = next(u for u in cli("index", "--json", repo.root).json()["units"]
                if u["file_path"] == "app/service.py")["unit_id"]
    overrides = tmp_path / "overrides.json"
    overrides.write_text(json.dumps({unit[:8]: {
        "level": "full_file", "add_requests": [{"type": "callers", "symbol": "charge"}]}}))
    result = cli("bundle", "--json", "--no-llm", "--overrides", overrides, "--unit", unit[:8],
                 repo.root)
    assert result.code == 0, result.err
    built = BundleSet.model_validate_json(result.out)
    (bundle,) = built.bundles
    assert [u.unit_id for u in built.allocation.included] == [unit]
    assert bundle.final_context_level.value == "full_file"
    assert bundle.full_file is not None and "amount * 3" in bundle.full_file
    assert [c.file_path for c in bundle.callers] == ["app/views.py"]
    assert bundle.budget.counter == "cl100k_base"  # tiktoken, offline
    markdown = cli("bundle", "--markdown", "--no-llm", "--overrides", overrides, repo.root).out
    assert "### Diff" in markdown and "### Callers" in markdown and "```json" in markdown
    table = cli("bundle", "--no-llm", repo.root).out
    assert "TOKENS" in table and "allocation: " in table
    lines = cli("bundle", "--jsonl", "--no-llm", "--overrides", overrides, repo.root).out
    records = [json.loads(line) for line in lines.splitlines()]
    assert {r["record"] for r in records[:-1]} == {"bundle"}
    assert records[-1]["record"] == "allocation"
    assert [r["bundle"]["unit_id"] for r in records[:-1]] == [
        u["unit_id"] for u in records[-1]["allocation"]["included"]]


def test_bundle_budget_and_bad_input(repo: GitRepoBuilder, cli: CliRunner,
                                     tmp_path: Any) -> None:
    _repo(repo)
    small = cli("bundle", "--json", "--no-llm", "--budget", "200", repo.root)
    assert small.code == 0
    assert all(b["budget"]["used"] <= 200 for b in json.loads(small.out)["bundles"])
    # the options take the bounds of the config keys they stand for
    for option, value, least in (("--budget", "199", "200"), ("--review-budget", "999", "1,000")):
        too_small = cli("bundle", "--no-llm", option, value, repo.root)
        assert too_small.code == 2 and too_small.out == ""
        assert f"{option} must be at least {least} tokens" in too_small.err
        assert len(too_small.err.strip().splitlines()) == 1 and "Traceback" not in too_small.err
    smallest = cli("bundle", "--no-llm", "--budget", "200", "--review-budget", "1000", repo.root)
    assert smallest.code == 0, smallest.err
    unknown = cli("bundle", "--no-llm", "--unit", "u_nope", repo.root)
    assert unknown.code == 2 and "no unit matching 'u_nope'" in unknown.err
    broken = tmp_path / "broken.json"
    broken.write_text('{"u_1": {"level": "huge"}}')
    result = cli("plan", "--overrides", broken, repo.root)
    assert result.code == 2 and "broken.json: units.u_1.level" in result.err
    assert "Traceback" not in result.err and len(result.err.strip().splitlines()) == 1


def test_bundle_markdown_sends_what_the_allocation_counts(repo: GitRepoBuilder,
                                                          cli: CliRunner) -> None:
    """What ``bundle --markdown`` prints for each unit (what review and get_bundle send) takes
    the tokens its bundle's account and the allocation report, within the unit budget."""
    _repo(repo)
    for n in range(6):
        repo.write(f"app/m{n}.py", "".join(f"def f{k}(x):\n    return x + {k}\n"
                                           for k in range(40)))
    repo.commit("more")
    for n in range(6):
        repo.write(f"app/m{n}.py", "".join(f"def f{k}(x):\n    return x - {k}\n"
                                           for k in range(40)))
    args = ("bundle", "--no-llm", "--budget", "400", "--review-budget", "2000", repo.root)
    data = cli(*args[:2], "--json", *args[2:]).json()
    markdown = cli(*args[:2], "--markdown", *args[2:]).out
    parts = markdown.split("\n---\n\n")[1:-1]  # the title, the bundles, the allocation
    counter = counter_for_encoding(data["allocation"]["counter"])
    sent = [counter.count(part) for part in parts]
    assert len(sent) == len(data["bundles"]) > 1 and data["allocation"]["deferred"]
    assert sent == [b["budget"]["used"] for b in data["bundles"]]
    assert max(sent) <= 400 and sum(sent) == data["allocation"]["used"] <= 2000


SECRET = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"
LOCAL_KEY = "zq-local-KEY-998877"  # the configured key: no known shape


def test_no_secret_and_not_the_configured_key_is_written_in_a_bundle(
        repo: GitRepoBuilder, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", LOCAL_KEY)
    repo.write("app.py", "def connect():\n    return 1\n")
    repo.commit("base")
    repo.write("app.py", f'def connect():\n    key = "{SECRET}"\n    token = "{LOCAL_KEY}"\n'
                         "    return 1\n")
    for fmt in ("--markdown", "--json", "--jsonl"):
        result = cli("bundle", "--no-llm", fmt, repo.root)
        assert result.code == 0, result.err
        assert SECRET not in result.out and LOCAL_KEY not in result.out, fmt
        assert 'key = \\"[REDACTED]\\"' in result.out or 'key = "[REDACTED]"' in result.out
        assert 'token = \\"[REDACTED]\\"' in result.out or 'token = "[REDACTED]"' in result.out


def test_deferred_units_named_with_a_pipe_keep_their_markdown_row(repo: GitRepoBuilder,
                                                                   cli: CliRunner) -> None:
    """A path holding '|' ended its cell in the deferred units' Markdown table: the row had
    a column too many, the location cut in two."""
    repo.write("README.md", "# pipes\n")
    repo.commit("base")
    for i in range(12):
        repo.write(f"pi|pe{i}.py", f"def f{i}():\n    return {i}\n")
    result = cli("bundle", "--no-llm", "--markdown", "--review-budget", "1000", repo.root)
    assert result.code == 0, result.err
    rows = [line for line in result.out.splitlines() if line.startswith("| u_")]
    assert rows
    for row in rows:
        cells = re.split(r"(?<!\\)\|", row)[1:-1]
        assert len(cells) == 6 and re.fullmatch(r" pi\\\|pe\d+\.py:L1-2 ", cells[1]), row


def test_overrides_naming_no_unit_or_several_say_so(repo: GitRepoBuilder, cli: CliRunner,
                                                    tmp_path: Any) -> None:
    """An overrides key that names no unit of the change, a prefix of several, or a unit
    another key already names was ignored without a word: the person believed the decision
    applied. Each now gets a line on stderr, and the plan still runs."""
    _repo(repo)
    units = [u["unit_id"] for u in cli("index", "--json", repo.root).json()["units"]]
    service = units[0]
    overrides = tmp_path / "overrides.json"
    overrides.write_text(json.dumps({
        "u_nope": {"level": "full_file"},
        "u_": {"level": "full_file"},
        service[:8]: {"level": "diff_only"},
        service: {"level": "full_file"}}))
    for command in ("plan", "bundle"):
        result = cli(command, "--no-llm", "--overrides", overrides, repo.root)
        assert result.code == 0, result.err
        assert "overrides: 'u_nope' names no unit of this change; ignored" in result.err
        assert f"overrides: 'u_' matches {len(units)} units; ignored" in result.err
        assert (f"overrides: '{service[:8]}' and '{service}' both name {service}; "
                f"the last, '{service}', is used") in result.err
        assert "Traceback" not in result.err
    item = next(i for i in cli("plan", "--json", "--no-llm", "--overrides", overrides,
                               repo.root).json()["plan"] if i["unit_id"] == service)
    assert item["final_context_level"] == "full_file"


def test_an_overrides_file_naming_a_unit_twice_is_refused(repo: GitRepoBuilder, cli: CliRunner,
                                                          tmp_path: Any) -> None:
    """JSON keeps the last of two equal keys: the level given first was lost without a
    word. The file is refused, naming the key, as any other broken overrides file."""
    _repo(repo)
    twice = tmp_path / "twice.json"
    twice.write_text('{"u_1": {"level": "full_file"}, "u_1": {"skip": true}}')
    result = cli("plan", "--no-llm", "--overrides", twice, repo.root)
    assert result.code == 2 and result.out == ""
    assert "twice.json: 'u_1' is given twice" in result.err
    assert "Traceback" not in result.err and len(result.err.strip().splitlines()) == 1
