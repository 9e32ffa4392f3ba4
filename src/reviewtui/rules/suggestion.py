"""What the rule stage says about one unit, with everything needed to explain it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, replace
from typing import Any

from reviewtui.models import ContextLevel
from reviewtui.rules.compiled import Rule
from reviewtui.rules.confidence import ConfidenceFactors, RiskFactors, RiskLevel

# The priority parts counted for the whole change (``rules.priority.with_reach``), not by the
# per-file rules: reach, the cut of a risk class many units share, the learned part.
CHANGE_PARTS = ("reach", "shared_risk", "learned")


@dataclass(frozen=True, slots=True)
class Request:
    """A rule-side extra request; ``symbol`` is the concrete name to search for."""

    type: str
    symbol: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type} if self.symbol is None else {"type": self.type,
                                                                 "symbol": self.symbol}


@dataclass(frozen=True, slots=True)
class RuleMatch:
    rule: Rule
    precision: float  # exact 1.0, partial 0.5
    evidence: str  # the decorator, path part, name, keyword or tag that matched


@dataclass(frozen=True)
class RuleSuggestion:
    context_level: ContextLevel
    confidence: float
    risk: RiskLevel
    notes: str
    extra_requests: tuple[Request, ...]
    matches: tuple[RuleMatch, ...]
    factors: ConfidenceFactors
    risk_factors: RiskFactors
    formula_risk: RiskLevel
    decided_by: str
    learned: str | None = None
    scanner_notes: tuple[str, ...] = field(default_factory=tuple)
    role: str = "code"
    # (part, points) of the priority score (``reviewtui.rules.priority``); reach when counted
    priority_parts: tuple[tuple[str, float], ...] = ()
    reach: int | None = None  # files that use the unit's definitions, once counted
    # what the changed lines do (rules.triage_features.LINE_FEATURES, in that order) and their
    # tokens (space-separated: one string unpickles far faster than hundreds), computed with
    # the rules so that the per-file cache keeps them: the learned priority reads them
    line_signals: tuple[float, ...] = ()
    tokens: str = ""
    # a low-risk unit of a file kind nobody reviews as code: skipped without a plan, why
    skip_reason: str | None = None

    @property
    def reach_counted(self) -> bool:
        return self.reach is not None

    def uncounted(self) -> RuleSuggestion:
        """This suggestion as the rules gave it: without reach and the learned part."""
        if self.reach is None and not any(p[0] in CHANGE_PARTS for p in self.priority_parts):
            return self
        return replace(self, reach=None, priority_parts=tuple(
            p for p in self.priority_parts if p[0] not in CHANGE_PARTS))

    @property
    def priority(self) -> str:
        """The seed's ``agent_decision.priority``: the risk class."""
        return self.risk.value

    @property
    def priority_score(self) -> float:
        return round(sum(points for _, points in self.priority_parts), 1)


SUGGESTION_FIELDS = tuple(item.name for item in dataclasses.fields(RuleSuggestion))
_new = object.__new__


def suggestion_of(values: tuple[Any, ...]) -> RuleSuggestion:
    """``RuleSuggestion(*values)`` (every field, in order) without the frozen dataclass'
    constructor, which sets its 18 fields one ``object.__setattr__`` at a time: its instance
    dictionary is filled at once (4x faster; a suggestion per unit scored, and per unit a
    record gives back)."""
    made: RuleSuggestion = _new(RuleSuggestion)
    made.__dict__.update(zip(SUGGESTION_FIELDS, values, strict=True))
    return made
