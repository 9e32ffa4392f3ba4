"""The rule stage (seed 003): rule packs, language handlers, the confidence formula, scanners.

Entry point: ``RuleEngine(load_rule_pack(root).pack).evaluate_all(units)`` -> one
``RuleSuggestion`` per unit (level, confidence, risk, notes, typed extra requests), written
into the review index by ``scored_review_index``.
"""

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
from reviewtui.rules.engine import RuleEngine, apply_scanner_findings
from reviewtui.rules.handlers import RuleContext, RuleHandler
from reviewtui.rules.index_fields import scored_review_index
from reviewtui.rules.packs import LoadedPack, check_pack_file, load_rule_pack
from reviewtui.rules.registry import register_rule_handler
from reviewtui.rules.schema import RulePack
from reviewtui.rules.suggestion import Request, RuleMatch, RuleSuggestion

__all__ = [
    "CONFIDENCE_DEFAULT",
    "CONFIDENCE_HIGH",
    "CONFIDENCE_LOW",
    "CONFIDENCE_MEDIUM",
    "ConfidenceFactors",
    "LoadedPack",
    "Request",
    "RiskFactors",
    "RiskLevel",
    "RuleContext",
    "RuleEngine",
    "RuleHandler",
    "RuleMatch",
    "RulePack",
    "RuleSuggestion",
    "apply_scanner_findings",
    "check_pack_file",
    "confidence",
    "final_confidence",
    "load_rule_pack",
    "register_rule_handler",
    "scored_review_index",
]
