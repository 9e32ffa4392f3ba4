"""The order in which a review's units get the review budget -- decided here and nowhere else.

When the kept units want more than the review budget, the budget goes to whole units in this
order (issue 16): noise last; then risk, high to low; then the units the person marked (raised
their level, kept them against the plan, or added requests); then the rules' priority score
(``rules.priority``: role, behaviour signals, confidence, size, reach -- so a test or a
translation comes after code of the same risk); then rule confidence, high to low; then size,
small first (more units reviewed for the same tokens). A unit that does not fit is deferred
whole rather than shredded. ``allocation_key`` is the one sort key.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewtui.plan.schema import FusedItem

RISK_CLASSES = ("critical", "high", "medium", "low", "unknown")
_RISK_RANK = {risk: rank for rank, risk in enumerate(RISK_CLASSES)}
# Docs-only, lockfiles, generated code, comment- or layout-only changes, binaries; and what the
# rules know to be as quiet: translations, stylesheets and images, tables of numbers, type
# annotations alone, type stubs.
NOISE_TAGS = frozenset({"doc_file", "lockfile", "generated_or_vendored", "only_comments",
                        "only_whitespace", "binary", "translation_file", "asset_file",
                        "only_data", "annotations_only", "type_stub"})


@dataclass(frozen=True, slots=True)
class UnitPriority:
    """What the allocation order looks at, besides the unit's size."""

    risk: str = "unknown"  # one of RISK_CLASSES
    marked: bool = False  # the person raised, kept or added requests to this unit
    confidence: float = 0.0  # the rules' confidence
    noise: bool = False
    score: float = 0.0  # the rules' priority score (FusedItem.priority), higher first


def risk_class(risk: str | None) -> str:
    return risk if risk in _RISK_RANK else "unknown"


def is_noise(tags: Iterable[str]) -> bool:
    return not NOISE_TAGS.isdisjoint(tags)


def person_marked(item: FusedItem) -> bool:
    """The person raised the unit's level, kept it against the plan, or added requests."""
    provenance = item.provenance
    if "user" in provenance.extra_requests:
        return True
    if provenance.skip == "user" and not item.skip_review:
        return True
    if provenance.level != "user":
        return False
    from reviewtui.plan.fusion import fuse_level  # the plan stage (and its LLM client) is big

    fused, _ = fuse_level(item.rule_context_level, item.rule_confidence, item.llm_context_level)
    return item.final_context_level.rank > fused.rank


def unit_priority(item: FusedItem, tags: Iterable[str]) -> UnitPriority:
    """The priority facts of one planned unit; a unit the person marked is never noise."""
    marked = person_marked(item)
    return UnitPriority(risk=risk_class(item.risk), marked=marked,
                        confidence=item.rule_confidence or 0.0,
                        noise=is_noise(tags) and not marked, score=item.priority or 0.0)


def allocation_key(priority: UnitPriority,
                   tokens: int) -> tuple[bool, int, bool, float, float, int]:
    """Sort key, first gets the budget first: noise, risk, marks, the priority score,
    confidence, then size."""
    return (priority.noise, _RISK_RANK[risk_class(priority.risk)], not priority.marked,
            -priority.score, -priority.confidence, tokens)
