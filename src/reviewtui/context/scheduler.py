"""The context scheduler (seeds 000/001): one ``ContextBundle`` per planned unit, under budget.

For each unit: the diff (always), the text of its final level, then its extra requests. The
pieces are ranked (diff, level context, previous version, callers and search results, scanner
issues), and the token budget -- per unit, shared fairly when the whole review would exceed its
own budget -- includes, clips (at line boundaries) or drops them; the bundle keeps the account.
File versions and their parse trees are read once per file for all units of that file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewtui.code import FileStructure
from reviewtui.config import ContextSettings
from reviewtui.context.budget import Piece, fit_pieces, split_review_budget
from reviewtui.context.excerpt import parse_structure
from reviewtui.context.levels import LEVEL_FIELDS, diff_excerpt, level_context, previous_version
from reviewtui.context.requests import RequestResults, RequestRunner
from reviewtui.git import ChangeSet, ContentReader, FileChange
from reviewtui.models import (
    BundleMeta,
    CodeSnippet,
    ContextBundle,
    ContextLevel,
    ExtraRequest,
    LineNumbers,
    ScannerFinding,
)
from reviewtui.units.model import ReviewUnit

Counter = Callable[[str], int]


@dataclass(frozen=True)
class BundleRequest:
    """What to build for one unit: its final level and extra requests (from the fused plan)."""

    unit_id: str
    level: ContextLevel
    extra_requests: tuple[ExtraRequest, ...] = ()


@dataclass(frozen=True)
class _Prepared:
    unit: ReviewUnit
    request: BundleRequest
    pieces: list[Piece]
    results: RequestResults
    notes: list[str]


def _snippet_text(snippet: CodeSnippet) -> str:
    what = f" ({snippet.kind} {snippet.symbol})" if snippet.symbol else f" ({snippet.kind})"
    return f"{snippet.file_path}:{snippet.line}{what}\n{snippet.snippet}"


def _finding_text(finding: ScannerFinding) -> str:
    return (f"L{finding.line}:{finding.column} {finding.severity} {finding.tool} "
            f"{finding.rule_id}: {finding.message}")


class ContextScheduler:
    def __init__(self, units: Sequence[ReviewUnit], change_set: ChangeSet, reader: ContentReader,
                 settings: ContextSettings, runner: RequestRunner, *, count: Counter,
                 counter_name: str) -> None:
        self._units = {unit.unit_id: unit for unit in units}
        self._changes = {change.path: change for change in change_set.files}
        self._reader = reader
        self._settings = settings
        self._runner = runner
        self._count = functools.lru_cache(maxsize=8192)(count)  # pieces are counted twice
        self._counter_name = counter_name
        self._texts: dict[tuple[str, str], bytes | None] = {}
        self._trees: dict[tuple[str, str], FileStructure | None] = {}

    def _version(self, change: FileChange | None, side: str) -> bytes | None:
        if change is None:
            return None
        key = (change.path, side)
        if key not in self._texts:
            if change.is_binary or change.kind.value != "file":
                self._texts[key] = None
            else:
                read = self._reader.new if side == "new" else self._reader.old
                self._texts[key] = read(change)
        return self._texts[key]

    def _tree(self, unit: ReviewUnit, side: str, data: bytes | None) -> FileStructure | None:
        key = (unit.file_path, side)
        if key not in self._trees:
            self._trees[key] = parse_structure(unit.language, data) if data is not None else None
        return self._trees[key]

    def _prepare(self, request: BundleRequest) -> _Prepared:
        unit = self._units[request.unit_id]
        change = self._changes.get(unit.file_path)
        settings = self._settings
        new = self._version(change, "new")
        old = self._version(change, "old")
        notes: list[str] = []
        if change is not None and change.is_binary:
            notes.append("binary file: no content beyond the diff summary")
        pieces = [Piece("diff", diff_excerpt(unit), 0)]
        field = LEVEL_FIELDS.get(request.level)
        if field is not None:
            text = level_context(request.level, unit, new, self._tree(unit, "new", new),
                                 settings, old_text=old,
                                 old_structure=self._tree(unit, "old", old))
            if text is None and change is not None and not change.is_binary:
                notes.append(f"{request.level.value}: file content not available")
            pieces.append(Piece(field, text, 1))
        results = self._runner.run(unit, request.extra_requests)
        if results.previous_version:
            before = previous_version(unit, old, self._tree(unit, "old", old), settings)
            if before is None:
                notes.append("previous_version: no earlier version (a new file)"
                             if unit.change_type == "add" else
                             "previous_version: the earlier version is not available")
            pieces.append(Piece("previous_version", before, 2))
        pieces += [Piece(f"callers[{i}]", _snippet_text(s), 3)
                   for i, s in enumerate(results.callers)]
        pieces += [Piece(f"search_results[{i}]", _snippet_text(s), 3)
                   for i, s in enumerate(results.search_results)]
        pieces += [Piece(f"scanner_issues[{i}]", _finding_text(f), 4, clip=False)
                   for i, f in enumerate(results.scanner_issues)]
        return _Prepared(unit, request, pieces, results, notes + results.notes)

    def _want(self, prepared: _Prepared) -> int:
        return sum(self._count(p.text) for p in prepared.pieces if p.text)

    def build(self, requests: Sequence[BundleRequest], *, unit_budget: int | None = None,
              review_budget: int | None = None) -> list[ContextBundle]:
        """Bundles for ``requests`` (unknown unit ids are skipped), in request order."""
        unit_budget = unit_budget or self._settings.unit_budget
        review_budget = review_budget or self._settings.review_budget
        requests = [r for r in requests if r.unit_id in self._units]
        units = [self._units[r.unit_id] for r in requests]
        self._reader.prefetch(self._changes[u.file_path] for u in units
                              if u.file_path in self._changes)
        self._runner.prefetch([(u, r.extra_requests) for u, r in zip(units, requests,
                                                                      strict=True)])
        prepared = [self._prepare(r) for r in requests]
        wants = [min(self._want(p), unit_budget) for p in prepared]
        if sum(wants) <= review_budget:
            limits = [unit_budget] * len(prepared)
        else:  # share the review budget fairly; small bundles keep all they need
            limits = split_review_budget(wants, review_budget, unit_budget)
        return [self._bundle(p, limit) for p, limit in zip(prepared, limits, strict=True)]

    def _bundle(self, prepared: _Prepared, limit: int) -> ContextBundle:
        texts, account = fit_pieces(prepared.pieces, limit, self._count, self._counter_name)
        unit, results = prepared.unit, prepared.results

        def kept(prefix: str, items: Sequence[CodeSnippet]) -> list[CodeSnippet]:
            out: list[CodeSnippet] = []
            for i, item in enumerate(items):
                text = texts.get(f"{prefix}[{i}]")
                if text and "\n" in text:  # the first line is the location label
                    out.append(item.model_copy(update={"snippet": text.split("\n", 1)[1]}))
            return out

        issues = [f for i, f in enumerate(results.scanner_issues)
                  if texts.get(f"scanner_issues[{i}]")]
        return ContextBundle(
            unit_id=unit.unit_id,
            meta=BundleMeta(file_path=unit.file_path, old_path=unit.old_path,
                            location=unit.location, language=unit.language,
                            change_type=unit.change_type, tags=list(unit.tags),
                            line_numbers=LineNumbers(new_compact=unit.new_compact,
                                                     old_compact=unit.old_compact)),
            final_context_level=prepared.request.level,
            extra_requests=list(prepared.request.extra_requests),
            diff=texts.get("diff") or "",
            function_context=texts.get("function_context"),
            file_context=texts.get("file_context"),
            full_file=texts.get("full_file"),
            previous_version=texts.get("previous_version"),
            callers=kept("callers", results.callers),
            search_results=kept("search_results", results.search_results),
            scanner_issues=issues,
            notes=prepared.notes,
            budget=account,
        )
