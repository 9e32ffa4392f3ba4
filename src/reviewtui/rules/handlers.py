"""Rule handlers: the base handler and one per language, in a registry.

A handler gathers a unit's matches from its language pack *and* from the general rules and
change patterns in one pass -- a language rule never hides a security, config, routing or size
signal; scoring (``reviewtui.rules.scoring``) lets the strongest risk decide. Subclasses answer
the language questions: what counts as a decorator/annotation, a public name, a constructor, an
interface, a data model, and (Ruby) which methods are Rails callbacks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from reviewtui.models import ContextLevel
from reviewtui.rules.compiled import (
    CompiledPack,
    LanguageSet,
    MetricThreshold,
    RegexRule,
    Rule,
    Stage,
    WordRule,
    base_keywords,
    base_metrics,
)
from reviewtui.rules.confidence import RiskLevel
from reviewtui.rules.language_symbols import SYMBOL_JUDGES
from reviewtui.rules.suggestion import RuleMatch
from reviewtui.rules.symbols import SymbolFacts, analyse_symbols
from reviewtui.units.model import ReviewUnit, Scope

_EVIDENCE = 48


def _symbol_rule(name: str, risk: RiskLevel, requests: tuple[str, ...]) -> Rule:
    return Rule(stage=Stage.SYMBOL, rule_id=f"symbols.{name}", label=f"symbol:{name}",
                risk=risk, level=ContextLevel.FILE_CONTEXT, requests=requests,
                unless=frozenset(), language_specific=False)


# Symbol analysis (seed 003) as rules: what the changed definitions are decides context too.
INTERFACE_RULE = _symbol_rule("interface", RiskLevel.HIGH, ("search_implementations",))
DATA_MODEL_RULE = _symbol_rule("data_model", RiskLevel.HIGH, ("search_model_usage",))
CONSTRUCTOR_RULE = _symbol_rule("constructor", RiskLevel.MEDIUM,
                                ("search_class_methods", "search_callers"))


@dataclass(frozen=True)
class RuleContext:
    """What a handler may look up beyond the unit: the after-side text of a file."""

    file_text: Callable[[str], str | None] | None = None


@dataclass(frozen=True, slots=True)
class UnitText:
    """Text gathered once per unit and shared by every rule."""

    changed: str
    annotations: str
    names: tuple[tuple[str, str], ...]  # (name, kind) of defined/enclosing definitions
    added: str = ""
    removed: str = ""

    def lines(self, on: str) -> str:
        """The changed lines a rule reads (``Rule.on``)."""
        return self.added if on == "added" else self.removed if on == "removed" else (
            self.changed)


def clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EVIDENCE else text[: _EVIDENCE - 1] + "…"


class RuleHandler:
    """Base rules for every language; unknown languages get exactly these."""

    language: str | None = None
    annotation_prefix = "@"

    def __init__(self, compiled: CompiledPack, language: str | None = None) -> None:
        self.compiled = compiled
        # the language's own pack first, then packs that also apply to it (C rules in C++)
        self.rule_sets: tuple[LanguageSet, ...] = compiled.for_language(
            language or self.language)
        # Rust, C, C++, C#, PHP, Kotlin: the language's own answers to the symbol questions.
        self._judge = SYMBOL_JUDGES.get(language or self.language or "")
        base = compiled.pack.base
        large = next((s.large_change_lines for s in self.rule_sets if s.large_change_lines),
                     None)
        moderate = next((s.moderate_change_lines for s in self.rule_sets
                         if s.moderate_change_lines), None)
        self.size_rules = base_metrics(base, large, moderate)
        self.base_keywords = base_keywords(base)

    # -- language questions -------------------------------------------------------------
    def is_public(self, scope: Scope) -> bool:
        if self._judge is not None:
            return self._judge.is_public(scope)
        return not scope.name.startswith("_")

    def is_constructor(self, scope: Scope) -> bool:
        if self._judge is not None:
            return self._judge.is_constructor(scope)
        return scope.name in ("__init__", "constructor", "initialize")

    def is_interface(self, scope: Scope) -> bool:
        if self._judge is not None:
            return self._judge.is_interface(scope)
        return scope.kind == "interface"

    def is_data_model(self, scope: Scope) -> bool:
        if self._judge is not None:
            return self._judge.is_data_model(scope)
        return bool(re.search(r"(Model|Schema|Entity|Record|Dto|DTO)$", scope.name))

    def is_annotation(self, line: str) -> bool:
        """Is this changed line a decorator/annotation/attribute of the language?"""
        return line.lstrip().startswith(self.annotation_prefix)

    def annotation_lines(self, unit: ReviewUnit) -> list[str]:
        lines = [d for scope in unit.scopes for d in scope.decorators]
        lines += [t.strip() for t in unit.changed_lines() if self.is_annotation(t)]
        return lines

    def rule_tags(self, unit: ReviewUnit, context: RuleContext) -> frozenset[str]:
        """The tags rules and roles see: the unit's own, plus what only the language can tell
        (a Rust change inside ``#[cfg(test)]`` code is test code in a library file)."""
        return frozenset(unit.tags)

    def extra_matches(self, unit: ReviewUnit, text: UnitText,
                      context: RuleContext) -> list[RuleMatch]:
        return []

    # -- matching -----------------------------------------------------------------------
    def unit_text(self, unit: ReviewUnit) -> UnitText:
        lines = [ln for hunk in unit.hunks for ln in hunk.lines if ln.kind != " "]
        changed = "\n".join(ln.text for ln in lines)
        names = tuple((s.name, s.kind) for s in unit.scopes if s.role != "outer")
        return UnitText(changed, "\n".join(self.annotation_lines(unit)), names,
                        added="\n".join(ln.text for ln in lines if ln.kind == "+"),
                        removed="\n".join(ln.text for ln in lines if ln.kind == "-"))

    def symbols(self, unit: ReviewUnit) -> SymbolFacts:
        return analyse_symbols(unit, self)

    def matches(self, unit: ReviewUnit, context: RuleContext,
                symbols: SymbolFacts | None = None,
                tags: frozenset[str] | None = None) -> list[RuleMatch]:
        """Every rule that matches, language and general together, in the seed's order."""
        text = self.unit_text(unit)
        if tags is None:
            tags = self.rule_tags(unit, context)
        found: list[RuleMatch] = []
        facts = symbols if symbols is not None else self.symbols(unit)
        for rule, names in ((INTERFACE_RULE, facts.interfaces),
                            (DATA_MODEL_RULE, facts.data_models),
                            (CONSTRUCTOR_RULE, facts.constructors)):
            if names:
                found.append(RuleMatch(rule, 1.0, ",".join(names)))
        sets = [*self.rule_sets, self.compiled.general]
        for rules in sets:
            found += _regex_matches(rules.decorators, text.annotations, tags)
            found += [RuleMatch(m.rule, precision, entry) for m in rules.paths
                      if m.rule.applies(tags)
                      for entry, precision in [m.match(unit.file_path) or ("", -1.0)]
                      if precision >= 0]
            found += _symbol_matches(rules.symbols, text.names, tags)
        noisy = bool(tags & self.compiled.noise_tags)
        if not noisy:
            for rules in sets:
                found += _metric_match(rules.metrics, unit, tags)
            found += _metric_match(self.size_rules, unit, tags)
        for keyword_rules in [*(s.keywords for s in sets), self.base_keywords]:
            found += _keyword_matches(keyword_rules, text, tags)
        for pattern in self.compiled.patterns:
            if not pattern.rule.applies(tags):
                continue
            hit = pattern.tags & tags
            lines = text.lines(pattern.rule.on)
            if hit:
                found.append(RuleMatch(pattern.rule, 1.0, "tag:" + sorted(hit)[0]))
            elif pattern.indicators is not None and lines:
                indicator = pattern.indicators.search(lines)
                if indicator:
                    found.append(RuleMatch(pattern.rule, 0.5, clip(indicator.group(0))))
        found += self.extra_matches(unit, text, context)
        return sorted(found, key=lambda m: m.rule.stage)


def _regex_matches(rules: tuple[RegexRule, ...], text: str,
                   tags: frozenset[str]) -> list[RuleMatch]:
    if not text:
        return []
    out = []
    for item in rules:
        if not item.rule.applies(tags):
            continue
        hit = item.regex.search(text)
        if hit:
            out.append(RuleMatch(item.rule, 1.0, clip(hit.group(0))))
    return out


def _symbol_matches(rules: tuple[RegexRule, ...], names: tuple[tuple[str, str], ...],
                    tags: frozenset[str]) -> list[RuleMatch]:
    out = []
    for item in rules:
        if not item.rule.applies(tags):
            continue
        for name, kind in names:
            if (not item.kinds or kind in item.kinds) and item.regex.search(name):
                out.append(RuleMatch(item.rule, 1.0, name))
                break
    return out


def _metric_match(rules: tuple[MetricThreshold, ...], unit: ReviewUnit,
                  tags: frozenset[str]) -> list[RuleMatch]:
    size = unit.added_lines + unit.removed_lines
    for item in sorted(rules, key=lambda r: -r.min_lines):
        if size >= item.min_lines and item.rule.applies(tags):
            return [RuleMatch(item.rule, 0.5, f"{size} lines >= {item.min_lines}")]
    return []


def _words_in(rule: WordRule, text: str, limit: int = 3) -> set[str]:
    """The rule's words standing as identifier words (snake_case/camelCase parts) in text."""
    found: set[str] = set()
    size = len(text)
    for hit in rule.prefilter.finditer(text):
        start, end = hit.span()
        before = text[start - 1] if start else " "
        after = text[end] if end < size else " "
        left = not before.isalnum() or (before.islower() and text[start].isupper())
        right = not after.isalnum() or (after.isupper() and text[end - 1].islower())
        if left and right:
            found.add(hit.group(0).lower())
            if len(found) >= limit:
                break
    return found


def _keyword_matches(rules: tuple[RegexRule | WordRule, ...], text: UnitText,
                     tags: frozenset[str]) -> list[RuleMatch]:
    out = []
    for item in rules:
        if not item.rule.applies(tags):
            continue
        lines = text.lines(item.rule.on)
        if isinstance(item, WordRule):
            common = _words_in(item, lines)
            if common:
                out.append(RuleMatch(item.rule, 0.5, ",".join(sorted(common)[:3])))
        elif lines:
            hit = item.regex.search(lines)
            if hit:
                out.append(RuleMatch(item.rule, 0.5, clip(hit.group(0))))
    return out
