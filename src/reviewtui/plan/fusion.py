"""Fuse the rules' suggestion with the LLM's plan (seed 000), unit by unit.

Rule confidence >= 0.8: the rule's level, raised if the LLM asks for more. <= 0.3: the LLM's
level. Between: the higher of the two. A high-risk unit (confidence >= 0.8, a security / config /
routing tag, or high risk) is never skipped. Units the LLM did not plan are decided by the rules:
high and medium risk are kept; without any plan, low-risk units are kept too unless they are
pure noise (comments, whitespace, lockfiles, generated code, binaries) or of a file kind a rule
skips with its reason (``skip_reason`` in the pack: translation catalogs); the planner's own
verdict on a unit it planned still wins. Extra requests: the LLM's
first, the rules' after them, each once. What the LLM said about every unit it planned is
returned as a ``ConflictRecord`` for the evidence log (agreements too: the learning step needs
the share of units that agree, not only the disagreements); the big disagreements are the
plan's ``conflicts``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from reviewtui.models import ContextLevel, IndexUnit
from reviewtui.plan.requests import merge_requests, request_key
from reviewtui.plan.schema import ConflictRecord, FusedItem, LLMPlanItem, Provenance, Source

T_HIGH = 0.8
T_LOW = 0.3
HIGH_RISK_TAGS = frozenset({"security_sensitive", "config_file", "routing_file"})
NOISE_TAGS = frozenset({"only_comments", "only_whitespace", "lockfile", "generated_or_vendored",
                        "binary"})
_KEPT_RISKS = frozenset({"medium", "high", "critical"})


def _risk(unit: IndexUnit) -> str | None:
    return unit.agent_decision.priority if unit.agent_decision else None


def is_high_risk(unit: IndexUnit) -> bool:
    if unit.rule_confidence is not None and unit.rule_confidence >= T_HIGH:
        return True
    if HIGH_RISK_TAGS.intersection(unit.tags):
        return True
    notes = unit.rule_notes or ""
    return _risk(unit) in ("high", "critical") or "high_risk" in notes


def fuse_level(rule: ContextLevel | None, confidence: float | None,
               llm: ContextLevel | None) -> tuple[ContextLevel, Source]:
    """The seed's three confidence bands; the source is the layer whose level won."""
    if rule is None:
        return (llm, "llm") if llm is not None else (ContextLevel.FUNCTION, "rule")
    if llm is None:
        return rule, "rule"
    conf = confidence if confidence is not None else 0.0
    if conf <= T_LOW:
        return llm, "llm"
    if llm.rank > rule.rank:
        return llm, "llm"
    return rule, "rule"


@dataclass(frozen=True)
class Fusion:
    items: list[FusedItem]
    conflicts: list[ConflictRecord]  # the disagreements a plan reports
    evidence: list[ConflictRecord] = field(default_factory=list)  # every verdict of the LLM


CONFLICT_KINDS = frozenset({"rule_high_vs_llm_expand", "rule_high_vs_llm_skip", "level_mismatch"})


def _verdict_kind(unit: IndexUnit, llm: LLMPlanItem) -> str | None:
    rule, said = unit.rule_context_level, llm.llm_context_level
    confident = unit.rule_confidence is not None and unit.rule_confidence >= T_HIGH
    if llm.skip_review and is_high_risk(unit):
        return "rule_high_vs_llm_skip"
    if confident and rule and said and said.rank > rule.rank:
        return "rule_high_vs_llm_expand"
    if rule and said and abs(said.rank - rule.rank) >= 2:
        return "level_mismatch"
    if said is None and llm.skip_review:
        said = ContextLevel.DIFF_ONLY  # a skip without a level: the least context
    if rule is None or said is None:
        return None  # the LLM said no level (or the rules none): nothing to learn from
    return "agreement" if said is rule else "level_differs"


def _verdict(unit: IndexUnit, llm: LLMPlanItem, model: str | None,
             now: str) -> ConflictRecord | None:
    """What the LLM said about ``unit`` against the rules, as an evidence record."""
    kind = _verdict_kind(unit, llm)
    if kind is None:
        return None
    return ConflictRecord.model_validate({
        "timestamp": now, "kind": kind, "unit_id": unit.unit_id, "file_path": unit.file_path,
        "lines": unit.line_numbers.new_compact or unit.line_numbers.old_compact or None,
        "language": unit.language, "tags": unit.tags,
        "rule_context_level": unit.rule_context_level,
        "rule_confidence": unit.rule_confidence, "risk": _risk(unit),
        "llm_context_level": llm.llm_context_level, "llm_skip_review": llm.skip_review,
        "llm_reason": llm.reason, "model": model,
    })


def _skip_without_plan(unit: IndexUnit, planned: bool) -> tuple[bool, str]:
    risk = _risk(unit) or "unknown"
    if is_high_risk(unit) or risk in _KEPT_RISKS:
        reason = "rule_high_confidence_fallback" if planned else "rules_only"
        return False, f"{reason}: {risk} risk, kept by the rules"
    if planned:
        return True, "dropped_by_fusion_low_confidence: low risk and not in the LLM plan"
    if unit.rule_skip_reason:
        return True, f"rules_only: {unit.rule_skip_reason}"
    if NOISE_TAGS.intersection(unit.tags):
        noise = ",".join(sorted(NOISE_TAGS.intersection(unit.tags)))
        if "binary_by_attribute" in unit.tags:  # a code file may hide behind the attribute
            noise += ("; binary by a gitattribute ('-diff', 'binary' or a binary diff driver), "
                      "not by its content")
        return True, f"rules_only: low-risk noise ({noise})"
    return False, "rules_only: low risk, kept for review"


def fuse_unit(unit: IndexUnit, llm: LLMPlanItem | None, planned: bool) -> FusedItem:
    rule_requests = list(unit.rule_extra_requests or [])
    llm_level = llm.llm_context_level if llm else None
    final, level_source = fuse_level(unit.rule_context_level, unit.rule_confidence, llm_level)
    skip_source: Source
    if llm is None:
        skip, reason = _skip_without_plan(unit, planned)
        skip_source = "rule"
        requests = merge_requests(rule_requests)
    else:
        skip, reason, skip_source = llm.skip_review, (llm.reason or "llm_plan"), "llm"
        if skip and is_high_risk(unit):
            skip, reason, skip_source = False, "high_risk_cannot_skip", "rule"
        elif skip and llm.unrelated:
            skip, reason, skip_source = False, "unrelated_cannot_skip", "rule"
        if llm.unrelated and unit.rule_context_level is not None and (
                final.rank < unit.rule_context_level.rank):
            # off-topic is not a reason for less context: the rules' level stands
            final, level_source = unit.rule_context_level, "rule"
        requests = merge_requests(llm.extra_requests, rule_requests)
    llm_keys = {request_key(r) for r in (llm.extra_requests if llm else [])}
    sources: list[Source] = ["llm" if request_key(r) in llm_keys else "rule" for r in requests]
    return FusedItem(
        unit_id=unit.unit_id, file_path=unit.file_path, location=unit.location,
        risk=_risk(unit), rule_context_level=unit.rule_context_level,
        rule_confidence=unit.rule_confidence, llm_context_level=llm_level,
        final_context_level=final, extra_requests=requests, skip_review=skip, reason=reason,
        provenance=Provenance(level=level_source, skip=skip_source, extra_requests=sources),
        priority=unit.priority_score,
        unrelated=llm.unrelated_reason or "unrelated" if llm is not None and llm.unrelated
        else None,
    )


def fuse_plan(units: list[IndexUnit], llm_plan: Mapping[str, LLMPlanItem] | None,
              planned_ids: Collection[str] = (), model: str | None = None) -> Fusion:
    """Fuse every unit; ``planned_ids`` are units whose planner batch answered cleanly."""
    plan = llm_plan or {}
    now = datetime.now(UTC).isoformat(timespec="seconds")
    items: list[FusedItem] = []
    evidence: list[ConflictRecord] = []
    for unit in units:
        llm = plan.get(unit.unit_id)
        items.append(fuse_unit(unit, llm, unit.unit_id in planned_ids))
        if llm is not None:
            record = _verdict(unit, llm, model, now)
            if record is not None:
                evidence.append(record)
    return Fusion(items, [r for r in evidence if r.kind in CONFLICT_KINDS], evidence)


_PLANNED_WITHOUT_ITEM = ("dropped_by_fusion_low_confidence", "rule_high_confidence_fallback")


def llm_answers(items: Sequence[FusedItem]) -> tuple[dict[str, LLMPlanItem], set[str]]:
    """What the planner answered, recovered from fused items, to fuse it again with new rule
    scores: an item for every unit the LLM planned (its level, its skip -- also one a high-risk
    unit overruled --, its requests, its reason), and the units of answered batches it left
    out."""
    answers: dict[str, LLMPlanItem] = {}
    planned: set[str] = set()
    for item in items:
        overruled = item.reason in ("high_risk_cannot_skip", "unrelated_cannot_skip")
        if item.provenance.skip == "llm" or overruled:
            requests = [r for r, source in zip(item.extra_requests,
                                               item.provenance.extra_requests, strict=True)
                        if source == "llm"]
            answers[item.unit_id] = LLMPlanItem(
                unit_id=item.unit_id, llm_context_level=item.llm_context_level,
                extra_requests=requests, skip_review=item.skip_review or overruled,
                reason="" if overruled or item.reason == "llm_plan" else item.reason,
                unrelated=item.unrelated is not None, unrelated_reason=item.unrelated or "")
            planned.add(item.unit_id)
        elif item.reason.startswith(_PLANNED_WITHOUT_ITEM):
            planned.add(item.unit_id)
    return answers, planned
