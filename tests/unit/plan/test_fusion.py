"""Fusion of rule and LLM plans (seed 000), the overrides layer and the conflict log."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.models import (
    AgentDecision,
    CallersRequest,
    ContextLevel,
    IndexUnit,
    LineNumbers,
    Metrics,
    PreviousVersionRequest,
    SearchRequest,
    SymbolSearchRequest,
)
from reviewtui.plan import (
    LLMPlanItem,
    OverrideSet,
    UnitOverride,
    append_conflicts,
    fuse_plan,
    read_conflicts,
)
from reviewtui.plan.fusion import fuse_level
from reviewtui.plan.overrides import apply_overrides

D, F, C, FULL = (ContextLevel.DIFF_ONLY, ContextLevel.FUNCTION, ContextLevel.FILE_CONTEXT,
                 ContextLevel.FULL_FILE)


def unit(uid: str = "u1", *, level: ContextLevel = F, conf: float = 0.5, risk: str = "medium",
         tags: tuple[str, ...] = (), requests: list[object] | None = None,
         notes: str = "") -> IndexUnit:
    return IndexUnit(
        unit_id=uid, file_path="src/a.py", language="python", change_type="modify",
        location="src/a.py:L1-3", tags=list(tags),
        metrics=Metrics(added_lines=1, removed_lines=0, hunk_count=1),
        line_numbers=LineNumbers(new_compact="L1", old_compact=""),
        rule_context_level=level, rule_confidence=conf, rule_notes=notes,
        rule_extra_requests=requests or [],  # type: ignore[arg-type]
        agent_decision=AgentDecision(context_level=level, priority=risk))


def llm(uid: str = "u1", level: ContextLevel | None = F, *, skip: bool = False,
        requests: list[object] | None = None, reason: str = "llm says") -> LLMPlanItem:
    return LLMPlanItem(unit_id=uid, llm_context_level=level, skip_review=skip,
                       extra_requests=requests or [], reason=reason)  # type: ignore[arg-type]


@pytest.mark.parametrize(("rule", "conf", "llm_level", "final", "source"), [
    # >= 0.8: the rule's level, raised if the LLM asks for more
    (F, 0.85, D, F, "rule"),
    (F, 0.80, C, C, "llm"),
    (C, 0.95, C, C, "rule"),
    # <= 0.3: the LLM's level, even when lower
    (C, 0.30, D, D, "llm"),
    (D, 0.10, FULL, FULL, "llm"),
    # between: the higher of the two
    (C, 0.50, F, C, "rule"),
    (F, 0.31, C, C, "llm"),
    (F, 0.79, D, F, "rule"),
    # no LLM level: the rule's
    (F, 0.2, None, F, "rule"),
])
def test_fusion_bands(rule: ContextLevel, conf: float, llm_level: ContextLevel | None,
                      final: ContextLevel, source: str) -> None:
    assert fuse_level(rule, conf, llm_level) == (final, source)
    fused = fuse_plan([unit(level=rule, conf=conf)], {"u1": llm(level=llm_level)}, {"u1"})
    item = fused.items[0]
    assert item.final_context_level is final
    assert item.provenance.level == source
    assert item.llm_context_level is llm_level


@pytest.mark.parametrize(("kwargs", "why"), [
    ({"conf": 0.85, "risk": "low"}, "confidence"),
    ({"conf": 0.4, "risk": "low", "tags": ("security_sensitive",)}, "tag"),
    ({"conf": 0.4, "risk": "low", "tags": ("config_file",)}, "tag"),
    ({"conf": 0.4, "risk": "low", "tags": ("routing_file",)}, "tag"),
    ({"conf": 0.4, "risk": "high"}, "risk"),
    ({"conf": 0.4, "risk": "low", "notes": "risk: high_risk (auth)"}, "notes"),
])
def test_high_risk_units_cannot_be_skipped(kwargs: dict[str, object], why: str) -> None:
    fused = fuse_plan([unit(**kwargs)], {"u1": llm(skip=True)}, {"u1"})  # type: ignore[arg-type]
    item = fused.items[0]
    assert item.skip_review is False, why
    assert item.reason == "high_risk_cannot_skip"
    assert [c.kind for c in fused.conflicts] == ["rule_high_vs_llm_skip"]


def test_low_risk_unit_skipped_by_the_llm_stays_skipped() -> None:
    fused = fuse_plan([unit(conf=0.4, risk="low")], {"u1": llm(skip=True, reason="format")},
                      {"u1"})
    assert fused.items[0].skip_review is True
    assert fused.items[0].reason == "format"
    assert fused.items[0].provenance.skip == "llm"
    assert fused.conflicts == []


def test_without_a_plan_the_rules_keep_high_and_medium_risk_and_drop_noise() -> None:
    units = [unit("hi", risk="high", conf=0.6), unit("mid", risk="medium"),
             unit("low", risk="low", conf=0.4),
             unit("noise", risk="low", conf=0.4, tags=("only_comments",))]
    items = {i.unit_id: i for i in fuse_plan(units, None).items}
    assert not items["hi"].skip_review and items["hi"].reason.startswith("rules_only")
    assert not items["mid"].skip_review
    assert not items["low"].skip_review
    assert items["noise"].skip_review and "only_comments" in items["noise"].reason
    assert all(i.provenance.level == "rule" and i.llm_context_level is None
               for i in items.values())


def test_a_unit_the_planner_left_out() -> None:
    units = [unit("kept", risk="medium"), unit("dropped", risk="low", conf=0.4)]
    items = {i.unit_id: i for i in fuse_plan(units, {}, {"kept", "dropped"}).items}
    assert not items["kept"].skip_review
    assert items["kept"].reason.startswith("rule_high_confidence_fallback")
    assert items["dropped"].skip_review
    assert items["dropped"].reason.startswith("dropped_by_fusion_low_confidence")


def test_extra_requests_llm_first_then_rules_without_duplicates() -> None:
    rules = [PreviousVersionRequest(), SymbolSearchRequest(type="search_callers", symbol="f")]
    mine = [CallersRequest(symbol="login"), PreviousVersionRequest()]
    fused = fuse_plan([unit(requests=rules)], {"u1": llm(requests=mine)}, {"u1"})  # type: ignore[arg-type]
    item = fused.items[0]
    assert [(r.type, getattr(r, "symbol", None)) for r in item.extra_requests] == [
        ("callers", "login"), ("previous_version", None), ("search_callers", "f")]
    assert item.provenance.extra_requests == ["llm", "llm", "rule"]
    # No LLM item: the rules' requests.
    alone = fuse_plan([unit(requests=rules)], None).items[0]
    assert [r.type for r in alone.extra_requests] == ["previous_version", "search_callers"]


def test_conflicts_expand_and_mismatch() -> None:
    units = [unit("a", level=F, conf=0.9), unit("b", level=D, conf=0.5),
             unit("c", level=F, conf=0.5)]
    plan = {"a": llm("a", C), "b": llm("b", FULL), "c": llm("c", C)}
    fused = fuse_plan(units, plan, set(plan), model="m")
    kinds = {c.unit_id: c.kind for c in fused.conflicts}
    assert kinds == {"a": "rule_high_vs_llm_expand", "b": "level_mismatch"}
    record = next(c for c in fused.conflicts if c.unit_id == "b")
    assert record.rule_context_level is D and record.llm_context_level is FULL
    assert record.model == "m"


def test_conflict_log_appends_once_and_survives_a_torn_line(tmp_path: Path) -> None:
    fused = fuse_plan([unit("a", level=F, conf=0.9)], {"a": llm("a", FULL)}, {"a"})
    log = tmp_path / "reviewtui" / "conflicts.jsonl"
    assert append_conflicts(log, fused.conflicts) == 1
    assert append_conflicts(log, fused.conflicts) == 0  # same disagreement: not again
    with log.open("a") as handle:
        handle.write('{"kind": "level_mis')  # a crash mid-write
    other = fuse_plan([unit("b", level=D, conf=0.5)], {"b": llm("b", FULL)}, {"b"})
    assert append_conflicts(log, other.conflicts) == 1
    assert [r.unit_id for r in read_conflicts(log)] == ["a", "b"]


def test_overrides_form_the_top_layer() -> None:
    base = fuse_plan([unit("a", requests=[PreviousVersionRequest()]),
                      unit("b", risk="high", conf=0.9)],
                     {"a": llm("a", F, requests=[CallersRequest(symbol="x")])}, {"a"}).items
    overrides = OverrideSet(units={
        "a": UnitOverride(level=FULL, remove_requests=[PreviousVersionRequest()],
                          add_requests=[SearchRequest(keyword="TOKEN")]),
        "b": UnitOverride(skip=True),
    })
    a, b = apply_overrides(base, overrides)
    assert a.final_context_level is FULL and a.provenance.level == "user"
    assert [r.type for r in a.extra_requests] == ["callers", "search"]
    assert a.provenance.extra_requests == ["llm", "user"]
    # The person may skip even a high-risk unit: the decision is theirs, and it is visible.
    assert b.skip_review and b.provenance.skip == "user" and b.reason.startswith("user: skipped")
    # The fused items underneath are untouched.
    assert base[0].final_context_level is F and base[1].skip_review is False


def test_an_unrelated_unit_is_not_lowered_nor_skipped_for_being_off_topic() -> None:
    """At low rule confidence the LLM's level wins -- but not when the model's only point is
    that the unit has nothing to do with the stated purpose: the rules' level stands, and the
    skip is refused."""
    off = LLMPlanItem(unit_id="u1", llm_context_level=D, skip_review=True, reason="noise",
                      unrelated=True, unrelated_reason="reformats the logger")
    [item] = fuse_plan([unit(level=C, conf=0.2, risk="low")], {"u1": off}, {"u1"}).items
    assert (item.final_context_level, item.provenance.level) == (C, "rule")
    assert (item.skip_review, item.reason) == (False, "unrelated_cannot_skip")
    assert item.unrelated == "reformats the logger"
    # the same answer without the flag: the LLM's level and its skip
    related = off.model_copy(update={"unrelated": False, "unrelated_reason": ""})
    [plain] = fuse_plan([unit(level=C, conf=0.2, risk="low")], {"u1": related}, {"u1"}).items
    assert (plain.final_context_level, plain.skip_review, plain.unrelated) == (D, True, None)
    # raising is still the model's to do
    wider = off.model_copy(update={"llm_context_level": FULL, "skip_review": False})
    [up] = fuse_plan([unit(level=C, conf=0.2, risk="low")], {"u1": wider}, {"u1"}).items
    assert (up.final_context_level, up.provenance.level) == (FULL, "llm")


def test_a_rule_skip_applies_without_a_plan_and_the_planner_may_keep_the_unit() -> None:
    catalogue = unit(level=D, conf=0.55, risk="low").model_copy(update={
        "rule_skip_reason": "translation catalogue: not code"})
    (alone,) = fuse_plan([catalogue], None).items
    assert alone.skip_review is True
    assert alone.reason == "rules_only: translation catalogue: not code"
    (kept,) = fuse_plan([catalogue], {"u1": llm(level=F, reason="a placeholder changed")},
                        planned_ids={"u1"}).items
    assert kept.skip_review is False and kept.final_context_level is F
    # a unit the rules rate above low is never skipped by a rule's reason
    risky = unit(level=D, conf=0.55, risk="medium").model_copy(update={
        "rule_skip_reason": "translation catalogue: not code"})
    assert fuse_plan([risky], None).items[0].skip_review is False
