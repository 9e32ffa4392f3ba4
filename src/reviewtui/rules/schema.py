"""The rule-pack format (seed 003 ``DEFAULT_RULE_CONFIG``), validated with pydantic.

A pack is data: ``base`` numbers and keyword lists, change ``patterns``, per-language
``decorators`` / ``paths`` / ``symbols`` / ``metrics`` / ``keywords`` rules, ``learned`` rules
and ``scanners`` settings. Rules are tables keyed by an id so that a repository's pack can
override or disable (``enabled = false``) one rule by naming it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reviewtui.rules.scanners.config import ScannerToolConfig

Risk = Literal["low", "medium", "high", "critical"]
# Rule handlers speak local/function/file (seed 003); the canonical names are accepted too.
PackLevel = Literal["local", "function", "file", "diff_only", "file_context", "full_file"]
RequestType = Literal[
    "previous_version", "search_callers", "search_config_usage", "search_implementations",
    "search_model_usage", "search_class_methods", "scanner_issues",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RuleBody(_Strict):
    """What every rule says when it matches."""

    enabled: bool = True
    risk: Risk = "medium"
    context_level: PackLevel = "function"
    notes: str | None = Field(default=None, description="label shown in rule_notes")
    framework: str | None = None
    extra_requests: list[RequestType] = Field(default_factory=list)
    unless_tags: list[str] = Field(default_factory=list, description="never match these units")
    requires_tags: list[str] = Field(default_factory=list,
                                     description="match only units with all of these tags")
    beyond_role_cap: bool = Field(default=False, description=(
        "its risk is not capped by the file's role (a test that disables a security check)"))
    level_floor: bool = Field(default=False, description=(
        "its level is a floor for the unit whatever its risk (like the size signal)"))
    on: Literal["changed", "added", "removed"] = Field(default="changed", description=(
        "which changed lines a text rule reads: all of them, the added or the removed ones"))
    reads: Literal["code", "all"] = Field(default="code", description=(
        "code: a text rule looks for behaviour, so comments and docstrings are left out (and "
        "for words also imports and string contents); all: prose too (a comment naming an "
        "attack)"))


class DecoratorRule(RuleBody):
    """Regexes over decorators/annotations of the changed code and its enclosing definitions."""

    patterns: list[str] = Field(min_length=1)


class PathRule(RuleBody):
    """``dir/`` (a directory anywhere in the path), a file name, a path suffix or a glob."""

    match: list[str] = Field(min_length=1)


class SymbolRule(RuleBody):
    """Regexes over the names of definitions the unit defines or sits in."""

    patterns: list[str] = Field(min_length=1)
    kinds: list[str] = Field(default_factory=list, description="restrict to these kinds")


class MetricRule(RuleBody):
    """Changed lines (added + removed) at least ``min_lines``."""

    min_lines: int = Field(ge=0)


class KeywordRule(RuleBody):
    """Regexes over the changed lines (``patterns``) or identifier words (``words``)."""

    patterns: list[str] = Field(default_factory=list)
    words: list[str] = Field(default_factory=list)


class ChangePattern(RuleBody):
    """A change pattern: triggered by any of ``tags`` or by ``indicators`` in changed lines."""

    description: str = ""
    tags: list[str] = Field(default_factory=list)
    indicators: list[str] = Field(default_factory=list)
    decisive: bool = Field(default=False, description=(
        "when it matches, it alone decides the level and the risk (e.g. a mode-only change: "
        "nothing else in the file changed, so path and keyword rules say nothing about it)"))
    skip_reason: str | None = Field(default=None, min_length=1, description=(
        "when it matches a low-risk unit, the unit is skipped without a plan, for this reason "
        "(a file kind nobody reviews as code: a generated catalog, a lockfile); the planner "
        "may still keep it"))


class BaseRules(_Strict):
    large_change_lines: int = Field(default=80, ge=1)
    moderate_change_lines: int = Field(default=20, ge=1)
    noise_tags: list[str] = Field(default_factory=lambda: ["only_imports", "only_comments",
                                                           "only_logging", "only_whitespace"])
    doc_tags: list[str] = Field(default_factory=lambda: ["doc_file"])
    security_keywords: list[str] = Field(default_factory=list)
    config_keywords: list[str] = Field(default_factory=list)
    keyword_senses: dict[str, list[str]] = Field(default_factory=dict, description=(
        "a keyword with more than one meaning (a lexer's token, an auth token) counts only on "
        "a line that also holds one of these identifier words (csrf_token, check_token(user))"))


class BaseOverride(_Strict):
    """Language packs may override the base numbers for their language."""

    large_change_lines: int | None = Field(default=None, ge=1)
    moderate_change_lines: int | None = Field(default=None, ge=1)


class LanguageRules(_Strict):
    applies_to: list[str] = Field(default_factory=list, description="language names")
    language_bonus: float = Field(default=0.05, ge=0.0, le=0.1)
    base: BaseOverride = BaseOverride()
    decorators: dict[str, DecoratorRule] = Field(default_factory=dict)
    paths: dict[str, PathRule] = Field(default_factory=dict)
    symbols: dict[str, SymbolRule] = Field(default_factory=dict)
    metrics: dict[str, MetricRule] = Field(default_factory=dict)
    keywords: dict[str, KeywordRule] = Field(default_factory=dict)


class RoleRule(_Strict):
    """A file's role (tests, docs, translations, generated code...) caps how risky a change in
    it can be rated, whatever matched (``beyond_role_cap`` rules aside), and weighs its
    priority. The first role (in pack order) whose tags the unit has applies; else ``code``."""

    tags: list[str] = Field(min_length=1)
    max_risk: Risk = "high"
    priority: float = Field(default=0.0, ge=-50, le=50, description="added to the priority")


class LearnedOrigin(_Strict):
    """Where an accepted learned rule came from (``reviewtui rules learn --accept``)."""

    candidate: str = Field(min_length=1, description="the candidate id it was accepted as")
    accepted: str = Field(min_length=1, description="when (ISO 8601, UTC)")
    agreeing: int = Field(ge=0, description="samples that said its level")
    changes: int = Field(ge=0, description="distinct changes the samples came from")
    files: int = Field(ge=0, description="distinct files the samples came from")
    llm: int = Field(default=0, ge=0, description="samples from the LLM planner")
    user: int = Field(default=0, ge=0, description="samples from the person's overrides")
    pack: str | None = Field(default=None, description="the rule pack the evidence was scored "
                                                       "under (reviewtui rules learn shows it)")


class LearnedRule(_Strict):
    """Learned from rule/LLM/person disagreements: units with all of ``tags`` (and, when
    given, this ``language`` and a path matching one of ``paths``) get ``context_level``."""

    tags: list[str] = Field(min_length=1)
    context_level: PackLevel
    confidence: float = Field(ge=0.0, le=1.0)
    samples: int = Field(ge=1)
    language: str | None = None
    paths: list[str] = Field(default_factory=list, description=(
        "globs over the unit's path (fnmatch: * also crosses /); empty: any path"))
    origin: LearnedOrigin | None = None


class LearningSettings(_Strict):
    min_samples: int = Field(default=3, ge=1, description=(
        "a learned rule applies, and a candidate is proposed, from this many samples"))
    min_agreement: float = Field(default=0.75, ge=0.5, le=1.0, description=(
        "a candidate is proposed when at least this share of its samples said its level"))


class RulePack(_Strict):
    """The merged pack; every section optional so a partial repository pack validates."""

    base: BaseRules = BaseRules()
    tagging: dict[str, list[str]] = Field(default_factory=dict)
    patterns: dict[str, ChangePattern] = Field(default_factory=dict)
    general: LanguageRules = LanguageRules()
    languages: dict[str, LanguageRules] = Field(default_factory=dict)
    roles: dict[str, RoleRule] = Field(default_factory=dict)
    learned: list[LearnedRule] = Field(default_factory=list)
    learning: LearningSettings = LearningSettings()
    # language -> tool -> settings, merged over the scanners' own defaults
    scanners: dict[str, dict[str, ScannerToolConfig]] = Field(default_factory=dict)
