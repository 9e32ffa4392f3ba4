"""The rule stage's entry point: evaluate every unit, optionally with scanner findings.

``RuleEngine`` holds one compiled pack and one handler per language; ``evaluate`` is pure and
cheap (a few regex searches per unit), so the whole index is scored on every run.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from fnmatch import fnmatchcase
from functools import cached_property

from reviewtui.models import ContextLevel
from reviewtui.rules.compiled import CompiledPack, compile_pack
from reviewtui.rules.handlers import RuleContext, RuleHandler
from reviewtui.rules.packs import LoadedPack, learned_rules
from reviewtui.rules.priority import Role, role_of
from reviewtui.rules.registry import make_handler
from reviewtui.rules.schema import LearnedRule, RulePack
from reviewtui.rules.scoring import score
from reviewtui.rules.suggestion import Request, RuleSuggestion
from reviewtui.units.model import ReviewUnit

_LEVELS = list(ContextLevel)


class RuleEngine:
    def __init__(self, pack: RulePack) -> None:
        self._pack = pack
        self.learned: tuple[LearnedRule, ...] = tuple(learned_rules(pack))
        self._handlers: dict[str | None, RuleHandler] = {}
        # the role of each set of tags, worked out once: the units of a change have a few
        # dozen sets of tags, and asking the pack's roles per unit was 1.5% of the rules' time
        self._roles: dict[frozenset[str], Role] = {}

    @cached_property
    def compiled(self) -> CompiledPack:
        """The pack's patterns, compiled on first use (a fully cached run never needs them)."""
        return compile_pack(self._pack)

    def handler(self, language: str | None) -> RuleHandler:
        found = self._handlers.get(language)
        if found is None:
            found = self._handlers[language] = make_handler(self.compiled, language)
        return found

    def learned_for(self, unit: ReviewUnit) -> LearnedRule | None:
        return best_learned(self.learned, unit.tags, unit.language, unit.file_path)

    def evaluate(self, unit: ReviewUnit, context: RuleContext | None = None) -> RuleSuggestion:
        handler = self.handler(unit.language)
        context = context or RuleContext()
        symbols = handler.symbols(unit)
        tags = handler.rule_tags(unit, context)
        matches = handler.matches(unit, context, symbols, tags)
        role = self._roles.get(tags)
        if role is None:
            role = self._roles[tags] = role_of(tags, self._pack.roles)
        return score(unit, matches, symbols, self.learned_for(unit), role)

    def evaluate_all(self, units: Iterable[ReviewUnit],
                     context: RuleContext | None = None) -> dict[str, RuleSuggestion]:
        ctx = context or RuleContext()
        return {unit.unit_id: self.evaluate(unit, ctx) for unit in units}


def learned_matches(rule: LearnedRule, tags: Collection[str], language: str | None,
                    path: str) -> bool:
    """Does ``rule`` apply to a unit with these tags, language and path?"""
    if rule.language not in (None, language) or not set(tags).issuperset(rule.tags):
        return False
    return not rule.paths or any(fnmatchcase(path, glob) for glob in rule.paths)


def best_learned(rules: Iterable[LearnedRule], tags: Collection[str], language: str | None,
                 path: str) -> LearnedRule | None:
    """The most specific learned rule that applies (more tags, then a path glob, then more
    samples), or None."""
    best: LearnedRule | None = None
    for rule in rules:
        if not learned_matches(rule, tags, language, path):
            continue
        rank = (len(rule.tags), bool(rule.paths), rule.samples)
        if best is None or rank > (len(best.tags), bool(best.paths), best.samples):
            best = rule
    return best


def apply_scanner_findings(suggestion: RuleSuggestion, errors: int,
                           others: int) -> RuleSuggestion:
    """Seed: an error-level finding raises the unit one context level (+0.1 confidence)."""
    if not errors and not others:
        return suggestion
    requests = suggestion.extra_requests
    if Request("scanner_issues") not in requests:
        requests = (*requests, Request("scanner_issues"))
    if not errors:
        note = f"scanner: {others} warning/info finding(s)"
        return replace(suggestion, extra_requests=requests,
                       notes=f"{suggestion.notes}; {note}", scanner_notes=(note,))
    level = suggestion.context_level
    raised = _LEVELS[min(len(_LEVELS) - 1, _LEVELS.index(level) + 1)]
    note = (f"scanner_errors={errors}: raised {level.value} -> {raised.value}"
            if raised is not level else f"scanner_errors={errors}")
    return replace(suggestion, context_level=raised,
                   confidence=round(min(1.0, suggestion.confidence + 0.1), 2),
                   extra_requests=requests, notes=f"{suggestion.notes}; {note}",
                   scanner_notes=(note,))


def requests_as_dicts(requests: Sequence[Request]) -> list[dict[str, str]]:
    return [r.as_dict() for r in requests]


def pack_engine(loaded: LoadedPack) -> RuleEngine:
    """The engine of a loaded pack, built once, when first asked for: a change read from its
    snapshot is indexed and put in order without one (nor its handlers' imports, ~0.1 s)."""
    found = loaded.__dict__.get("_engine")
    if not isinstance(found, RuleEngine):
        found = RuleEngine(loaded.pack)
        loaded.__dict__["_engine"] = found  # past the frozen guard, as cached_property does
    return found
