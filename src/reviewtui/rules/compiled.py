"""Rule packs compiled for matching: regexes joined once, levels and risks as enums.

Compilation happens once per pack; matching a unit is then a handful of regex searches over
text gathered once per unit (see ``reviewtui.rules.facts``).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TypeVar

from reviewtui.models import ContextLevel
from reviewtui.rules.confidence import RiskLevel
from reviewtui.rules.schema import (
    BaseRules,
    ChangePattern,
    KeywordRule,
    LanguageRules,
    MetricRule,
    PathRule,
    RuleBody,
    RulePack,
)
from reviewtui.units.fast_regex import FastRegex, lowered

LEVEL_ALIASES = {
    "local": ContextLevel.DIFF_ONLY,
    "function": ContextLevel.FUNCTION,
    "file": ContextLevel.FILE_CONTEXT,
    "diff_only": ContextLevel.DIFF_ONLY,
    "file_context": ContextLevel.FILE_CONTEXT,
    "full_file": ContextLevel.FULL_FILE,
}
_Body = TypeVar("_Body", bound=RuleBody)
# Searches of a ``FastRegex`` before its literal prefilter is worked out (see there).
RISK_RANK = {RiskLevel.LOW: 0, RiskLevel.MEDIUM: 1, RiskLevel.HIGH: 2, RiskLevel.CRITICAL: 3}


class Stage(IntEnum):
    """The seed's match order; notes list matches in this order."""

    DECORATOR = 1
    FRAMEWORK_PATH = 2
    CONFIG_PATH = 3
    SYMBOL = 4
    METRIC = 5
    KEYWORD = 6
    PATTERN = 7
    LEARNED = 8
    FALLBACK = 9


# Change patterns triggered by these (path-derived) tags belong to the "config paths" stage.
PATH_TAGS = frozenset({"config_file", "routing_file", "migration_file", "test_file", "doc_file",
                       "lockfile", "generated_or_vendored", "binary", "deleted_file",
                       "new_file", "renamed", "translation_catalog", "asset_file"})


def normalise_level(value: str) -> ContextLevel:
    return LEVEL_ALIASES[value]


@dataclass(frozen=True, slots=True)
class Rule:
    stage: Stage
    rule_id: str  # where it lives in the pack, e.g. "python.decorators.django_view"
    label: str  # what rule_notes show
    risk: RiskLevel
    level: ContextLevel
    requests: tuple[str, ...]
    unless: frozenset[str]
    language_specific: bool
    decisive: bool = False  # a pattern that alone decides level and risk when it matches
    requires: frozenset[str] = frozenset()  # only units with all of these tags
    beyond_role_cap: bool = False
    on: str = "changed"  # the changed lines a text rule reads: changed | added | removed
    level_floor: bool = False  # its level is a floor whatever its risk (as size is)
    reads: str = "code"  # code: no comments or docstrings | all: prose too
    skip_reason: str | None = None  # a low-risk unit it matches is skipped without a plan

    def applies(self, tags: frozenset[str]) -> bool:
        return not (self.unless & tags) and self.requires <= tags


@dataclass(frozen=True, slots=True)
class RegexRule:
    rule: Rule
    regex: FastRegex
    kinds: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class WordRule:
    """Identifier words (``auth`` matches ``auth_token`` and ``authToken``, not ``author``).

    ``senses``: a word with several meanings counts only on a line that also holds one of its
    sense words (``token`` with ``csrf``, ``access``, ``user``...; not a parser's ``token``)."""

    rule: Rule
    words: frozenset[str]
    prefilter: re.Pattern[str]  # any of the words as a substring, case-insensitive
    senses: dict[str, frozenset[str]] = field(default_factory=dict, hash=False, compare=False)
    ascii_words: bool = field(default=False, compare=False)  # every word is ASCII

    def anywhere(self, text: str) -> bool:
        """Is one of the words in ``text`` as a substring, in any case? (A substring test on
        the folded text when the words are ASCII, which says what ``prefilter`` says faster.)"""
        if not self.ascii_words:
            return self.prefilter.search(text) is not None
        folded = lowered(text)
        return any(word in folded for word in self.words)


@dataclass(frozen=True, slots=True)
class PathMatcher:
    rule: Rule
    dirs: tuple[str, ...]  # "/controllers/" or "/app/controllers/"
    names: frozenset[str]  # exact base names
    suffixes: tuple[str, ...]  # "/config/app.yml"
    globs: tuple[str, ...]

    def match(self, path: str) -> tuple[str, float] | None:
        """The matching entry and its precision (exact name 1.0, directory or glob 0.5)."""
        slashed = "/" + path
        base = path.rsplit("/", 1)[-1]
        if base in self.names:
            return base, 1.0
        for suffix in self.suffixes:
            if slashed.endswith(suffix):
                return suffix.lstrip("/"), 1.0
        for folder in self.dirs:
            if folder in slashed:
                return folder.strip("/") + "/", 0.5
        for glob in self.globs:
            if fnmatch.fnmatchcase(path if "/" in glob else base, glob):
                return glob, 0.5
        return None


@dataclass(frozen=True, slots=True)
class PatternRule:
    rule: Rule
    tags: frozenset[str]
    indicators: FastRegex | None


@dataclass(frozen=True, slots=True)
class MetricThreshold:
    rule: Rule
    min_lines: int


@dataclass(frozen=True)
class LanguageSet:
    """The compiled rules of one language pack (or of the general section)."""

    name: str
    language_bonus: float
    decorators: tuple[RegexRule, ...]
    paths: tuple[PathMatcher, ...]
    symbols: tuple[RegexRule, ...]
    metrics: tuple[MetricThreshold, ...]
    keywords: tuple[RegexRule | WordRule, ...]
    large_change_lines: int | None
    moderate_change_lines: int | None


def _join(patterns: list[str]) -> FastRegex:
    return FastRegex(patterns)


def _rule(stage: Stage, rule_id: str, body: RuleBody, language_specific: bool) -> Rule:
    return Rule(stage=stage, rule_id=rule_id, label=body.notes or rule_id,
                risk=RiskLevel(body.risk), level=normalise_level(body.context_level),
                requests=tuple(body.extra_requests), unless=frozenset(body.unless_tags),
                language_specific=language_specific,
                decisive=isinstance(body, ChangePattern) and body.decisive,
                requires=frozenset(body.requires_tags), beyond_role_cap=body.beyond_role_cap,
                on=body.on, level_floor=body.level_floor, reads=body.reads,
                skip_reason=body.skip_reason if isinstance(body, ChangePattern) else None)


def _path_matcher(rule: Rule, body: PathRule) -> PathMatcher:
    dirs, names, suffixes, globs = [], set(), [], []
    for entry in body.match:
        if any(ch in entry for ch in "*?["):
            globs.append(entry)
        elif entry.endswith("/"):
            dirs.append("/" + entry.strip("/") + "/")
        elif "/" in entry:
            suffixes.append("/" + entry.lstrip("/"))
        else:
            names.add(entry)
    return PathMatcher(rule, tuple(dirs), frozenset(names), tuple(suffixes), tuple(globs))


def _keyword(rule: Rule, body: KeywordRule,
             senses: dict[str, list[str]] | None = None) -> list[RegexRule | WordRule]:
    out: list[RegexRule | WordRule] = []
    if body.patterns:
        out.append(RegexRule(rule, _join(body.patterns)))
    if body.words:
        words = sorted({w.lower() for w in body.words}, key=len, reverse=True)
        out.append(WordRule(rule, frozenset(words), re.compile(
            "|".join(re.escape(w) for w in words), re.IGNORECASE),
            {w.lower(): frozenset(s.lower() for s in said)
             for w, said in (senses or {}).items() if w.lower() in words},
            all(w.isascii() for w in words)))
    return out


def enabled(table: dict[str, _Body]) -> list[tuple[str, _Body]]:
    return [(key, body) for key, body in table.items() if body.enabled]


def compile_language(name: str, rules: LanguageRules, *, specific: bool) -> LanguageSet:
    prefix = f"{name}."

    keywords: list[RegexRule | WordRule] = []
    for key, kw in enabled(rules.keywords):
        keywords += _keyword(_rule(Stage.KEYWORD, f"{prefix}keywords.{key}", kw, specific), kw)
    return LanguageSet(
        name=name,
        language_bonus=rules.language_bonus if specific else 0.0,
        decorators=tuple(
            RegexRule(_rule(Stage.DECORATOR, f"{prefix}decorators.{key}", d, specific),
                      _join(d.patterns))
            for key, d in enabled(rules.decorators)),
        paths=tuple(
            _path_matcher(_rule(Stage.FRAMEWORK_PATH, f"{prefix}paths.{key}", p, specific), p)
            for key, p in enabled(rules.paths)),
        symbols=tuple(
            RegexRule(_rule(Stage.SYMBOL, f"{prefix}symbols.{key}", s, specific),
                      _join(s.patterns), frozenset(s.kinds))
            for key, s in enabled(rules.symbols)),
        metrics=tuple(
            MetricThreshold(_rule(Stage.METRIC, f"{prefix}metrics.{key}", m, specific),
                            m.min_lines)
            for key, m in enabled(rules.metrics)),
        keywords=tuple(keywords),
        large_change_lines=rules.base.large_change_lines,
        moderate_change_lines=rules.base.moderate_change_lines,
    )


def _pattern(key: str, body: ChangePattern) -> PatternRule:
    stage = (Stage.CONFIG_PATH if body.tags and set(body.tags) <= PATH_TAGS
             and not body.indicators else Stage.PATTERN)
    rule = _rule(stage, f"patterns.{key}", body, False)
    return PatternRule(rule, frozenset(body.tags),
                       _join(body.indicators) if body.indicators else None)


def base_metrics(base: BaseRules, large: int | None, moderate: int | None) -> tuple[
        MetricThreshold, ...]:
    """The size signal: large changes want the file, moderate ones the function."""
    large_rule = MetricRule(min_lines=large or base.large_change_lines, risk="medium",
                            context_level="file", notes="size:large")
    moderate_rule = MetricRule(min_lines=moderate or base.moderate_change_lines, risk="low",
                               context_level="function", notes="size:moderate")
    return tuple(
        MetricThreshold(_rule(Stage.METRIC, f"base.{name}", body, False), body.min_lines)
        for name, body in (("large_change_lines", large_rule),
                           ("moderate_change_lines", moderate_rule)))


def base_keywords(base: BaseRules) -> tuple[RegexRule | WordRule, ...]:
    out: list[RegexRule | WordRule] = []
    for name, words, risk, level in (
        ("security_keywords", base.security_keywords, "high", "file"),
        ("config_keywords", base.config_keywords, "medium", "function"),
    ):
        if words:
            body = KeywordRule.model_validate(dict(words=words, risk=risk, context_level=level,
                               notes=f"keyword:{name.split('_')[0]}",
                               unless_tags=["doc_file", "test_file", "lockfile",
                                            "generated_or_vendored", "only_comments"]))
            out += _keyword(_rule(Stage.KEYWORD, f"base.{name}", body, False), body,
                            base.keyword_senses)
    return tuple(out)


@dataclass(frozen=True)
class CompiledPack:
    """A pack's rules compiled: the general ones and patterns at once, a language's on first use.

    A change touches a few of the 12 languages, and compiling them all cost a serial 0.1 s
    before the analysis could fork (Django 4.2 -> 5.2 touches Python and JavaScript)."""

    pack: RulePack
    general: LanguageSet
    patterns: tuple[PatternRule, ...]
    noise_tags: frozenset[str]
    # by language alias, filled on first use: its own pack first, then packs that also apply
    # to it (the C pack's memory rules apply to C++ too)
    _by_alias: dict[str, tuple[LanguageSet, ...]] = field(default_factory=dict, compare=False,
                                                         repr=False)
    _by_name: dict[str, LanguageSet] = field(default_factory=dict, compare=False, repr=False)

    def for_language(self, language: str | None) -> tuple[LanguageSet, ...]:
        if not language:
            return ()
        found = self._by_alias.get(language)
        if found is None:
            names = [name for name, rules in self.pack.languages.items()
                     if language in (rules.applies_to or [name])]
            found = self._by_alias[language] = tuple(sorted(
                (self._language(name) for name in names), key=lambda s: s.name != language))
        return found

    def _language(self, name: str) -> LanguageSet:
        found = self._by_name.get(name)
        if found is None:
            found = self._by_name[name] = compile_language(name, self.pack.languages[name],
                                                           specific=True)
        return found


def compile_pack(pack: RulePack) -> CompiledPack:
    return CompiledPack(
        pack=pack,
        general=compile_language("general", pack.general, specific=False),
        patterns=tuple(_pattern(k, p) for k, p in pack.patterns.items() if p.enabled),
        noise_tags=frozenset(pack.base.noise_tags),
    )
