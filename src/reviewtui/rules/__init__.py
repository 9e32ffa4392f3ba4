"""The rule stage (seed 003): rule packs, language handlers, the confidence formula, scanners.

Entry point: ``RuleEngine(load_rule_pack(root).pack).evaluate_all(units)`` -> one
``RuleSuggestion`` per unit (level, confidence, risk, notes, typed extra requests), written
into the review index by ``scored_review_index``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
_HOMES = {
    "RuleEngine": "engine", "apply_scanner_findings": "engine",
    "RuleContext": "handlers", "RuleHandler": "handlers",
    "scored_review_index": "index_fields",
    "LoadedPack": "packs", "check_pack_file": "packs", "load_rule_pack": "packs",
    "register_rule_handler": "registry",
    "RulePack": "schema",
    "Request": "suggestion", "RuleMatch": "suggestion", "RuleSuggestion": "suggestion",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


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
