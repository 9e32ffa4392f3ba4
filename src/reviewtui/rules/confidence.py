"""The seed's confidence formula (seed 003), exactly as specified.

    confidence = match_certainty * 0.6 + risk_bonus + 0.15      (clipped to [0, 1], 2 decimals)
    match_certainty = 0.3 + min(specificity * 0.06, 0.3) + precision * 0.3
                      + context * 0.2 + language_bonus          (at most 1.0)
    risk_bonus = {critical: .30, high: .20, medium: .10, low: 0}

Risk level: security-sensitive changes are ``critical`` when large (> 50 changed lines) and
``high`` otherwise; every other change scores change scope (>100: +3, >50: +2, >20: +1),
change type (delete +2, modify +1), pattern risk and symbol risk (high +2, medium +1), and maps
the score to critical (>= 6), high (>= 4), medium (>= 2) or low.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

CONFIDENCE_HIGH = 0.8
CONFIDENCE_MEDIUM = 0.5
CONFIDENCE_LOW = 0.3
CONFIDENCE_DEFAULT = 0.35
CONFIDENCE_MIN = 0.3
CONFIDENCE_MAX = 0.45


class RiskLevel(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


RISK_BONUS: dict[RiskLevel, float] = {
    RiskLevel.CRITICAL: 0.30,
    RiskLevel.HIGH: 0.20,
    RiskLevel.MEDIUM: 0.10,
    RiskLevel.LOW: 0.0,
}
_LEVEL_POINTS = {"high": 2, "medium": 1, "low": 0, "critical": 2}
_LARGE_SECURITY_CHANGE = 50


@dataclass(frozen=True, slots=True)
class ConfidenceFactors:
    rule_specificity: int = 0  # matched conditions, 0-5
    pattern_precision: float = 0.0  # exact 1.0, partial 0.5
    context_availability: float = 0.0  # completeness of symbol information, 0-1
    language_bonus: float = 0.0  # language-specific rule, 0-0.1

    def match_certainty(self) -> float:
        value = (
            0.3
            + min(self.rule_specificity * 0.06, 0.3)
            + self.pattern_precision * 0.3
            + self.context_availability * 0.2
            + self.language_bonus
        )
        return min(1.0, value)


@dataclass(frozen=True, slots=True)
class RiskFactors:
    change_scope: int = 0  # changed lines
    security_sensitive: bool = False
    change_type: str = "modify"  # add | modify | delete | rename
    pattern_risk: str = "medium"  # low | medium | high
    symbol_risk: str = "low"  # low | medium | high

    def score(self) -> int:
        points = 3 if self.change_scope > 100 else 2 if self.change_scope > 50 else (
            1 if self.change_scope > 20 else 0)
        points += {"delete": 2, "modify": 1}.get(self.change_type, 0)
        points += _LEVEL_POINTS.get(self.pattern_risk, 0)
        points += _LEVEL_POINTS.get(self.symbol_risk, 0)
        return points

    def level(self) -> RiskLevel:
        if self.security_sensitive:
            return (RiskLevel.CRITICAL if self.change_scope > _LARGE_SECURITY_CHANGE
                    else RiskLevel.HIGH)
        score = self.score()
        if score >= 6:
            return RiskLevel.CRITICAL
        if score >= 4:
            return RiskLevel.HIGH
        if score >= 2:
            return RiskLevel.MEDIUM
        return RiskLevel.LOW


def final_confidence(match_certainty: float, risk: RiskLevel) -> float:
    """``match_certainty * 0.6 + risk bonus + 0.15``, clipped to [0, 1], two decimals."""
    value = match_certainty * 0.6 + RISK_BONUS[risk] + 0.15
    return round(max(0.0, min(1.0, value)), 2)


def confidence(factors: ConfidenceFactors, risk: RiskFactors) -> tuple[float, RiskLevel]:
    level = risk.level()
    return final_confidence(factors.match_certainty(), level), level
