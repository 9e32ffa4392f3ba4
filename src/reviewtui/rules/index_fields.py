"""Write rule suggestions (and scanner findings) into the review_index of seed 001.

The units stage builds the index without rule fields; this is where ``rule_context_level``,
``rule_confidence``, ``rule_notes``, ``rule_extra_requests`` and ``agent_decision`` are filled.
A large change repeats a few dozen distinct request lists and decisions over thousands of units:
each distinct one is validated once and its models are shared (they are never mutated).
(``model_construct`` is no shortcut here: it is slower than pydantic-core's validation.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from reviewtui.models import (
    AgentDecision,
    ExtraRequest,
    ReviewIndex,
    ScannerFinding,
)
from reviewtui.rules.suggestion import Request, RuleSuggestion

if TYPE_CHECKING:
    from reviewtui.git.model import ChangeSet
    from reviewtui.units.model import ReviewUnit

_REQUESTS: TypeAdapter[list[ExtraRequest]] = TypeAdapter(list[ExtraRequest])


class _Validated:
    """Each distinct request list and decision, validated once per run."""

    def __init__(self) -> None:
        self._requests: dict[tuple[Request, ...], list[ExtraRequest]] = {}
        self._decisions: dict[tuple[Any, str], AgentDecision] = {}

    def requests(self, requests: tuple[Request, ...]) -> list[ExtraRequest]:
        found = self._requests.get(requests)
        if found is None:
            found = self._requests[requests] = _REQUESTS.validate_python(
                [r.as_dict() for r in requests])
        return list(found)

    def decision(self, suggestion: RuleSuggestion) -> AgentDecision:
        key = (suggestion.context_level, suggestion.priority)
        found = self._decisions.get(key)
        if found is None:
            found = self._decisions[key] = AgentDecision(context_level=suggestion.context_level,
                                                         priority=suggestion.priority)
        return found


def rule_fields(suggestion: RuleSuggestion, validated: _Validated | None = None,
                ) -> dict[str, object]:
    validated = validated or _Validated()
    confidence = suggestion.confidence
    score = suggestion.priority_score
    return {
        "rule_context_level": suggestion.context_level,
        # what validating the float fields did to an int
        "rule_confidence": float(confidence) if isinstance(confidence, int) else confidence,
        "rule_notes": suggestion.notes,
        "rule_extra_requests": validated.requests(suggestion.extra_requests),
        "agent_decision": validated.decision(suggestion),
        "role": suggestion.role,
        "priority_score": float(score) if isinstance(score, int) else score,
        "rule_skip_reason": suggestion.skip_reason,
    }


def scored_review_index(
    change_set: ChangeSet,
    units: list[ReviewUnit],
    suggestions: Mapping[str, RuleSuggestion],
    findings: Mapping[str, Sequence[ScannerFinding]] | None = None,
) -> ReviewIndex:
    """The review index of ``units`` with each one's rule fields (and, given ``findings``, its
    scanner findings), every unit's model validated once with them -- not built without them
    and copied with them (8,000 copies were half the index's time on a large change). The
    rule fields are valid values of their fields (a confidence is clipped to [0, 1]), so
    validating them gives what a copy would hold."""
    from reviewtui.units.index import build_review_index

    validated = _Validated()

    def fields(unit: ReviewUnit) -> dict[str, object]:
        suggestion = suggestions.get(unit.unit_id)
        extra = rule_fields(suggestion, validated) if suggestion is not None else {}
        if findings is not None:
            extra["scanner_issues"] = list(findings.get(unit.unit_id, ()))
        return extra

    index = build_review_index(change_set, units, fields)
    distribution = {risk: 0 for risk in ("critical", "high", "medium", "low")}
    for suggestion in suggestions.values():
        distribution[suggestion.risk.value] += 1
    summary = index.summary.model_copy(update={"risk_distribution": distribution})
    return index.model_copy(update={"summary": summary})
