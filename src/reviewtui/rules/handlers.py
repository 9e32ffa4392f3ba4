"""Rule handlers: the base handler and one per language, in a registry.

A handler gathers a unit's matches from its language pack *and* from the general rules and
change patterns in one pass -- a language rule never hides a security, config, routing or size
signal; scoring (``reviewtui.rules.scoring``) lets the strongest risk decide. Subclasses answer
the language questions: what counts as a decorator/annotation, a public name, a constructor, an
interface, a data model, and (Ruby) which methods are Rails callbacks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from reviewtui.models import ContextLevel
from reviewtui.rules.compiled import (
    CompiledPack,
    LanguageSet,
    MetricThreshold,
    PathMatcher,
    PatternRule,
    RegexRule,
    Rule,
    Stage,
    WordRule,
    base_keywords,
    base_metrics,
)
from reviewtui.rules.confidence import RiskLevel
from reviewtui.rules.language_symbols import SYMBOL_JUDGES
from reviewtui.rules.needle_gates import NeedleGates, set_bits
from reviewtui.rules.rule_matches import (
    clip,
    keyword_matches,
    metric_match,
    regex_matches,
    search_lines,
    symbol_matches,
)
from reviewtui.rules.suggestion import RuleMatch
from reviewtui.rules.symbols import SymbolFacts, analyse_symbols
from reviewtui.rules.unit_text import UnitText
from reviewtui.units.model import ReviewUnit, Scope
from reviewtui.units.needle_scan import NeedleScan, needle_scan

# Units a handler evaluates before it looks for its rules' needles in one pass per text: the
# scan needs every needle worked out first, which only a large change repays.
SCAN_AFTER = 32
_Item = TypeVar("_Item", RegexRule, WordRule, PathMatcher, MetricThreshold, PatternRule,
                RegexRule | WordRule)


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
        self.all_sets = (*self.rule_sets, compiled.general)
        self._plans: dict[frozenset[str], _Plan] = {}
        self._last_path: tuple[str | None, dict[int, tuple[str, float] | None]] = (None, {})
        self._scan: NeedleScan | None = None
        self._until_scan = SCAN_AFTER

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
        """The changed annotation lines (added first: a rule's evidence is what the change
        adds), then those of the definitions around them. A docstring's ``@app.route`` example
        is prose, not an annotation."""
        prose = unit.prose_lines
        changed = [(ln.kind, ln.text.strip()) for hunk in unit.hunks for ln in hunk.lines
                   if ln.kind != " " and self.is_annotation(ln.text)
                   and (ln.kind, ln.new_no if ln.kind == "+" else ln.old_no) not in prose]
        lines = [t for kind, t in changed if kind == "+"] + [t for kind, t in changed
                                                              if kind == "-"]
        return lines + [d for scope in unit.scopes for d in scope.decorators]

    def rule_tags(self, unit: ReviewUnit, context: RuleContext) -> frozenset[str]:
        """The tags rules and roles see: the unit's own, plus what only the language can tell
        (a Rust change inside ``#[cfg(test)]`` code is test code in a library file)."""
        return frozenset(unit.tags)

    def extra_matches(self, unit: ReviewUnit, text: UnitText,
                      context: RuleContext) -> list[RuleMatch]:
        return []

    # -- matching -----------------------------------------------------------------------
    def unit_text(self, unit: ReviewUnit) -> UnitText:
        prose, imports = unit.prose_lines, unit.import_lines
        rows: list[tuple[str, str, bool, bool]]
        if prose or imports:
            rows = []
            for hunk in unit.hunks:
                for ln in hunk.lines:
                    if ln.kind == " ":
                        continue
                    key = (ln.kind, (ln.new_no if ln.kind == "+" else ln.old_no) or 0)
                    rows.append((ln.kind, ln.text, key in prose, key in imports))
        else:  # (most units) no line is prose or an import: no key to look up
            rows = [(ln.kind, ln.text, False, False) for hunk in unit.hunks
                    for ln in hunk.lines if ln.kind != " "]
        names = tuple((s.name, s.kind) for s in unit.scopes if s.role != "outer")
        if type(self).is_annotation is RuleHandler.is_annotation and (
                self.annotation_prefix not in "\n".join([row[1] for row in rows])):
            # No changed line holds the prefix an annotation line starts with (in one search
            # of the lines joined, not a call per line): the annotations are the scopes'.
            annotations = "\n".join([d for scope in unit.scopes for d in scope.decorators])
        else:
            annotations = "\n".join(self.annotation_lines(unit))
        return UnitText(rows, annotations, names, self._needle_scan())

    def _needle_scan(self) -> NeedleScan | None:
        """The one-pass scan of the needles of the regexes ``search_lines`` runs, once the
        handler has evaluated ``SCAN_AFTER`` units."""
        if self._until_scan:
            self._until_scan -= 1
            if not self._until_scan:
                regexes = [item.regex for rules in (*(s.keywords for s in self.all_sets),
                                                    self.base_keywords)
                           for item in rules if isinstance(item, RegexRule)]
                regexes += [p.indicators for p in self.compiled.patterns
                            if p.indicators is not None]
                self._scan = needle_scan(regexes)
        return self._scan

    def symbols(self, unit: ReviewUnit) -> SymbolFacts:
        return analyse_symbols(unit, self)

    def _plan(self, tags: frozenset[str]) -> _Plan:
        """The rules that apply to units with ``tags``, worked out once per set of tags (a
        change has a few dozen sets; each unit had asked every rule)."""
        found = self._plans.get(tags)
        if found is None:
            found = self._plans[tags] = _Plan(self, tags)
        return found

    def _path_hits(self, path: str) -> dict[int, tuple[str, float] | None]:
        """What each path rule (by its id) says of ``path``, for the last path asked about:
        the units of one file are evaluated in turn."""
        kept = self._last_path
        if kept[0] != path:
            kept = self._last_path = (path, {id(m): m.match(path) for rules in self.all_sets
                                             for m in rules.paths})
        return kept[1]

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
        plan = self._plan(tags)
        paths = self._path_hits(unit.file_path)
        for decorators, path_rules, symbol_rules in plan.per_set:
            found += regex_matches(decorators, text.annotations)
            found += [RuleMatch(m.rule, said[1], said[0]) for m in path_rules
                      if (said := paths[id(m)]) is not None]
            found += symbol_matches(symbol_rules, text.names)
        for metrics in plan.metrics:
            found += metric_match(metrics, unit)
        gates = plan.gates(self._scan)
        found += keyword_matches(plan.keywords, text,
                                  gates[0].open(text) if gates is not None else -1)
        opened = gates[1].open(text) if gates is not None else -1
        # the patterns a tag decides, and those with indicators the gate left open, in order
        patterns = plan.patterns
        for index in set_bits(plan.tagged | opened & plan.indicated):
            pattern, tag = patterns[index]
            if tag is not None:
                found.append(RuleMatch(pattern.rule, 1.0, tag))
            else:
                assert pattern.indicators is not None
                indicator = search_lines(pattern.indicators, text, pattern.rule)
                if indicator:
                    found.append(RuleMatch(pattern.rule, 0.5, clip(indicator.group(0))))
        found += self.extra_matches(unit, text, context)
        return sorted(found, key=lambda m: m.rule.stage)


class _Plan:
    """The rules of a handler that apply to one set of tags, in the order they are asked."""

    __slots__ = ("_gates", "indicated", "keywords", "metrics", "patterns", "per_set", "tagged")

    def __init__(self, handler: RuleHandler, tags: frozenset[str]) -> None:
        def applying(items: Iterable[_Item]) -> tuple[_Item, ...]:
            return tuple(item for item in items if item.rule.applies(tags))

        sets = handler.all_sets
        self.per_set = tuple((applying(s.decorators), applying(s.paths), applying(s.symbols))
                             for s in sets)
        noisy = bool(tags & handler.compiled.noise_tags)
        # each metric list sorted largest threshold first: the first one reached is the match
        self.metrics = () if noisy else tuple(
            tuple(sorted(applying(metrics), key=lambda r: -r.min_lines))
            for metrics in (*(s.metrics for s in sets), handler.size_rules))
        self.keywords = tuple(item for keywords in (*(s.keywords for s in sets),
                                                    handler.base_keywords)
                              for item in applying(keywords))
        # each pattern with the tag that decides it for these tags ("tag:..."), if one does
        self.patterns = tuple((p, "tag:" + min(p.tags & tags) if p.tags & tags else None)
                              for p in applying(handler.compiled.patterns))
        # (bits, by position) the patterns a tag decides; the others with indicators to search
        self.tagged = sum(1 << i for i, (_, tag) in enumerate(self.patterns) if tag is not None)
        self.indicated = sum(1 << i for i, (p, tag) in enumerate(self.patterns)
                             if tag is None and p.indicators is not None)
        self._gates: tuple[NeedleGates, NeedleGates] | None = None

    def gates(self, scan: NeedleScan | None) -> tuple[NeedleGates, NeedleGates] | None:
        """The keyword and the pattern rules (``NeedleGates``) once the handler scans."""
        if self._gates is None and scan is not None:
            self._gates = (
                NeedleGates([(item.regex if isinstance(item, RegexRule) else None, item.rule)
                             for item in self.keywords], scan),
                NeedleGates([(p.indicators, p.rule) for p, _ in self.patterns], scan))
        return self._gates
