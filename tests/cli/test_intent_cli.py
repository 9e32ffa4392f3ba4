"""The change's stated purpose through the real command line and the real SDK: the planner,
the review agent and the chat read the commit messages and ``--description`` (capped for long
ranges, keys redacted); the tables, the export and SARIF show it; the planner may mark a unit
unrelated and the agent may say the change does not do what it says."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from reviewtui.git.intent_text import intent_budget
from reviewtui.llm import token_counter
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.history import long_range
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.schemas import sarif_errors

SERVICE = "def charge(amount):\n    return amount * 2\n"
VIEWS = "def pay():\n    return 1\n"
OPENAI_KEY = "sk-live-0123456789abcdefghijklmn"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
DESCRIPTION = "Charge three times the amount (pricing change PR-88).\n\nNothing else.\n"


def _base(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", SERVICE)
    repo.write("app/views.py", VIEWS)
    repo.commit("base")
    return repo


def _plan_for_every_unit(request: dict[str, Any], **extra: Any) -> Reply:
    content = request["messages"][1]["content"]
    ids = re.findall(r'"unit_id":"(u_[0-9a-f]+)"', content)
    return Reply.json({"plan": [{"unit_id": uid, "llm_context_level": "function",
                                 "extra_requests": [], "skip_review": False,
                                 "reason": "fine", **extra} for uid in ids]})


def _purpose(content: str) -> str:
    """The stated-purpose section of a prompt (up to the next top-level part)."""
    start = content.index("## Stated purpose of the change")
    ends = [i for i in (content.find("\n\nUnits", start), content.find("\n\n## Review index",
                                                                       start)) if i > 0]
    return content[start:min(ends)]


def test_planner_and_review_read_a_5000_commit_range_capped_and_redacted(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
        tmp_path: Path) -> None:
    _base(repo)
    base, tip = long_range(repo, 5_000, last_body=f"Deploy with {OPENAI_KEY} / {AWS_KEY}.")
    description = tmp_path / "pr.md"
    description.write_text(DESCRIPTION + f"Ask for the key {AWS_KEY}.\n")
    fake_llm.script(_plan_for_every_unit)  # a model that leaves out "unrelated": tolerated
    planned = cli("plan", "--range", f"{base}..{tip}", "--description", description, repo.root)
    assert planned.code == 0, planned.err
    # a range of commit ids names no branch
    assert planned.out.startswith("intent: Charge three times the amount (pricing change "
                                  "PR-88). · 5000 commits\n")
    assert "units unrelated" not in planned.out

    fake_llm.script(Reply.json({"verdict": "approve", "summary": "Ok.", "findings": []}))
    reviewed = cli("review", "--rules-plan", "--range", f"{base}..{tip}", "--description",
                   description, repo.root)
    assert reviewed.code == 0, reviewed.err

    planner, review = (r.body for r in fake_llm.chat_requests)
    counter = token_counter("test-model")
    for body in (planner, review):
        purpose = _purpose(body["messages"][1]["content"])
        assert "### Description\nCharge three times the amount (pricing change PR-88)." in purpose
        assert "Ask for the key [REDACTED]." in purpose
        assert "Step 5000 of the migration" in purpose  # the most recent first...
        assert "Step 1 of the migration" not in purpose  # ...the oldest left out
        assert re.search(r"- … and \d{4} older commits not shown$", purpose)
        assert counter.count(purpose) <= intent_budget(32_000)  # the documented cap
    everything = json.dumps([r.body for r in fake_llm.chat_requests])
    assert OPENAI_KEY not in everything and AWS_KEY not in everything


def test_small_range_full_messages_merge_and_odd_encodings_in_index_plan_and_review(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _base(repo)
    start = repo.head()
    repo.git("checkout", "-q", "-b", "logging")
    repo.write("app/log.py", "LEVEL = 'debug'\n")
    repo.commit("Log at debug level")
    repo.git("checkout", "-q", "main")
    repo.write("app/service.py", SERVICE.replace("* 2", "* 3"))
    repo.commit("Triple the charge\n\nPricing asked for it.\n\nFixes #88\n"
                "Co-authored-by: Ana <ana@example.com>")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge branch 'logging'", "logging")
    tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    odd = repo.git("commit-tree", tree, "-p", "HEAD", input=b"Caf\xe9 \xff\n").strip()
    empty = repo.git("commit-tree", tree, "-p", odd, input=b"").strip()
    repo.git("update-ref", "refs/heads/main", empty)

    index = cli("index", "--range", f"{start}..main", repo.root)
    assert index.code == 0, index.err
    assert index.out.splitlines()[2] == (  # under the change's line and the risks
        "intent: (empty commit message) · 5 commits · branch main · issues #88")

    units = {u["file_path"]: u["unit_id"] for u in cli(
        "index", "--json", "--range", f"{start}..main", repo.root).json()["units"]}

    def plan(request: dict[str, Any]) -> Reply:
        purpose = _purpose(request["messages"][1]["content"])
        assert "(merge): Merge branch 'logging'" in purpose
        assert "- " in purpose and ": Triple the charge\n  Pricing asked for it.\n" in purpose
        assert "  Fixes: #88\n  Co-authored-by: Ana <ana@example.com>" in purpose
        assert "(empty commit message)" in purpose and "Linked issues: #88" in purpose
        assert "Caf" in purpose
        return Reply.json({"plan": [
            {"unit_id": units["app/service.py"], "llm_context_level": "function",
             "extra_requests": [], "skip_review": False, "reason": "the fix",
             "unrelated": False, "unrelated_reason": ""},
            {"unit_id": units["app/log.py"], "llm_context_level": "diff_only",
             "extra_requests": [], "skip_review": True, "reason": "config noise",
             "unrelated": True, "unrelated_reason": "logging has nothing to do with pricing"}]})

    fake_llm.script(plan)
    planned = cli("plan", "--range", f"{start}..main", repo.root)
    assert planned.code == 0, planned.err
    row = next(line for line in planned.out.splitlines() if units["app/log.py"] in line)
    assert "[unrelated: logging has nothing to do with pricing]" in row
    assert re.search(r"\bno\b", row)  # not skipped for being off-topic
    assert "1 units unrelated to the stated purpose" in planned.out
    schema = fake_llm.chat_requests[0].body["response_format"]["json_schema"]["schema"]
    assert {"unrelated", "unrelated_reason"} <= set(
        schema["properties"]["plan"]["items"]["required"])


def test_intent_findings_their_category_and_the_export(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
        tmp_path: Path) -> None:
    _base(repo)
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n\n\n"
               "def refund(amount):\n    return amount\n")
    repo.commit("Triple the charge and add refunds\n\nCloses #5")
    answer = Reply.json({"verdict": "request_changes", "summary": "Half done.", "findings": [
        # promised but missing: no changed line to sit on, so it moves onto its unit
        {"title": "Refunds are not negative as the description says", "body": "",
         "severity": "P2", "confidence": 0.7, "file_path": "app/service.py",
         "start_line": 40, "end_line": 41, "category": "Intent mismatch"},
        {"title": "A bug elsewhere", "body": "", "severity": "P2", "confidence": 0.7,
         "file_path": "app/service.py", "start_line": 40, "end_line": 41}]})
    fake_llm.script(answer, answer)
    description = tmp_path / "d.md"
    description.write_text("Refunds return a negative amount.\n")
    result = cli("review", "--rules-plan", "--commit", "HEAD", "--description", description,
                 "--format", "json", repo.root)
    assert result.code == 0, result.err
    review = result.json()
    [finding] = review["findings"]
    assert (finding["category"], finding["start_line"]) == ("intent_mismatch", 2)
    assert any("A bug elsewhere" in d for d in review["dropped"])
    system = fake_llm.chat_requests[0].body["messages"][0]["content"]
    assert "intent_mismatch" in system and "tests that do not test the stated fix" in system
    text = cli("review", "--rules-plan", "--commit", "HEAD", repo.root).out
    assert "[P2 minor] intent mismatch: Refunds are not negative" in text

    exported = cli("export", "--commit", "HEAD", "--description", description,
                   "--format", "json", repo.root).json()
    assert exported["intent"]["description"] == "Refunds return a negative amount."
    assert exported["intent"]["issues"] == ["#5"]
    assert exported["intent"]["commits"][0]["subject"] == "Triple the charge and add refunds"
    assert exported["findings"][0]["category"] == "intent_mismatch"
    markdown = cli("export", "--commit", "HEAD", "--description", description, repo.root).out
    assert markdown.startswith("## Review: No verdict yet\n\n**Stated purpose:** Refunds return "
                               "a negative amount. · branch main · issues #5\n\n"
                               "> Refunds return a negative amount.\n")
    assert "(1 against the stated purpose)" in markdown
    assert "**P2 · intent mismatch · Refunds are not negative" in markdown
    sarif = json.loads(cli("export", "--commit", "HEAD", "--format", "sarif", repo.root).out)
    assert sarif_errors(sarif) == []  # the OASIS SARIF 2.1.0 schema
    run = sarif["runs"][0]
    assert run["properties"]["intent"]["commits"][0]["subject"] == (
        "Triple the charge and add refunds")
    assert run["results"][0]["ruleId"] == "reviewtui/intent_mismatch/p2"


def test_the_chat_reads_the_description_and_the_commit(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _base(repo)
    repo.write("app/service.py", SERVICE.replace("* 2", "* 3"))
    repo.commit("Triple the charge")

    def answer(request: dict[str, Any]) -> Reply:
        system = request["messages"][0]["content"]
        assert "## Stated purpose of the change" in system
        assert system.index("Stated purpose") < system.index("## Review index")
        assert "Triple the charge" in system and "Nothing else." in system
        return Reply.text("It triples the charge, as stated.")

    fake_llm.script(answer)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(DESCRIPTION.encode())))
    asked = cli("ask", "--rules-plan", "--commit", "HEAD", "--description", "-",
                "Does it do what it says?", repo.root)
    assert asked.code == 0, asked.err
    assert asked.out == "It triples the charge, as stated.\n"


def test_an_unreadable_description_is_one_line(repo: GitRepoBuilder, cli: CliRunner,
                                               tmp_path: Path) -> None:
    _base(repo)
    result = cli("plan", "--no-llm", "--description", tmp_path / "missing.md", repo.root)
    assert result.code == 2
    assert result.err.count("\n") == 1 and "cannot read the description" in result.err
    assert "Traceback" not in result.err


def test_description_sources_flag_then_workbench_then_config(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
        tmp_path: Path) -> None:
    """A working-tree change has no commits: its purpose comes from --description, else the
    description written in the workbench (any session of the change), else [review]
    description in the configuration."""
    from reviewtui.sessions.store import SessionStore

    _base(repo)
    repo.write(".reviewtui.toml", '[review]\ndescription = "From the config."\n')
    repo.commit("config")
    repo.write("app/service.py", SERVICE.replace("* 2", "* 3"))
    fake_llm.script(_plan_for_every_unit)
    first = cli("plan", repo.root)
    assert first.out.startswith("intent: From the config. · branch main\n"), first.err
    assert "### Description\nFrom the config." in fake_llm.chat_requests[0].body[
        "messages"][1]["content"]

    with SessionStore() as store:  # what the workbench's i writes, then a newer session
        key = f"all:{repo.head()}..worktree"
        written = store.create_session(str(repo.root.resolve()), key, "t")
        store.set_description(written.session_id, "From the workbench.")
        store.create_session(str(repo.root.resolve()), key, "a newer session (ask --new)")
    assert cli("plan", "--no-llm", repo.root).out.startswith(
        "intent: From the workbench. · branch main\n")
    flag = tmp_path / "d.txt"
    flag.write_text("From the flag.")
    assert cli("plan", "--no-llm", "--description", flag, repo.root).out.startswith(
        "intent: From the flag. · branch main\n")
