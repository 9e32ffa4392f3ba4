"""A unit's role and its priority: the order in which a reviewer (and the model) should look.

Risk says *how bad* a change could be, in four classes; a reviewer with 300 units needs an order.
The priority is a score out of about 100, made of parts that ``rules explain`` lists:

* **risk** — the unit's class (critical 40, high 30, medium 15, low 0);
* **role** — what kind of file it is (``[roles]`` in the pack: tests, docs, translations and
  generated files come after code at the same risk);
* **signals** — how many distinct rules found risky *behaviour* in the changed lines (escaping,
  SQL built from strings, deserialisation, redirects...), 6 points each, at most 18;
* **confidence** — the rules' confidence, up to 10;
* **size** — changed lines, logarithmic, at most 8 (bigger is more to read, not more risk);
* **reach** — files that use a changed public definition, logarithmic, at most 10; it needs a
  project-wide search, so it is counted only where the order is used (``index --sort
  priority``, the workbench, the planner, the bundle budget) and is ``None`` elsewhere;
* **shared_risk** — counted with the reach: when many units of one change are high or
  critical, their class says less about which to read first, so a high or critical unit's risk
  points are cut by ``shared_risk_cut`` of the change's high share (none up to 10 %, all of
  them from 60 %). On SZZ's bugs in changes of 10+ units it lifted every group of projects a
  little and none down (``benchmarks/README.md``, session 11);
* **learned** — the learned model's part (``rules.triage_model``), counted with the reach: what
  the changed lines do and where the unit stands in its change, weighted by weights fitted on
  real bug-introducing commits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from reviewtui.rules.compiled import RISK_RANK, Stage
from reviewtui.rules.confidence import RiskLevel
from reviewtui.rules.schema import RoleRule
from reviewtui.rules.suggestion import CHANGE_PARTS, RuleMatch, RuleSuggestion

RISK_POINTS = {RiskLevel.CRITICAL: 40.0, RiskLevel.HIGH: 30.0, RiskLevel.MEDIUM: 15.0,
               RiskLevel.LOW: 0.0}
SIGNAL_POINTS = 6.0
MAX_SIGNALS = 3
CONFIDENCE_POINTS = 10.0
MAX_SIZE_POINTS = 8.0
MAX_REACH_POINTS = 10.0
# The share of a change's units that are high or critical above which their risk points are
# cut, and how fast: chosen by leave-one-project-out on the development projects only.
SHARED_RISK_FLOOR = 0.1
SHARED_RISK_SLOPE = 2.0
SHARED_RISK = frozenset({RiskLevel.HIGH, RiskLevel.CRITICAL})
_BEHAVIOUR_STAGES = frozenset({Stage.DECORATOR, Stage.KEYWORD, Stage.PATTERN})


@dataclass(frozen=True, slots=True)
class Role:
    name: str
    max_risk: RiskLevel | None
    priority: float


CODE = Role("code", None, 0.0)


def role_of(tags: frozenset[str] | set[str], roles: Mapping[str, RoleRule]) -> Role:
    """The first role (in pack order) whose tags the unit has; ``code`` otherwise."""
    for name, rule in roles.items():
        if tags.intersection(rule.tags):
            return Role(name, RiskLevel(rule.max_risk), rule.priority)
    return CODE


def cap_risk(risk: RiskLevel, role: Role, matches: Sequence[RuleMatch]
             ) -> tuple[RiskLevel, str | None]:
    """``risk`` capped by the role, and a note when capped. A match that goes beyond the cap
    (a skipped security test) lifts it to that rule's own risk, not to anything the formula
    says (size, for one, stays capped)."""
    cap = role.max_risk
    if cap is None or RISK_RANK[risk] <= RISK_RANK[cap]:
        return risk, None
    beyond = [m.rule.risk for m in matches if m.rule.beyond_role_cap]
    if beyond:
        lifted = max(beyond, key=lambda r: RISK_RANK[r])
        cap = lifted if RISK_RANK[lifted] > RISK_RANK[cap] else cap
        if RISK_RANK[risk] <= RISK_RANK[cap]:
            return risk, None
    return cap, f"role={role.name} caps risk at {cap.value} (was {risk.value})"


def behaviour_signals(matches: Sequence[RuleMatch]) -> list[str]:
    """Rules that found high-risk behaviour in the changed lines (not paths, names or size)."""
    labels = {m.rule.label for m in matches
              if (m.rule.stage in _BEHAVIOUR_STAGES
                  or (m.rule.stage is Stage.SYMBOL and m.rule.language_specific))
              and RISK_RANK[m.rule.risk] >= RISK_RANK[RiskLevel.HIGH]}
    return sorted(labels)


def priority_parts(risk: RiskLevel, role: Role, signals: int, confidence: float,
                   changed_lines: int, reach: int | None = None) -> tuple[tuple[str, float], ...]:
    parts = [
        ("risk", RISK_POINTS[risk]),
        ("role", role.priority),
        ("signals", SIGNAL_POINTS * min(signals, MAX_SIGNALS)),
        ("confidence", round(CONFIDENCE_POINTS * confidence, 1)),
        ("size", round(min(MAX_SIZE_POINTS, 1.2 * math.log2(1 + changed_lines)), 1)),
    ]
    if reach is not None:
        parts.append(("reach", reach_points(reach)))
    return tuple(parts)


def total(parts: tuple[tuple[str, float], ...]) -> float:
    return round(sum(points for _, points in parts), 1)


def reach_points(reach: int) -> float:
    return round(min(MAX_REACH_POINTS, 3.0 * math.log2(1 + reach)), 1)


def shared_risk_cut(high_share: float) -> float:
    """The share of a high or critical unit's risk points cut when ``high_share`` of its
    change's units are high or critical."""
    return min(1.0, SHARED_RISK_SLOPE * max(0.0, high_share - SHARED_RISK_FLOOR))


def with_reach(suggestion: RuleSuggestion, reach: int, learned: float | None = None,
               high_share: float = 0.0) -> RuleSuggestion:
    """``suggestion`` whose priority also counts ``reach`` (files using its definitions), the
    cut of its risk points when ``high_share`` of its change is high or critical too and,
    given, the learned model's points (``rules.triage_model``)."""
    parts = tuple(p for p in suggestion.priority_parts if p[0] not in CHANGE_PARTS)
    parts = (*parts, ("reach", reach_points(reach)))
    cut = shared_risk_cut(high_share) if suggestion.risk in SHARED_RISK else 0.0
    if cut:
        parts = (*parts, ("shared_risk", -round(cut * RISK_POINTS[suggestion.risk], 1)))
    if learned is not None:
        parts = (*parts, ("learned", learned))
    return replace(suggestion, priority_parts=parts, reach=reach)
