"""Suggestions rebuilt from their plain-tuple records are the suggestions that were kept.

``records`` fills a rebuilt suggestion's instance dictionary at once instead of running the
frozen dataclass' constructor; the object must be indistinguishable from a constructed one.
"""

from __future__ import annotations

import dataclasses

import pytest

from reviewtui.analysis.records import flat_suggestion, rebuilt
from reviewtui.models import ContextLevel
from reviewtui.rules.compiled import Rule, Stage
from reviewtui.rules.confidence import ConfidenceFactors, RiskFactors, RiskLevel
from reviewtui.rules.suggestion import Request, RuleMatch, RuleSuggestion


def _suggestion(**changes: object) -> RuleSuggestion:
    rule = Rule(Stage.KEYWORD, "base.security_keywords", "keyword:security", RiskLevel.HIGH,
                ContextLevel.FILE_CONTEXT, ("callers",), frozenset({"test_file"}), False)
    made = RuleSuggestion(
        ContextLevel.FUNCTION, 0.75, RiskLevel.HIGH, "keyword:security",
        (Request("callers", "login"),), (RuleMatch(rule, 0.5, "token"),),
        ConfidenceFactors(rule_specificity=2, pattern_precision=0.5,
                          context_availability=1.0, language_bonus=0.1),
        RiskFactors(change_scope=12, security_sensitive=True), RiskLevel.MEDIUM, "rules",
        learned="lr", scanner_notes=("ruff: E1",), role="test",
        priority_parts=(("risk", 40.0),), line_signals=(0.5, 1.0), tokens="login token",
        skip_reason=None)
    return dataclasses.replace(made, **changes) if changes else made


@pytest.mark.parametrize("changes", [{}, {"learned": None, "scanner_notes": ()},
                                     {"skip_reason": "lockfile", "role": "generated"}])
def test_a_rebuilt_suggestion_is_a_constructed_one(changes: dict[str, object]) -> None:
    kept = _suggestion(**changes)
    again = rebuilt(flat_suggestion(kept))
    assert type(again) is RuleSuggestion
    assert again == kept and vars(again) == vars(kept) and repr(again) == repr(kept)
    assert rebuilt(flat_suggestion(kept), reach=3) == dataclasses.replace(kept, reach=3)
    assert dataclasses.replace(again, notes="n") == dataclasses.replace(kept, notes="n")
    with pytest.raises(dataclasses.FrozenInstanceError):
        again.notes = "changed"  # type: ignore[misc]
