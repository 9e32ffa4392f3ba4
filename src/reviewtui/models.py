"""Pydantic contracts for the JSON the seeds define (review_index, planner_index).

Field names are the user's: ``unit_id``, ``rule_context_level``, ``line_numbers.new_compact``...
These models sit at the boundary (printing, persisting, reading back); the pipeline itself works
on frozen dataclasses.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class ContextLevel(StrEnum):
    DIFF_ONLY = "diff_only"
    FUNCTION = "function"
    FILE_CONTEXT = "file_context"
    FULL_FILE = "full_file"

    @property
    def rank(self) -> int:
        return _RANKS[self]


_RANKS = {
    ContextLevel.DIFF_ONLY: 0,
    ContextLevel.FUNCTION: 1,
    ContextLevel.FILE_CONTEXT: 2,
    ContextLevel.FULL_FILE: 3,
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Metrics(_Model):
    added_lines: int = Field(ge=0)
    removed_lines: int = Field(ge=0)
    hunk_count: int = Field(ge=0)


class LineNumbers(_Model):
    new_compact: str
    old_compact: str


class AgentDecision(_Model):
    context_level: ContextLevel | None = None
    priority: str | None = None


class PreviousVersionRequest(_Model):
    type: Literal["previous_version"] = "previous_version"


class CallersRequest(_Model):
    type: Literal["callers"] = "callers"
    symbol: str = Field(min_length=1)


class SearchRequest(_Model):
    type: Literal["search"] = "search"
    keyword: str = Field(min_length=1)


class SymbolSearchRequest(_Model):
    """Rule-side dependency hints; ``symbol`` is filled from the unit's definitions."""

    type: Literal["search_callers", "search_config_usage", "search_implementations",
                  "search_model_usage", "search_class_methods"]
    symbol: str | None = None


class ScannerIssuesRequest(_Model):
    type: Literal["scanner_issues"] = "scanner_issues"


ExtraRequest = Annotated[
    PreviousVersionRequest | CallersRequest | SearchRequest | SymbolSearchRequest
    | ScannerIssuesRequest,
    Field(discriminator="type"),
]


class ScannerFinding(_Model):
    tool: str
    line: int
    column: int
    severity: Literal["error", "warning", "info"]
    rule_id: str
    message: str


class IndexUnit(_Model):
    unit_id: str
    file_path: str
    old_path: str | None = None
    language: str | None
    change_type: str
    location: str
    tags: list[str]
    metrics: Metrics
    line_numbers: LineNumbers
    symbols: list[str] = Field(default_factory=list)
    rule_context_level: ContextLevel | None = None
    rule_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    rule_notes: str | None = None
    rule_extra_requests: list[ExtraRequest] | None = None
    agent_decision: AgentDecision | None = None
    scanner_issues: list[ScannerFinding] | None = None
    role: str | None = None  # code, test, docs, translation, generated... (the pack's [roles])
    priority_score: float | None = None  # the review order, higher first (rules explain: parts)
    # the rules skip this unit without a plan (a generated catalog, a lockfile): why
    rule_skip_reason: str | None = None


class ReviewMetadata(_Model):
    mode: str
    base_branch: str | None
    old: str
    new: str
    total_files: int
    total_changes: int
    timestamp: str


class TotalLines(_Model):
    added: int
    removed: int


class Summary(_Model):
    changes_by_type: dict[str, int]
    total_lines: TotalLines
    files_changed: list[str]
    risk_distribution: dict[str, int] | None = None  # units per risk class, once scored


class ReviewIndex(_Model):
    review_metadata: ReviewMetadata
    summary: Summary
    units: list[IndexUnit]


class PlannerUnit(_Model):
    """The slim unit of seed 001: no diff text, no notes."""

    unit_id: str
    file_path: str
    patch_type: str
    tags: list[str]
    metrics: Metrics
    rule_context_level: ContextLevel | None
    rule_confidence: float | None
    line_numbers: LineNumbers
    rule_extra_requests: list[ExtraRequest] | None
    risk: str | None = None  # the rules' risk class
    priority: float | None = None  # the rules' review order (higher first)


class PlannerIndex(_Model):
    review_metadata: ReviewMetadata
    summary: Summary
    units: list[PlannerUnit]


class BundleMeta(_Model):
    file_path: str
    old_path: str | None = None
    location: str
    language: str | None
    change_type: str
    tags: list[str]
    line_numbers: LineNumbers


class CodeSnippet(_Model):
    """A few numbered lines of some file, found by a caller or text search."""

    file_path: str
    line: int = Field(ge=1)
    snippet: str
    symbol: str | None = None  # what was searched for
    kind: str  # callers | search | config_usage | implementations | model_usage | class_methods


class BudgetPiece(_Model):
    """One piece of a bundle and what the token budget did with it."""

    name: str  # diff, function_context, file_context, full_file, previous_version, callers[0]...
    # not_fetched: over the unit's budget before it was fetched (no search, parse or count);
    # then the name is the request (``search_callers 'f'``) and the tokens an estimate.
    status: Literal["included", "clipped", "dropped", "empty", "not_fetched"]
    tokens: int = Field(ge=0)  # tokens in the bundle
    original_tokens: int = Field(ge=0)  # tokens before clipping (not_fetched: estimated)
    note: str | None = None


class BudgetAccount(_Model):
    limit: int
    used: int
    counter: str  # the tiktoken encoding, or "estimate"
    pieces: list[BudgetPiece]


class ContextBundle(_Model):
    """Seed 000/001: the context of one unit for the review prompt."""

    unit_id: str
    meta: BundleMeta
    final_context_level: ContextLevel
    extra_requests: list[ExtraRequest]
    diff: str
    function_context: str | None = None
    file_context: str | None = None
    full_file: str | None = None
    previous_version: str | None = None
    callers: list[CodeSnippet] = Field(default_factory=list)
    search_results: list[CodeSnippet] = Field(default_factory=list)
    scanner_issues: list[ScannerFinding] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)  # requests that found nothing, and why
    budget: BudgetAccount


class AllocatedUnit(_Model):
    """A unit whose bundle was built: ``batch`` 1 is the first review budget, 2... later ones."""

    unit_id: str
    risk: str  # critical, high, medium, low or unknown
    tokens: int = Field(ge=0)
    complete: bool  # nothing clipped, dropped or left unfetched
    batch: int = Field(ge=1)


class DeferredUnit(_Model):
    """A unit left out whole because the review budget ran out before its turn."""

    unit_id: str
    file_path: str
    location: str
    risk: str
    final_context_level: ContextLevel
    tokens: int = Field(ge=0)  # what its bundle would need (at most the unit budget)
    measured: bool  # True: built and counted; False: estimated from the diff and structure
    reason: str


class RiskAllocation(_Model):
    """Included and deferred units of one risk class, and their tokens."""

    risk: str
    included_units: int = 0
    included_tokens: int = 0
    complete_units: int = 0
    deferred_units: int = 0
    deferred_tokens: int = 0


class Allocation(_Model):
    """How the review budget was shared: by priority (``context.priority``), whole units."""

    review_budget: int
    unit_budget: int
    batches: int  # review budgets allocated (``review_batches``; 1 for ``bundle``)
    counter: str
    used: int
    included: list[AllocatedUnit] = Field(default_factory=list)  # in the order built
    deferred: list[DeferredUnit] = Field(default_factory=list)  # in priority order
    by_risk: list[RiskAllocation] = Field(default_factory=list)  # critical first


class BundleSet(_Model):
    """``reviewtui bundle --json``: the included units' bundles, then the allocation."""

    bundles: list[ContextBundle]
    allocation: Allocation


class BundleRecord(_Model):
    """A line of ``reviewtui bundle --jsonl``: one bundle, as soon as it is built."""

    record: Literal["bundle"] = "bundle"
    bundle: ContextBundle


class AllocationRecord(_Model):
    """The last line of ``reviewtui bundle --jsonl``."""

    record: Literal["allocation"] = "allocation"
    allocation: Allocation


BundleLine = Annotated[BundleRecord | AllocationRecord, Field(discriminator="record")]
