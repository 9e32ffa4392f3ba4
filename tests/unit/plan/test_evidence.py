"""The evidence log: every verdict of the planner, the person's decisions, stamps, and how the
log is read and appended without ever losing a line."""

from __future__ import annotations

import json
from pathlib import Path

from reviewtui.models import ContextLevel, PreviousVersionRequest, SearchRequest
from reviewtui.plan import EvidenceLog, OverrideSet, UnitOverride, fuse_plan, read_evidence
from reviewtui.plan.evidence import UnitFacts, override_records
from tests.unit.plan.test_fusion import FULL, C, D, F, llm, unit


def test_every_verdict_of_the_planner_is_evidence_the_big_ones_are_conflicts() -> None:
    units = [unit("same", level=F), unit("one_apart", level=F), unit("far", level=D),
             unit("silent", level=F)]
    plan = {"same": llm("same", F), "one_apart": llm("one_apart", D),
            "far": llm("far", C), "silent": llm("silent", None)}
    fused = fuse_plan(units, plan, set(plan))
    assert {r.unit_id: r.kind for r in fused.evidence} == {
        "same": "agreement", "one_apart": "level_differs", "far": "level_mismatch"}
    assert [r.unit_id for r in fused.conflicts] == ["far"]
    assert {r.said_level() for r in fused.evidence} == {F, D, C}
    assert all(r.source == "llm" and r.lines == "L1" for r in fused.evidence)


def _facts(uid: str = "u1") -> dict[str, UnitFacts]:
    return {uid: UnitFacts.of_index(unit(uid, level=F, tags=("test_file",)))}


def test_the_persons_decisions_and_taking_them_back() -> None:
    before = OverrideSet()
    after = OverrideSet(units={"u1": UnitOverride(
        skip=True, add_requests=[PreviousVersionRequest(), SearchRequest(keyword="TOKEN")])})
    [record] = override_records(_facts(), before, after)
    assert (record.source, record.kind, record.user_skip, record.user_requests) == (
        "user", "user_override", True, ["previous_version", "search(TOKEN)"])
    assert (record.tags, record.rule_context_level, record.risk) == (
        ["test_file"], F, "medium")
    assert record.said_level() is D  # a skip says: the least context
    [back] = override_records(_facts(), after, before)
    assert (back.user_level, back.user_skip, back.user_requests) == (None, None, [])
    assert back.said_level() is None
    assert override_records(_facts(), after, after) == []
    assert override_records({}, before, after) == []  # a unit not in this change


def test_a_mind_changed_back_is_recorded_each_time_a_repeat_is_not(tmp_path: Path) -> None:
    log = EvidenceLog(tmp_path / "reviewtui" / "conflicts.jsonl", "pack1", "commit:a..b")
    levels = [FULL, D, FULL, FULL]
    previous = OverrideSet()
    for level in levels:
        current = OverrideSet(units={"u1": UnitOverride(level=level)})
        log.append(override_records(_facts(), OverrideSet(), current))
        previous = current
    read = read_evidence(log.path)
    assert [r.user_level for r in read.records] == [FULL, D, FULL]
    assert {(r.pack, r.change) for r in read.records} == {("pack1", "commit:a..b")}
    # The same verdict under another rule pack is new evidence (the old one is stale).
    EvidenceLog(log.path, "pack2").append(override_records(_facts(), OverrideSet(), previous))
    assert [r.pack for r in read_evidence(log.path).records][-1] == "pack2"


def test_unreadable_and_old_lines_are_reported_not_lost(tmp_path: Path) -> None:
    path = tmp_path / "conflicts.jsonl"
    fused = fuse_plan([unit("a", level=F, conf=0.9)], {"a": llm("a", FULL)}, {"a"})
    old = fused.conflicts[0].model_dump(mode="json")
    for name in ("source", "lines", "user_level", "user_skip", "user_requests", "pack",
                 "change"):
        del old[name]
    path.write_text(json.dumps(old) + "\n[1, 2]\n" + '{"kind": "level_mis')
    read = read_evidence(path)
    assert [(r.unit_id, r.source, r.pack) for r in read.records] == [("a", "llm", None)]
    assert (read.unstamped, read.unreadable) == (1, [2, 3])
    assert read.problems(path) == [f"{path}: 2 unreadable lines skipped (line 2, 3); the file "
                                   "is left as it is"]
    EvidenceLog(path, "p").append(fused.evidence)
    lines = path.read_text().splitlines()
    assert lines[:3] == [json.dumps(old), "[1, 2]", '{"kind": "level_mis']
    assert json.loads(lines[3])["pack"] == "p"  # stamped: not the old, unstamped verdict


def test_a_log_that_cannot_be_read_is_one_problem(tmp_path: Path) -> None:
    folder = tmp_path / "conflicts.jsonl"
    folder.mkdir()
    read = read_evidence(folder)
    assert read.records == [] and read.problems(folder) == [
        f"{folder}: cannot read: Is a directory"]


def test_a_skip_without_a_level_says_the_least_context() -> None:
    fused = fuse_plan([unit("a", level=C), unit("b", level=D)],
                      {"a": llm("a", None, skip=True), "b": llm("b", None, skip=True)},
                      {"a", "b"})
    assert [(r.kind, r.said_level()) for r in fused.evidence] == [
        ("level_differs", ContextLevel.DIFF_ONLY), ("agreement", ContextLevel.DIFF_ONLY)]
    assert fused.conflicts == []  # not one of the disagreements a plan reports
