"""``reviewtui review`` over a change bigger than its review budget: what it reviews, what it
says it did not review (Markdown, JSON, SARIF), and later batches when asked."""

from __future__ import annotations

import json
from typing import Any

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.schemas import sarif_errors

FILES = 4


def _module(i: int, version: int) -> str:
    body = "".join(f"    total_{k} = amount * {k + version} + offset_{i}\n" for k in range(40))
    return f"offset_{i} = {i}\n\n\ndef compute_{i}(amount):\n{body}    return total_0\n"


def _repo(repo: GitRepoBuilder, config: str) -> GitRepoBuilder:
    repo.write(".reviewtui.toml", "[context]\nreview_budget = 1000\n" + config)
    for i in range(FILES):
        repo.write(f"app/m{i}.py", _module(i, 1))
    repo.commit("base")
    for i in range(FILES):
        repo.write(f"app/m{i}.py", _module(i, 2))
    return repo


def _reviewed(request: dict[str, Any]) -> set[str]:
    text = request["messages"][1]["content"]
    return {f"app/m{i}.py" for i in range(FILES) if "## Unit " in text
            and f"app/m{i}.py:L" in text.split("## Context bundles", 1)[1]}


APPROVE = Reply.json({"verdict": "approve", "summary": "Fine.", "findings": []})


def test_units_over_the_budget_are_named_in_every_format(repo: GitRepoBuilder, cli: CliRunner,
                                                         fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo, "")
    fake_llm.script(APPROVE, APPROVE, APPROVE)
    result = cli("review", "--rules-plan", repo.root)
    assert result.code == 0, result.err
    reviewed = _reviewed(fake_llm.chat_requests[0].body)
    assert 0 < len(reviewed) < FILES
    assert "not reviewed" in result.err and "--all-batches" in result.err
    section = result.out.split("## Not reviewed", 1)[1]
    missing = {f"app/m{i}.py" for i in range(FILES)} - reviewed
    assert all(f"{path}:L" in section for path in missing)
    assert "over the review budget: needs" in section

    data = json.loads(cli("review", "--rules-plan", "--format", "json", repo.root).out)
    assert {u["file_path"] for u in data["not_reviewed"]} == missing
    assert all(u["tokens"] > 0 and u["reason"] for u in data["not_reviewed"])
    assert data["units_reviewed"] == len(reviewed)

    sarif = json.loads(cli("review", "--rules-plan", "--format", "sarif", repo.root).out)

    assert sarif_errors(sarif) == []  # the OASIS SARIF 2.1.0 schema
    run = sarif["runs"][0]
    assert {u["location"].split(":L")[0] for u in run["properties"]["notReviewed"]} == missing
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["level"] == "warning" and "not reviewed" in notes[0]["message"]["text"]
    assert {n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for n in notes[1:]} == missing


def test_all_batches_reviews_every_unit(repo: GitRepoBuilder, cli: CliRunner,
                                        fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo, "")
    fake_llm.script(APPROVE, APPROVE, APPROVE, APPROVE)
    result = cli("review", "--rules-plan", "--all-batches", "--format", "json", repo.root)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["not_reviewed"] == [] and data["units_reviewed"] == FILES
    seen = set().union(*(_reviewed(r.body) for r in fake_llm.chat_requests))
    assert seen == {f"app/m{i}.py" for i in range(FILES)}


def test_review_batches_setting_and_a_bad_value(repo: GitRepoBuilder, cli: CliRunner,
                                                fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo, "review_batches = 2\n")
    fake_llm.script(APPROVE, APPROVE)
    one = json.loads(cli("review", "--rules-plan", "--format", "json", repo.root).out)
    assert 0 < len(one["not_reviewed"]) < FILES - 1  # two budgets hold more than one
    repo.write(".reviewtui.toml", "[context]\nreview_batches = 0\n")
    bad = cli("review", "--rules-plan", repo.root)
    assert bad.code == 2 and "review_batches" in bad.err and "Traceback" not in bad.err
