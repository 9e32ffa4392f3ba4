"""The allocation order, decided in one key: noise last, risk, the person's marks, the rules'
priority score, confidence, then size -- and what counts as the person's mark."""

from __future__ import annotations

from reviewtui.context.priority import (
    UnitPriority,
    allocation_key,
    is_noise,
    person_marked,
    unit_priority,
)
from reviewtui.models import ContextLevel, PreviousVersionRequest
from reviewtui.plan import FusedItem, Provenance, UnitOverride
from reviewtui.plan.overrides import apply_override


def _item(**update: object) -> FusedItem:
    item = FusedItem(
        unit_id="u_1", file_path="a.py", location="a.py:L1", risk="medium",
        rule_context_level=ContextLevel.FUNCTION, rule_confidence=0.6, llm_context_level=None,
        final_context_level=ContextLevel.FUNCTION, extra_requests=[], skip_review=False,
        reason="rules_only", provenance=Provenance(level="rule", skip="rule"))
    return item.model_copy(update=update)


def test_the_order_of_the_review_budget() -> None:
    units = {
        "docs": (UnitPriority(risk="high", noise=True), 10),
        "critical": (UnitPriority(risk="critical", confidence=0.5), 5000),
        "high big": (UnitPriority(risk="high", confidence=0.9), 900),
        "high small": (UnitPriority(risk="high", confidence=0.9), 100),
        "high unsure": (UnitPriority(risk="high", confidence=0.4), 50),
        "high marked": (UnitPriority(risk="high", marked=True, confidence=0.1), 4000),
        "high test": (UnitPriority(risk="high", confidence=1.0, score=31.0), 10),
        "high code": (UnitPriority(risk="high", confidence=0.2, score=52.5), 5000),
        "low": (UnitPriority(risk="low", confidence=1.0), 1),
        "unknown": (UnitPriority(risk="unknown"), 1),
        "medium": (UnitPriority(risk="medium"), 1),
    }
    order = sorted(units, key=lambda name: allocation_key(*units[name]))
    assert order == ["critical", "high marked", "high code", "high test", "high small",
                     "high big", "high unsure", "medium", "low", "unknown", "docs"]


def test_what_the_person_marked() -> None:
    assert not person_marked(_item())
    raised = apply_override(_item(), UnitOverride(level=ContextLevel.FULL_FILE))
    assert raised.provenance.level == "user" and person_marked(raised)
    lowered = apply_override(_item(), UnitOverride(level=ContextLevel.DIFF_ONLY))
    assert lowered.provenance.level == "user" and not person_marked(lowered)
    asked = apply_override(_item(), UnitOverride(add_requests=[PreviousVersionRequest()]))
    assert person_marked(asked)
    kept = apply_override(_item(skip_review=True), UnitOverride(skip=False))
    assert person_marked(kept)
    skipped = apply_override(_item(), UnitOverride(skip=True))
    assert not person_marked(skipped)


def test_noise_tags_and_a_marked_unit_is_never_noise() -> None:
    assert is_noise(["doc_file"]) and is_noise(["lockfile", "config_file"])
    assert is_noise(["only_comments"]) and is_noise(["generated_or_vendored"])
    assert not is_noise(["security_sensitive", "in_single_function"])
    assert unit_priority(_item(), ["only_whitespace"]) == UnitPriority(
        risk="medium", confidence=0.6, noise=True)
    raised = apply_override(_item(), UnitOverride(level=ContextLevel.FULL_FILE))
    assert unit_priority(raised, ["doc_file"]) == UnitPriority(risk="medium", marked=True,
                                                               confidence=0.6, noise=False)
    assert unit_priority(_item(risk=None, rule_confidence=None), []).risk == "unknown"
    assert unit_priority(_item(priority=47.5), []).score == 47.5
