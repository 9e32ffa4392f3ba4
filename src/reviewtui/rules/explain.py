"""``reviewtui rules explain``: how one unit was scored, step by step, in plain text.

Every number of the seed's formula is shown with its inputs so that a surprising level can be
traced to the rule (and the pack file) that caused it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reviewtui.rules.confidence import RISK_BONUS
from reviewtui.rules.packs import learned_source
from reviewtui.rules.priority import RISK_POINTS, SHARED_RISK_FLOOR, SHARED_RISK_SLOPE
from reviewtui.rules.schema import LearnedRule
from reviewtui.rules.suggestion import RuleSuggestion
from reviewtui.units.model import ReviewUnit

if TYPE_CHECKING:  # the workbench's detail explains a unit's place without the engine
    from reviewtui.rules.engine import RuleEngine


def _risk_lines(suggestion: RuleSuggestion) -> list[str]:
    rf = suggestion.risk_factors
    if rf.security_sensitive:
        why = (f"security-sensitive and {rf.change_scope} changed lines "
               f"({'> 50: critical' if rf.change_scope > 50 else '<= 50: high'})")
    else:
        scope = rf.change_scope
        scope_points = 3 if scope > 100 else 2 if scope > 50 else 1 if scope > 20 else 0
        kind_points = {"delete": 2, "modify": 1}.get(rf.change_type, 0)
        points = {"high": 2, "medium": 1}
        why = (f"scope {scope} lines +{scope_points}, {rf.change_type} +{kind_points}, "
               f"pattern risk {rf.pattern_risk} +{points.get(rf.pattern_risk, 0)}, "
               f"symbol risk {rf.symbol_risk} +{points.get(rf.symbol_risk, 0)} "
               f"= {rf.score()} (>=6 critical, >=4 high, >=2 medium)")
    lines = [f"  risk score: {why} -> {suggestion.formula_risk.value}"]
    capped = next((p for p in suggestion.notes.split("; ") if " caps risk at " in p), None)
    if capped:
        lines.append(f"  {capped}")
    elif suggestion.risk is not suggestion.formula_risk:
        lines.append(f"  {suggestion.risk.value} by the strongest matched rule "
                     "(declared risk, capped at high) or a decisive pattern")
    return lines


def shared_risk_line(suggestion: RuleSuggestion) -> str | None:
    """Why a unit's risk points were cut (``rules.priority.shared_risk_cut``), if they were."""
    cut = -dict(suggestion.priority_parts).get("shared_risk", 0.0)
    if not cut:
        return None
    points = RISK_POINTS[suggestion.risk]
    fraction = cut / points
    share = ("60% or more" if fraction >= 1 else
             f"{round(100 * (SHARED_RISK_FLOOR + fraction / SHARED_RISK_SLOPE))}%")
    return (f"shared_risk: {share} of this change's units are high or critical, so its "
            f"{suggestion.risk.value} class says less about what to read first "
            f"(-{cut:g} of its {points:g} risk points)")


def _priority_lines(suggestion: RuleSuggestion) -> list[str]:
    parts = " + ".join(f"{name} {points:g}" for name, points in suggestion.priority_parts)
    lines = [f"  role: {suggestion.role}", f"  {parts} = {suggestion.priority_score:g}"]
    shared = shared_risk_line(suggestion)
    if shared:
        lines.append(f"  {shared}")
    if suggestion.reach is not None:
        lines.append(f"  reach: {suggestion.reach} other files use its definitions")
    else:
        lines.append("  reach: not counted")
    return lines


def _confidence_line(mc: float, suggestion: RuleSuggestion) -> str:
    raw = mc * 0.6 + RISK_BONUS[suggestion.risk] + 0.15
    line = (f"  confidence = {mc:.2f} x 0.6 + {RISK_BONUS[suggestion.risk]:.2f} "
            f"({suggestion.risk.value}) + 0.15 = {min(1.0, raw):.2f}")
    if raw > 1:
        line += " (clipped to 1.0)"
    if not suggestion.matches:
        line += f" -> {suggestion.confidence:.2f} (fallback range 0.30-0.45)"
    elif suggestion.learned and "ignored" not in suggestion.learned:
        line += f" -> {suggestion.confidence:.2f} (learned rule)"
    elif suggestion.scanner_notes and suggestion.confidence != round(min(1.0, raw), 2):
        line += f" -> {suggestion.confidence:.2f} (+0.10 for scanner errors)"
    return line


def learned_origin(rule: LearnedRule, sources: Sequence[Path] = ()) -> str:
    """Where a learned rule came from: the candidate it was accepted as, when, on what, and
    the file it is in."""
    found = learned_source(rule, sources)
    where = f"in {found}" if found else "in a rule pack's [[learned]]"
    if rule.origin is None:
        return f"origin: written by hand ({rule.samples} samples claimed; {where})"
    o = rule.origin
    return (f"origin: candidate {o.candidate} accepted {o.accepted[:10]} "
            f"({o.agreeing} of {rule.samples} samples agreed: {o.llm} llm, {o.user} user; "
            f"{o.changes} changes, {o.files} files; {where})")


def explain(unit: ReviewUnit, engine: RuleEngine, suggestion: RuleSuggestion,
            sources: Sequence[Path] = (), learned_part: Sequence[str] = ()) -> str:
    """Every step of ``unit``'s scoring; ``learned_part``: the lines explaining the learned part of
    its priority (``learned_lines``)."""
    handler = engine.handler(unit.language)
    f = suggestion.factors
    mc = f.match_certainty()
    out = [
        f"unit {unit.unit_id}  {unit.location}",
        f"  language {unit.language or '-'}, {unit.change_type}, "
        f"+{unit.added_lines}/-{unit.removed_lines}, {unit.hunk_count} hunk(s)",
        f"  tags: {', '.join(unit.tags) or '-'}",
        f"  handler: {type(handler).__name__}",
        "",
        "matched rules (seed order: decorators, framework paths, config paths, symbols, "
        "metrics, keywords, patterns):",
    ]
    for match in suggestion.matches:
        rule = match.rule
        out.append(f"  [{rule.stage.name.lower()}] {rule.rule_id} ({rule.label}): "
                   f"risk {rule.risk.value}, level {rule.level.value}, precision "
                   f"{match.precision:g}, evidence {match.evidence!r}")
    if not suggestion.matches:
        out.append("  none -> fallback: function level, confidence in [0.30, 0.45]")
    symbols = handler.symbols(unit)
    out += ["", "symbols:",
            f"  public api {list(symbols.public_api)}, constructors {list(symbols.constructors)}, "
            f"interfaces {list(symbols.interfaces)}, data models {list(symbols.data_models)} "
            f"-> symbol risk {symbols.risk}",
            "", "risk:", *_risk_lines(suggestion), "", "confidence (seed 003):",
            f"  match certainty = 0.3 + min({f.rule_specificity} x 0.06, 0.3) + "
            f"{f.pattern_precision:g} x 0.3 + {f.context_availability:g} x 0.2 + "
            f"{f.language_bonus:g} = {mc:.2f}",
            _confidence_line(mc, suggestion),
            "", f"level: {suggestion.context_level.value} (decided by {suggestion.decided_by})"]
    learned = engine.learned_for(unit) if suggestion.learned else None
    if learned is not None:
        out.append(f"  {suggestion.learned}")
        out.append(f"  {learned_origin(learned, sources)}")
    out += ["", "priority (the review order, higher first):", *_priority_lines(suggestion),
            *learned_part]
    out += [f"  {note}" for note in suggestion.scanner_notes]
    requests = [r.type + (f" {r.symbol}" if r.symbol else "") for r in suggestion.extra_requests]
    out += [f"extra requests: {', '.join(requests) or '-'}", f"notes: {suggestion.notes}"]
    return "\n".join(out) + "\n"


def learned_lines(unit: ReviewUnit, contributions: Sequence[tuple[str, float]],
                  features: Mapping[str, float], weights_path: Path,
                  history: Mapping[str, str] | None = None) -> list[str]:
    """The learned part, feature by feature with its evidence, strongest first (what moves
    the order by half a point or more); ``history``: what gave the history features (the fix
    commits, the authors)."""
    from reviewtui.rules.triage_features import feature_evidence

    lines = [f"  learned (weights: {weights_path}):"]
    shown = [(name, points) for name, points in contributions if abs(points) >= 0.5]
    if not shown:
        lines.append("    no feature of this unit carries weight")
    for name, points in shown:
        evidence = feature_evidence(unit, name) or (history or {}).get(name)
        value = f" {features[name]:.3g}" if name in features else ""
        lines.append(f"    {name}{value} -> {points:+g}" + (f"   {evidence}" if evidence else ""))
    # the unit's history is worth knowing whatever the weights make of it: a definition fixed
    # three times is news to a reviewer even where the fitted weight is near zero
    counted, named = dict(contributions), {name for name, _ in shown}
    for name, evidence in (history or {}).items():
        if features.get(name) and name not in named:
            lines.append(f"    {name} {features[name]:.3g} -> {counted.get(name, 0.0):+g} "
                         f"(weighs little in these weights)   {evidence}")
    return lines
