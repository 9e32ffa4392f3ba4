"""The rule stage (seed 003): confidence scoring now; handlers, packs and scanners to come."""

from __future__ import annotations

from reviewtui.rules.confidence import (
    CONFIDENCE_DEFAULT,
    CONFIDENCE_HIGH,
    CONFIDENCE_LOW,
    CONFIDENCE_MEDIUM,
    ConfidenceFactors,
    RiskFactors,
    RiskLevel,
    confidence,
    final_confidence,
)

__all__ = [
    "CONFIDENCE_DEFAULT",
    "CONFIDENCE_HIGH",
    "CONFIDENCE_LOW",
    "CONFIDENCE_MEDIUM",
    "ConfidenceFactors",
    "RiskFactors",
    "RiskLevel",
    "confidence",
    "final_confidence",
]
