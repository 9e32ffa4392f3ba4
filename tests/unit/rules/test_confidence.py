"""Seed 003's confidence formula, including both of its worked examples."""

from __future__ import annotations

import pytest

from reviewtui.rules import ConfidenceFactors, RiskFactors, RiskLevel, confidence, final_confidence


def test_worked_example_1_security_sensitive_large_change() -> None:
    factors = ConfidenceFactors(rule_specificity=3, pattern_precision=1.0,
                                context_availability=0.8, language_bonus=0.05)
    risk = RiskFactors(change_scope=60, security_sensitive=True)
    assert factors.match_certainty() == pytest.approx(0.99)
    assert risk.level() is RiskLevel.CRITICAL
    assert confidence(factors, risk) == (1.0, RiskLevel.CRITICAL)


def test_worked_example_2_ordinary_small_change() -> None:
    factors = ConfidenceFactors(rule_specificity=1, pattern_precision=0.5,
                                context_availability=0.3)
    risk = RiskFactors(change_scope=10, change_type="modify")  # pattern risk medium: 1 + 1 = 2
    assert factors.match_certainty() == pytest.approx(0.57)
    assert risk.level() is RiskLevel.MEDIUM
    assert confidence(factors, risk) == (0.59, RiskLevel.MEDIUM)


@pytest.mark.parametrize(
    ("risk", "level"),
    [
        (RiskFactors(change_scope=10, security_sensitive=True), RiskLevel.HIGH),
        (RiskFactors(change_scope=120, change_type="delete", pattern_risk="high"),
         RiskLevel.CRITICAL),  # 3 + 2 + 2
        (RiskFactors(change_scope=60, change_type="modify", pattern_risk="medium"),
         RiskLevel.HIGH),  # 2 + 1 + 1
        (RiskFactors(change_scope=5, change_type="add", pattern_risk="low"), RiskLevel.LOW),
    ],
)
def test_risk_levels(risk: RiskFactors, level: RiskLevel) -> None:
    assert risk.level() is level


def test_match_certainty_and_confidence_are_capped() -> None:
    factors = ConfidenceFactors(rule_specificity=9, pattern_precision=1.0,
                                context_availability=1.0, language_bonus=0.1)
    assert factors.match_certainty() == 1.0
    assert final_confidence(1.0, RiskLevel.CRITICAL) == 1.0
    assert final_confidence(0.3, RiskLevel.LOW) == 0.33
