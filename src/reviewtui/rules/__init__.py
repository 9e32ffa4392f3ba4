"""The rule stage (seed 003): rule packs, language handlers, the confidence formula, scanners.

Entry point: ``RuleEngine(load_rule_pack(root).pack).evaluate_all(units)`` -> one
``RuleSuggestion`` per unit (level, confidence, risk, notes, typed extra requests), written
into the review index by ``scored_review_index``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewtui import lazy_exports

# At once: the function ``confidence`` shares its module's name, which importing the module
# alone would bind here (and the module is two dataclasses).
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

if TYPE_CHECKING:
    from reviewtui.rules.engine import RuleEngine, apply_scanner_findings
    from reviewtui.rules.handlers import RuleContext, RuleHandler
    from reviewtui.rules.index_fields import scored_review_index
    from reviewtui.rules.packs import LoadedPack, check_pack_file, load_rule_pack
    from reviewtui.rules.registry import register_rule_handler
    from reviewtui.rules.schema import RulePack
    from reviewtui.rules.suggestion import Request, RuleMatch, RuleSuggestion

# Each name from its module when first asked for: a change read from its snapshot needs the
# packs and suggestions, not the engine, its handlers and their compiled patterns (~0.1 s).
_LAZY = {"RuleEngine": "reviewtui.rules.engine",
         "apply_scanner_findings": "reviewtui.rules.engine",
         "RuleContext": "reviewtui.rules.handlers", "RuleHandler": "reviewtui.rules.handlers",
         "scored_review_index": "reviewtui.rules.index_fields",
         "LoadedPack": "reviewtui.rules.packs", "check_pack_file": "reviewtui.rules.packs",
         "load_rule_pack": "reviewtui.rules.packs",
         "register_rule_handler": "reviewtui.rules.registry",
         "RulePack": "reviewtui.rules.schema",
         "Request": "reviewtui.rules.suggestion", "RuleMatch": "reviewtui.rules.suggestion",
         "RuleSuggestion": "reviewtui.rules.suggestion"}


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

__getattr__ = lazy_exports(__name__, _LAZY, globals())
