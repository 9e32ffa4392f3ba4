"""The self-learning loop through the command line: the scripted planner and the person's
overrides disagree with the rules on one kind of unit -> ``reviewtui rules learn`` proposes it
-> ``--accept`` writes it -> the next ``index`` uses it; ``--reject`` keeps it out."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextLevel
from reviewtui.pipeline import load_change
from reviewtui.plan import OverrideSet, UnitOverride, read_conflicts
from reviewtui.tui.session import TuiSession
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support import learning
from tests.support.openai_server import ScriptedOpenAIServer

KIND = ["in_single_function", "test_file"]
HAND_WRITTEN = ("# Our own learned rules -- keep this comment.\n"
                "[[learned]]\n"
                "tags = ['doc_file']  # docs need only the diff\n"
                "context_level = 'local'\n"
                "confidence = 0.9\n"
                "samples = 10\n")


def _plan_changes(repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
                  numbers: range) -> list[str]:
    """Commit change N for each number and plan it with the scripted planner."""
    revs = []
    for n in numbers:
        rev = learning.change(repo, n)
        fake_llm.script(learning.planner)
        result = cli("plan", "--commit", rev, repo.root)
        assert result.code == 0, result.err
        revs.append(rev)
    return revs


def _levels(cli: CliRunner, repo: GitRepoBuilder, rev: str) -> dict[str, str]:
    result = cli("index", "--json", "--commit", rev, repo.root)
    assert result.code == 0, result.err
    return {u["file_path"]: u["rule_context_level"] for u in result.json()["units"]}


def _learn(cli: CliRunner, repo: GitRepoBuilder) -> dict[str, Any]:
    result = cli("rules", "learn", "--json", repo.root)
    assert result.code == 0, result.err
    data: dict[str, Any] = result.json()
    return data


def _ready(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in report["candidates"] if c["status"] == "ready"]


def _person_sets_diff_only(repo: GitRepoBuilder, rev: str, store: Path) -> str:
    """In the workbench's session for change ``rev``, the person lowers its test unit."""
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref=rev))
    unit = next(u for u in loaded.units if u.file_path.startswith("tests/"))
    session = TuiSession(loaded, store)
    before = session.overrides()
    decided = OverrideSet(units={**before.units,
                                 unit.unit_id: UnitOverride(level=ContextLevel.DIFF_ONLY)})
    assert session.save(decided) is None
    return unit.unit_id


def test_the_loop_end_to_end(repo: GitRepoBuilder, cli: CliRunner,
                             fake_llm: ScriptedOpenAIServer, tmp_path: Path) -> None:
    repo.write(".reviewtui/learned_rules.toml", HAND_WRITTEN)
    learning.base(repo, 4)
    revs = _plan_changes(repo, cli, fake_llm, range(3))
    # A fourth change: the person, not the planner, says diff_only for its test unit.
    fourth = learning.change(repo, 3)
    person_unit = _person_sets_diff_only(repo, fourth, tmp_path / "sessions.db")
    log = repo.root / ".git" / "reviewtui" / "conflicts.jsonl"
    user = [r for r in read_conflicts(log) if r.source == "user"]
    assert [(r.unit_id, r.user_level, r.rule_context_level, r.tags, r.language) for r in user] \
        == [(person_unit, ContextLevel.DIFF_ONLY, ContextLevel.FUNCTION, KIND, "python")]

    before = _levels(cli, repo, revs[0])
    assert before == {"app/mod_0.py": "function", "tests/test_0.py": "function"}

    report = _learn(cli, repo)
    [candidate] = report["candidates"]
    assert candidate["status"] == "ready"
    assert candidate["key"] == {"tags": KIND, "language": "python", "paths": []}
    assert candidate["level"] == "diff_only" and candidate["rule_levels"] == {"function": 4}
    assert (candidate["samples"], candidate["agreeing"], candidate["agreement"]) == (4, 4, 1.0)
    assert (candidate["llm"], candidate["user"]) == (3, 1)
    assert (candidate["files"], candidate["changes"]) == (4, 4)
    examples = candidate["examples"]
    assert len(examples) == 3 and examples[0]["source"] == "user"
    assert examples[0]["location"] == "tests/test_3.py:L6-7" and examples[0]["said"] == "diff_only"
    assert {e["reason"] for e in examples[1:]} == {learning.TEST_REASON}
    # Nothing else: the application units, where the planner agreed with the rules, propose
    # nothing; "every single-function change -> diff_only" would only repeat this candidate.
    assert report["candidates"] == [candidate]

    text = cli("rules", "learn", repo.root)
    assert f"{candidate['id']}  python: in_single_function+test_file -> diff_only (the rules " \
           "say function)" in text.out
    assert "4 samples (3 llm, 1 user), agreement 1.00 (4 of 4), 4 files, 4 changes" in text.out

    accepted = cli("rules", "learn", "--accept", candidate["id"], repo.root)
    assert accepted.code == 0, accepted.err
    assert f"accepted {candidate['id']}" in accepted.out
    written = (repo.root / ".reviewtui" / "learned_rules.toml").read_text()
    assert written.startswith(HAND_WRITTEN)  # the person's rule and comments are kept
    rules = tomllib.loads(written)["learned"]
    assert rules[1] | {"origin": None} == {
        "tags": KIND, "language": "python", "context_level": "diff_only",
        "confidence": 0.83, "samples": 4, "origin": None}
    assert rules[1]["origin"]["candidate"] == candidate["id"]
    assert (rules[1]["origin"]["changes"], rules[1]["origin"]["user"]) == (4, 1)
    assert cli("rules", "check", "--repo", repo.root).code == 0

    # The next index: the test units are diff_only now, the application units are not.
    for n, rev in enumerate(revs):
        assert _levels(cli, repo, rev) == {f"app/mod_{n}.py": "function",
                                           f"tests/test_{n}.py": "diff_only"}
    test_unit = next(u for u in cli("index", "--json", "--commit", revs[0], repo.root)
                     .json()["units"] if u["file_path"].startswith("tests/"))
    explained = cli("rules", "explain", "--commit", revs[0], test_unit["unit_id"], repo.root)
    assert f"origin: candidate {candidate['id']} accepted" in explained.out
    assert "learned_rules.toml" in explained.out
    # Its evidence is in the rule now: nothing is proposed again.
    assert _ready(_learn(cli, repo)) == []

    # Safety: a test of security code is of that kind too, but is neither lowered nor skipped.
    login = "from app.mod_0 import total\n\n\ndef test_login():\n    assert total([1])\n"
    repo.write("tests/test_login.py", login)
    base = repo.commit("login test")
    repo.write("tests/test_login.py", login + "    assert not check(password='')\n")
    guarded = cli("index", "--json", "--commit", repo.commit("weaker login test"), repo.root)
    [unit] = [u for u in guarded.json()["units"] if u["file_path"] == "tests/test_login.py"]
    assert set(KIND) < set(unit["tags"]) and "security_test" in unit["tags"]
    assert unit["rule_context_level"] == "function"
    assert "ignored: medium risk, security_test keeps function" in unit["rule_notes"]
    plan = cli("plan", "--json", "--no-llm", "--range", f"{base}..HEAD", repo.root).json()
    assert [i["skip_review"] for i in plan["plan"]] == [False]


def test_overrides_file_is_evidence_too(repo: GitRepoBuilder, cli: CliRunner,
                                        tmp_path: Path) -> None:
    learning.base(repo, 1)
    rev = learning.change(repo, 0)
    index = cli("index", "--json", "--commit", rev, repo.root).json()["units"]
    test_unit = next(u for u in index if u["file_path"].startswith("tests/"))
    overrides = tmp_path / "overrides.json"
    overrides.write_text(json.dumps({test_unit["unit_id"][:8]: {
        "skip": True, "add_requests": [{"type": "previous_version"}]}}))
    for _ in range(2):  # the same decision twice is one record
        assert cli("plan", "--no-llm", "--commit", rev, "--overrides", overrides,
                   repo.root).code == 0
    [record] = read_conflicts(repo.root / ".git" / "reviewtui" / "conflicts.jsonl")
    assert (record.source, record.unit_id, record.user_skip, record.user_requests) == (
        "user", test_unit["unit_id"], True, ["previous_version"])
    assert (record.file_path, record.lines, record.tags, record.rule_context_level) == (
        "tests/test_0.py", "L6-7", KIND, ContextLevel.FUNCTION)
    assert record.pack and record.change == f"commit:{repo.git('rev-parse', rev + '^').strip()}" \
                                             f"..{rev}"


def test_rejecting_keeps_it_out_until_its_evidence_doubles(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    learning.base(repo, 6)
    _plan_changes(repo, cli, fake_llm, range(3))
    [candidate] = _ready(_learn(cli, repo))
    rejected = cli("rules", "learn", "--reject", candidate["id"], repo.root)
    assert rejected.code == 0, rejected.err
    assert "not proposed again until it has 6" in rejected.out
    again = _learn(cli, repo)
    assert _ready(again) == []
    [kept_out] = [c for c in again["candidates"] if c["id"] == candidate["id"]]
    assert kept_out["status"] == "rejected" and "proposed again at 6" in kept_out["reasons"][0]
    refused = cli("rules", "learn", "--accept", candidate["id"], repo.root)
    assert refused.code == 2 and "is not ready: rejected on" in refused.err
    assert not (repo.root / ".reviewtui").exists()

    _plan_changes(repo, cli, fake_llm, range(3, 5))  # 5 samples: not yet twice 3
    assert _ready(_learn(cli, repo)) == []
    _plan_changes(repo, cli, fake_llm, range(5, 6))  # 6 samples: back
    [back] = _ready(_learn(cli, repo))
    assert (back["id"], back["samples"]) == (candidate["id"], 6)


def test_evidence_from_another_rule_pack_is_stale(repo: GitRepoBuilder, cli: CliRunner,
                                                  fake_llm: ScriptedOpenAIServer) -> None:
    learning.base(repo, 3)
    _plan_changes(repo, cli, fake_llm, range(3))
    assert len(_ready(_learn(cli, repo))) == 1
    repo.write(".reviewtui/rules.toml", "[base]\nlarge_change_lines = 90\n")
    report = _learn(cli, repo)
    assert report["candidates"] == []
    assert (report["evidence"]["used"], report["evidence"]["stale"]) == (0, 6)
    text = cli("rules", "learn", repo.root).out
    assert "6 stale (scored under another rule pack), not used" in text


def test_corrupt_truncated_and_old_log_lines(repo: GitRepoBuilder, cli: CliRunner,
                                             fake_llm: ScriptedOpenAIServer) -> None:
    learning.base(repo, 4)
    _plan_changes(repo, cli, fake_llm, range(3))
    log = repo.root / ".git" / "reviewtui" / "conflicts.jsonl"
    lines = log.read_text().splitlines()
    old = json.loads(lines[1])  # as an older version wrote it: no source, lines, pack, change
    for name in ("source", "lines", "user_level", "user_skip", "user_requests", "pack",
                 "change"):
        old.pop(name)
    old["unit_id"] = "u_olderversion"
    log.write_text("\n".join([*lines, "{not json", json.dumps(old), "\x00\xff garbage",
                              lines[3][:40]]))  # the last one torn by a crash mid-write
    before = log.read_bytes()

    result = cli("rules", "learn", repo.root)
    assert result.code == 0
    assert result.err.splitlines() == [
        f"reviewtui: note: {log}: 3 unreadable lines skipped (line 7, 9, 10); the file is "
        "left as it is"]
    assert "1 stale (scored under another rule pack; 1 lines from an older version)" in result.out
    assert log.read_bytes() == before  # reading never rewrites
    assert len(_ready(_learn(cli, repo))) == 1

    _plan_changes(repo, cli, fake_llm, range(3, 4))  # appending after the torn line
    after = log.read_bytes()
    assert after.startswith(before + b"\n")
    assert [r.unit_id for r in read_conflicts(log)][-2:] == [
        u["unit_id"] for u in cli("index", "--json", "--commit", "HEAD", repo.root)
        .json()["units"]]
    [candidate] = _ready(_learn(cli, repo))
    assert candidate["samples"] == 4


@pytest.mark.parametrize("how", ["a file in the way", "read-only folder"])
def test_an_unwritable_reviewtui_folder_is_one_line_and_loses_nothing(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer, how: str) -> None:
    if how == "read-only folder" and os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    learning.base(repo, 3)
    _plan_changes(repo, cli, fake_llm, range(3))
    folder = repo.root / ".reviewtui"
    if how == "a file in the way":
        folder.write_text("not a folder\n")
    else:
        folder.mkdir()
        (folder / "learned_rules.toml").write_text(HAND_WRITTEN)
        folder.chmod(0o555)
    log = repo.root / ".git" / "reviewtui" / "conflicts.jsonl"
    evidence = log.read_bytes()
    [candidate] = _ready(_learn(cli, repo))
    try:
        result = cli("rules", "learn", "--accept", candidate["id"], repo.root)
    finally:
        if folder.is_dir():
            folder.chmod(0o755)
    assert result.code == 2 and result.out == ""
    [line] = result.err.splitlines()
    assert line.startswith(f"reviewtui: error: cannot write {folder / 'learned_rules.toml'}: ")
    assert line.endswith("(nothing was changed)")
    assert log.read_bytes() == evidence
    if how == "a file in the way":
        assert folder.read_text() == "not a folder\n"
    else:
        assert (folder / "learned_rules.toml").read_text() == HAND_WRITTEN
        assert [p.name for p in folder.iterdir()] == ["learned_rules.toml"]
    assert _ready(_learn(cli, repo))[0]["id"] == candidate["id"]  # still proposed


def test_learn_outside_a_repository_and_an_unknown_candidate(tmp_path: Path, cli: CliRunner,
                                                            repo: GitRepoBuilder) -> None:
    outside = cli("rules", "learn", tmp_path)
    assert outside.code == 2 and outside.err.startswith("reviewtui: error: not a git repository")
    learning.base(repo, 1)
    empty = cli("rules", "learn", repo.root)
    assert empty.code == 0 and "no candidates" in empty.out
    unknown = cli("rules", "learn", "--accept", "c_nothere", repo.root)
    assert unknown.code == 2
    assert unknown.err == ("reviewtui: error: no candidate 'c_nothere' in the evidence "
                           "(candidates: none) (run 'reviewtui rules learn' to list them)\n")


@pytest.mark.parametrize(("option", "value"), [("--reject", ""), ("--reject", "  "),
                                               ("--accept", ""), ("--accept", "\t")])
def test_an_empty_candidate_id_is_refused(repo: GitRepoBuilder, cli: CliRunner,
                                          fake_llm: ScriptedOpenAIServer, option: str,
                                          value: str) -> None:
    """``--reject ""`` (or ``--accept ""``) names no candidate: one line and exit status 2,
    nothing listed, rejected or written -- not the listing as if the option were absent."""
    learning.base(repo, 3)
    _plan_changes(repo, cli, fake_llm, range(3))
    [candidate] = _ready(_learn(cli, repo))
    result = cli("rules", "learn", option, value, repo.root)
    assert result.code == 2
    assert result.out == ""
    assert result.err == (f"reviewtui: error: {option} needs a candidate ID, not an empty one "
                          "(run 'reviewtui rules learn' to list them)\n")
    assert not (repo.root / ".git" / "reviewtui" / "rejected_rules.json").exists()
    assert not (repo.root / ".reviewtui").exists()
    assert _ready(_learn(cli, repo)) == [candidate]


def test_accepting_a_candidate_twice_says_it_is_already_a_learned_rule(
        repo: GitRepoBuilder, cli: CliRunner, tmp_path: Path) -> None:
    """The second ``--accept`` (or a ``--reject`` after it) said "no candidate ... in the
    evidence (candidates: none)", as if the evidence were lost; it names the rule now."""
    learning.base(repo, 3)
    for n in range(3):
        rev = learning.change(repo, n)
        units = cli("index", "--json", "--commit", rev, repo.root).json()["units"]
        test_unit = next(u["unit_id"] for u in units if u["file_path"].startswith("tests/"))
        overrides = tmp_path / f"overrides_{n}.json"
        overrides.write_text(json.dumps({test_unit: {"level": "diff_only"}}))
        assert cli("plan", "--no-llm", "--commit", rev, "--overrides", overrides,
                   repo.root).code == 0
    [ready] = _ready(_learn(cli, repo))
    assert cli("rules", "learn", "--accept", ready["id"], repo.root).code == 0
    for action in ("--accept", "--reject"):
        again = cli("rules", "learn", action, ready["id"][:6], repo.root)
        assert again.code == 2 and again.out == ""
        assert f"candidate {ready['id']} is already a learned rule" in again.err
        assert "learned_rules.toml" in again.err and "Traceback" not in again.err
