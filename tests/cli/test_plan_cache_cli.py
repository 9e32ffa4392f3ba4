"""The planner's plan is kept: ``plan``, ``bundle``, ``review`` and ``ask`` run again on the same
change ask the model nothing more, and anything the plan depends on asks it again."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from reviewtui.plan import prompt
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import RecordedRequest, Reply, ScriptedOpenAIServer

SERVICE = "def charge(amount):\n    return amount * 2\n"


def _repo(repo: GitRepoBuilder, config: str = "") -> GitRepoBuilder:
    repo.write("app/service.py", SERVICE)
    repo.write("README.md", "# shop\n")
    if config:
        repo.write(".reviewtui.toml", config)
    repo.commit("base")
    repo.write("app/service.py", SERVICE.replace("amount * 2", "amount * 3"))
    repo.write("README.md", "# shop\n\n<!-- a comment -->\n")
    return repo


def _answer(level: str) -> Any:
    def answer(request: dict[str, Any]) -> Reply:
        ids = re.findall(r'"unit_id":"([^"]+)"', request["messages"][1]["content"])
        return Reply.json({"plan": [
            {"unit_id": uid, "llm_context_level": level, "extra_requests": [],
             "skip_review": False, "reason": f"{level} please"} for uid in ids]})
    return answer


def _planner_requests(server: ScriptedOpenAIServer) -> list[RecordedRequest]:
    return [r for r in server.chat_requests
            if r.body["messages"][0]["content"] == prompt.SYSTEM_PROMPT]


def _levels(data: dict[str, Any]) -> set[str]:
    return {item["llm_context_level"] for item in data["plan"]}


def _cache_file(repo: GitRepoBuilder) -> Path:
    return repo.root / ".git" / "reviewtui" / "plan-cache.sqlite3"


def test_a_second_run_reads_the_kept_plan_and_says_so(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer, cli: CliRunner) -> None:
    _repo(repo)
    fake_llm.script(_answer("full_file"))
    first = cli("plan", "--json", repo.root)
    assert first.code == 0, first.err
    assert len(_planner_requests(fake_llm)) == 1
    assert first.json()["planner"]["cached_at"] is None
    assert "kept plan" not in first.err

    second = cli("plan", "--json", repo.root)
    assert second.code == 0, second.err
    assert len(_planner_requests(fake_llm)) == 1  # no request: the kept plan
    data = second.json()
    assert _levels(data) == {"full_file"}
    assert data["planner"]["status"] == "ok" and data["planner"]["cached_at"] is not None
    assert data["planner"]["prompt_tokens"] == 0  # this run spent none
    assert re.search(r"planner: ok \(test-model, 1 batch, kept plan made \d+ s ago, "
                     r"no request sent; --replan asks the model again\)", second.err)
    assert {i["unit_id"]: i["final_context_level"] for i in data["plan"]} == {
        i["unit_id"]: i["final_context_level"] for i in first.json()["plan"]}
    # bundle plans the same way: no request either
    assert cli("bundle", "--json", repo.root).code == 0
    assert len(_planner_requests(fake_llm)) == 1


def test_review_after_plan_asks_only_for_the_review(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer, cli: CliRunner) -> None:
    _repo(repo)
    fake_llm.script(_answer("function"))
    assert cli("plan", repo.root).code == 0
    fake_llm.script(Reply.json({"verdict": "approve", "summary": "Fine.", "findings": []}))
    result = cli("review", repo.root)
    assert result.code == 0, result.err
    assert len(_planner_requests(fake_llm)) == 1 and len(fake_llm.chat_requests) == 2
    assert "kept plan made" in result.err


@pytest.mark.parametrize("what", ["model", "prompt version", "prompt text", "description"])
def test_what_the_plan_depends_on_asks_again(
        what: str, repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer, cli: CliRunner,
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _repo(repo)
    fake_llm.script(_answer("function"), _answer("full_file"))
    assert cli("plan", repo.root).code == 0
    extra: list[str | Path] = []
    if what == "model":
        monkeypatch.setenv("REVIEWTUI_MODEL", "other-model")
    elif what == "prompt version":
        monkeypatch.setattr(prompt, "PROMPT_VERSION", prompt.PROMPT_VERSION + 1)
    elif what == "prompt text":
        monkeypatch.setattr(prompt, "SYSTEM_PROMPT", prompt.SYSTEM_PROMPT + " Be brief.")
    else:
        (tmp_path / "why.txt").write_text("Charge three times the amount, as agreed.\n")
        extra = ["--description", tmp_path / "why.txt"]
    result = cli("plan", "--json", *extra, repo.root)
    assert result.code == 0, result.err
    assert len(fake_llm.chat_requests) == 2
    assert _levels(result.json()) == {"full_file"} and "kept plan" not in result.err
    again = cli("plan", "--json", *extra, repo.root)  # the same again: that plan is kept
    assert len(fake_llm.chat_requests) == 2 and _levels(again.json()) == {"full_file"}


def test_a_changed_unit_asks_again(repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer,
                                   cli: CliRunner) -> None:
    _repo(repo)
    fake_llm.script(_answer("function"), _answer("full_file"))
    assert cli("plan", repo.root).code == 0
    repo.write("app/service.py", SERVICE.replace("amount * 2", "amount * 4"))
    result = cli("plan", "--json", repo.root)
    assert len(fake_llm.chat_requests) == 2
    assert _levels(result.json()) == {"full_file"}
    repo.write("app/service.py", SERVICE.replace("amount * 2", "amount * 3"))
    back = cli("plan", "--json", repo.root)  # as it was: the first plan, kept
    assert len(fake_llm.chat_requests) == 2 and _levels(back.json()) == {"function"}


def test_replan_asks_again_and_keeps_the_new_plan(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer, cli: CliRunner) -> None:
    _repo(repo)
    fake_llm.script(_answer("function"), _answer("full_file"))
    assert cli("plan", repo.root).code == 0
    replanned = cli("plan", "--replan", "--json", repo.root)
    assert replanned.code == 0, replanned.err
    assert len(fake_llm.chat_requests) == 2 and _levels(replanned.json()) == {"full_file"}
    again = cli("plan", "--json", repo.root)
    assert len(fake_llm.chat_requests) == 2  # the new plan was kept in place of the old
    assert _levels(again.json()) == {"full_file"}
    with pytest.raises(SystemExit) as refused:  # argparse: one line, exit status 2
        cli("plan", "--replan", "--no-llm", repo.root)
    assert refused.value.code == 2


def test_no_cache_neither_reads_nor_keeps_a_plan(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer, cli: CliRunner) -> None:
    _repo(repo)
    fake_llm.script(_answer("function"), _answer("file_context"), _answer("full_file"))
    assert cli("plan", "--no-cache", repo.root).code == 0
    assert cli("plan", "--json", repo.root).json()["planner"]["cached_at"] is None
    assert len(fake_llm.chat_requests) == 2  # nothing was kept by --no-cache
    no_cache = cli("plan", "--no-cache", "--json", repo.root)
    assert len(fake_llm.chat_requests) == 3  # and nothing read
    assert _levels(no_cache.json()) == {"full_file"}


def test_a_partial_plan_is_not_kept(repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer,
                                    cli: CliRunner) -> None:
    _repo(repo, "[llm]\nmax_output_tokens = 64\n")  # one unit per batch
    fake_llm.script(_answer("full_file"), Reply.text("no idea"), Reply.text("still none"))
    first = cli("plan", "--json", repo.root)
    assert first.json()["planner"]["status"] == "partial", first.err
    fake_llm.script(_answer("full_file"), _answer("full_file"))
    second = cli("plan", "--json", repo.root)
    assert len(fake_llm.chat_requests) == 5  # asked again, both batches
    assert second.json()["planner"]["status"] == "ok"
    assert second.json()["planner"]["cached_at"] is None
    third = cli("plan", "--json", repo.root)
    assert len(fake_llm.chat_requests) == 5 and third.json()["planner"]["cached_at"]


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_corrupt_cache_is_ignored_and_rebuilt(
        damage: str, repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer,
        cli: CliRunner) -> None:
    _repo(repo)
    fake_llm.script(_answer("function"), _answer("full_file"))
    assert cli("plan", repo.root).code == 0
    path = _cache_file(repo)
    if damage == "garbage":
        path.write_bytes(b"this is no database\n" * 200)
    else:  # a database header, then nothing that reads
        with sqlite3.connect(path) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        data = path.read_bytes()
        path.write_bytes(data[:100] + b"\xff" * (len(data) - 100))
    result = cli("plan", "--json", repo.root)
    assert result.code == 0, result.err
    assert "Traceback" not in result.err and "database" not in result.err
    assert len(fake_llm.chat_requests) == 2 and _levels(result.json()) == {"full_file"}
    kept = cli("plan", "--json", repo.root)  # written again, read again
    assert len(fake_llm.chat_requests) == 2 and kept.json()["planner"]["cached_at"]
