"""Write rule suggestions (and scanner findings) into the review_index of seed 001.

The units stage builds the index without rule fields; this is where ``rule_context_level``,
``rule_confidence``, ``rule_notes``, ``rule_extra_requests`` and ``agent_decision`` are filled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import TypeAdapter

from reviewtui.models import (
    AgentDecision,
    ExtraRequest,
    IndexUnit,
    ReviewIndex,
    ScannerFinding,
)
from reviewtui.rules.suggestion import RuleSuggestion

_REQUESTS: TypeAdapter[list[ExtraRequest]] = TypeAdapter(list[ExtraRequest])


def rule_fields(suggestion: RuleSuggestion) -> dict[str, object]:
    return {
        "rule_context_level": suggestion.context_level,
        "rule_confidence": suggestion.confidence,
        "rule_notes": suggestion.notes,
        "rule_extra_requests": _REQUESTS.validate_python(
            [r.as_dict() for r in suggestion.extra_requests]),
        "agent_decision": AgentDecision(context_level=suggestion.context_level,
                                        priority=suggestion.priority),
        "role": suggestion.role,
        "priority_score": suggestion.priority_score,
        "rule_skip_reason": suggestion.skip_reason,
    }


def fill_rule_fields(
    index: ReviewIndex,
    suggestions: Mapping[str, RuleSuggestion],
    findings: Mapping[str, Sequence[ScannerFinding]] | None = None,
) -> ReviewIndex:
    units: list[IndexUnit] = []
    for unit in index.units:
        update: dict[str, object] = {}
        suggestion = suggestions.get(unit.unit_id)
        if suggestion is not None:
            update.update(rule_fields(suggestion))
        if findings is not None:
            update["scanner_issues"] = list(findings.get(unit.unit_id, ()))
        units.append(unit.model_copy(update=update))
    distribution = {risk: 0 for risk in ("critical", "high", "medium", "low")}
    for suggestion in suggestions.values():
        distribution[suggestion.risk.value] += 1
    summary = index.summary.model_copy(update={"risk_distribution": distribution})
    return index.model_copy(update={"units": units, "summary": summary})
