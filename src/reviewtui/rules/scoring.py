"""From matches to a suggestion: level, risk, confidence (seed formula), requests and notes.

All matches count together. The level comes from the strongest-risk match (ties: the larger
level), never below the size signal; risk is the seed's risk score, never below what a matched
rule declares (capped at ``high``: only the score -- security plus size -- says ``critical``).
Confidence is exactly ``match_certainty * 0.6 + risk_bonus + 0.15``; with no match the unit
falls back to ``function`` with a confidence inside the seed's default range [0.30, 0.45].
A ``decisive`` pattern (a mode-only change) alone decides level and risk when it matches.
The file's role (tests, docs, translations, generated code) then caps the risk, unless a
matched rule goes beyond the cap; the priority score is made of the final risk, the role, the
behaviour signals, the confidence and the size (``reviewtui.rules.priority``).
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewtui.models import ContextLevel
from reviewtui.rules.compiled import RISK_RANK, Stage, normalise_level
from reviewtui.rules.confidence import (
    CONFIDENCE_MAX,
    CONFIDENCE_MIN,
    ConfidenceFactors,
    RiskFactors,
    RiskLevel,
    final_confidence,
)
from reviewtui.rules.priority import (
    CODE,
    Role,
    behaviour_signals,
    cap_risk,
    priority_parts,
)
from reviewtui.rules.schema import LearnedRule
from reviewtui.rules.suggestion import Request, RuleMatch, RuleSuggestion, suggestion_of
from reviewtui.rules.symbols import SymbolFacts
from reviewtui.rules.triage_features import line_features
from reviewtui.rules.unit_tokens import unit_tokens
from reviewtui.units.model import ReviewUnit

MAX_REQUESTS = 8
# A learned rule never lowers a unit fusion treats as high risk: high or critical risk, or one
# of the tags for which fusion never lets a unit be skipped -- nor a test of security code
# (security_test: weakening it matters, whatever the test role caps its risk at).
PROTECTED_TAGS = frozenset({"security_sensitive", "config_file", "routing_file",
                            "security_test"})
_RISK_BY_RANK = {rank: risk for risk, rank in RISK_RANK.items()}
_PATTERN_RISK = {RiskLevel.LOW: "low", RiskLevel.MEDIUM: "medium", RiskLevel.HIGH: "high",
                 RiskLevel.CRITICAL: "high"}


def context_availability(unit: ReviewUnit) -> float:
    """How complete the symbol information is: none, language only, parsed, parsed + symbols."""
    if unit.language is None:
        return 0.0
    if not unit.parsed:
        return 0.3
    return 0.8 if unit.scopes else 0.6


def _strength(match: RuleMatch) -> tuple[int, int, int]:
    return RISK_RANK[match.rule.risk], match.rule.level.rank, -match.rule.stage


def _requests(ordered: Sequence[RuleMatch], symbols: SymbolFacts) -> tuple[Request, ...]:
    out: dict[Request, None] = {}
    for match in ordered:
        for request_type in match.rule.requests:
            names = symbols.symbols_for(request_type)
            if names:
                for name in names:
                    out.setdefault(Request(request_type, name))
            else:
                out.setdefault(Request(request_type))
    for request_type, name in symbols.hints():
        out.pop(Request(request_type), None)  # a named request beats the bare one
        out.setdefault(Request(request_type, name))
    return tuple(out)[:MAX_REQUESTS]


def _notes(risk: RiskLevel, level: ContextLevel, decided_by: str,
           matches: Sequence[RuleMatch], learned: str | None, capped: str | None) -> str:
    parts = [f"risk={risk.value}", f"level={level.value} by {decided_by}"]
    if capped:
        parts.append(capped)
    if matches:
        parts.append("matched: " + ", ".join(f"{m.rule.label}({m.evidence})" for m in matches))
    else:
        parts.append("no rule matched (fallback)")
    if learned:
        parts.append(learned)
    return "; ".join(parts)


def learned_label(rule: LearnedRule) -> str:
    """``test_file+in_single_function`` (``in tests/**`` when the rule has path globs)."""
    label = "+".join(rule.tags)
    return f"{label} in {','.join(rule.paths)}" if rule.paths else label


def _apply_learned(learned: LearnedRule, unit: ReviewUnit, risk: RiskLevel, level: ContextLevel,
                   decided_by: str, confidence: float,
                   ) -> tuple[ContextLevel, str, float, str]:
    """The learned rule's level, unless it would lower a high-risk unit (then a note why not)."""
    learned_level = normalise_level(learned.context_level)
    label = learned_label(learned)
    protected = sorted(PROTECTED_TAGS.intersection(unit.tags))
    high_risk = RISK_RANK[risk] >= RISK_RANK[RiskLevel.HIGH] or protected
    if high_risk and learned_level.rank < level.rank:
        why = f"{risk.value} risk" if not protected else f"{risk.value} risk, {protected[0]}"
        return level, decided_by, confidence, (
            f"learned {label} -> {learned_level.value} ignored: {why} keeps {level.value}")
    origin = f", candidate {learned.origin.candidate}" if learned.origin else ""
    return learned_level, f"learned:{label}", round(max(confidence, learned.confidence), 2), (
        f"learned {label} -> {learned_level.value} (confidence {learned.confidence:.2f}, "
        f"{learned.samples} samples{origin})")


def score(unit: ReviewUnit, matches: Sequence[RuleMatch], symbols: SymbolFacts,
          learned: LearnedRule | None = None, role: Role = CODE) -> RuleSuggestion:
    decisive = [m for m in matches if m.rule.decisive]
    if decisive:
        matches = decisive
    language_matches = {m.rule.rule_id for m in matches if m.rule.language_specific}
    bonus = min(0.1, 0.05 * len(language_matches))
    factors = ConfidenceFactors(
        rule_specificity=min(5, len(matches)),
        pattern_precision=max((m.precision for m in matches), default=0.0),
        context_availability=context_availability(unit),
        language_bonus=bonus,
    )
    rule_matches = [m for m in matches if m.rule.stage is not Stage.SYMBOL]
    pattern_risk = (_PATTERN_RISK[max((m.rule.risk for m in rule_matches),
                                      key=lambda risk: RISK_RANK[risk])]
                    if rule_matches else "medium")
    risk_factors = RiskFactors(
        change_scope=unit.added_lines + unit.removed_lines,
        security_sensitive="security_sensitive" in unit.tags
        or any(m.rule.risk is RiskLevel.CRITICAL for m in matches),
        change_type=unit.change_type if unit.change_type != "rename" else "modify",
        pattern_risk=pattern_risk,
        symbol_risk=symbols.risk,
    )
    formula_risk = risk_factors.level()
    declared = max((RISK_RANK[m.rule.risk] for m in matches), default=0)
    risk = _RISK_BY_RANK[max(RISK_RANK[formula_risk], min(declared, RISK_RANK[RiskLevel.HIGH]))]
    if decisive:
        risk = _RISK_BY_RANK[declared]
    risk, capped = cap_risk(risk, role, list(matches))
    ordered = sorted(matches, key=_strength, reverse=True)
    if ordered:
        level, decided_by = ordered[0].rule.level, ordered[0].rule.label
        sizes = [m for m in matches if m.rule.stage is Stage.METRIC or m.rule.level_floor]
        for size in sizes:
            if size.rule.level.rank > level.rank:
                level, decided_by = size.rule.level, size.rule.label
        confidence = final_confidence(factors.match_certainty(), risk)
    else:
        level, decided_by = ContextLevel.FUNCTION, "fallback"
        confidence = min(CONFIDENCE_MAX, max(CONFIDENCE_MIN, final_confidence(
            factors.match_certainty(), risk)))
    learned_note = None
    if learned is not None:
        level, decided_by, confidence, learned_note = _apply_learned(
            learned, unit, risk, level, decided_by, confidence)
    signals = behaviour_signals(matches)
    skip_reason = next((m.rule.skip_reason for m in ordered if m.rule.skip_reason), None) \
        if risk is RiskLevel.LOW else None
    # every field, in order (``RuleSuggestion(...)`` set them one by one: a unit scored)
    return suggestion_of((
        level, confidence, risk,
        _notes(risk, level, decided_by, matches, learned_note, capped),
        _requests(ordered, symbols), tuple(matches), factors, risk_factors, formula_risk,
        decided_by, learned_note, (), role.name,
        priority_parts(risk, role, len(signals), confidence,
                       unit.added_lines + unit.removed_lines),
        None, tuple(line_features(unit).values()), " ".join(unit_tokens(unit)), skip_reason))
