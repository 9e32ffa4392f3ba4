"""Cheap token estimates of a unit's bundle, before anything is read, parsed or searched.

The allocation decides which units get the review budget before it does any real work, so the
size of each piece comes from data already at hand: the diff's own lines, the sizes of the
definitions around the changes (the units stage records them on the unit's scopes), the file's
size in bytes (``git cat-file --batch-check``), and how many names a request searches for.
A numbered line costs a few tokens for its number plus its characters / 3.4 (cl100k on code;
calibrated on a large real diff, see ``benchmarks/README.md``); what the rendered bundle adds
around its pieces (heading, metadata block, section titles and fences) comes from the unit's
strings and requests. An
estimate only steers the allocation: a bundle that is built is counted exactly, and one that turns
out bigger than the budget left is deferred, never clipped to fit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewtui.code.kinds import CONTAINER_KINDS
from reviewtui.config import ContextSettings
from reviewtui.context.changes import changed_ranges
from reviewtui.context.excerpt import Range, widen
from reviewtui.models import ContextLevel, ExtraRequest, ScannerFinding
from reviewtui.units.model import ReviewUnit

CHARS_PER_TOKEN = 4.0  # of code text
LINE_TOKENS = 3.0  # the number, " | " and the line break of a numbered line
DIFF_LINE_TOKENS = 4.0  # "  123   124 +" and the line break of a numbered diff line
_HEADER = 60  # a block or hunk header, in characters
_SNIPPETS_PER_NAME = 2  # a search finds about this many places per name (most find none)
_SNAP = 1.25  # file_context windows grow to definition edges, at most doubling
# The rendered bundle around its pieces, fitted on 150 units of the Django diff (within ±10
# tokens for 80 % of them): the heading, the metadata's keys, indentation and budget summary;
# per extra request its lines and, on average, the note or listing it leaves; the unit's own
# strings (paths and names tokenize at about 2.9 characters a token); a section's title and
# fences.
_HEAD_TOKENS = 150
_REQUEST_TOKENS = 20
_STRING_CHARS_PER_TOKEN = 2.9
_SECTION_TOKENS = 10
_SEARCHES = frozenset({"callers", "search", "search_callers", "search_config_usage",
                       "search_implementations", "search_model_usage", "search_class_methods"})

SizeOf = Callable[[ReviewUnit, str], int | None]  # (unit, "new" | "old") -> bytes
NamesOf = Callable[[ReviewUnit, ExtraRequest], int]  # how many names a request searches


def tokens_of(chars: float) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN) if chars > 0 else 0


def _line_tokens(chars: float) -> float:
    return LINE_TOKENS + chars / CHARS_PER_TOKEN


@dataclass(frozen=True, slots=True)
class UnitEstimate:
    """Estimated tokens per piece, in the bundle's rank order."""

    diff: int
    level: int
    previous_version: int
    requests: tuple[int, ...]  # per extra request, in order; 0 for non-search requests
    scanner_issues: int
    rendering: int = 0  # the heading, the metadata block, section titles and fences

    @property
    def total(self) -> int:
        return (self.diff + self.level + self.previous_version + sum(self.requests)
                + self.scanner_issues + self.rendering)


def _line_chars(unit: ReviewUnit) -> float:
    lines = [len(line.text) for hunk in unit.hunks for line in hunk.lines]
    return sum(lines) / len(lines) if lines else 40.0


def diff_tokens(unit: ReviewUnit) -> int:
    """About ``count(diff_excerpt(unit))``, from the hunks' lengths alone."""
    chars = 0
    lines = 0
    for hunk in unit.hunks:
        chars += 2 * _HEADER + len(unit.file_path) + len(hunk.section)
        chars += sum(len(line.text) for line in hunk.lines)
        lines += len(hunk.lines)
    return math.ceil(tokens_of(chars or _HEADER) + lines * DIFF_LINE_TOKENS)


def _request_text(request: ExtraRequest) -> str:
    value = getattr(request, "symbol", None) or getattr(request, "keyword", None)
    return value if isinstance(value, str) else ""


def rendering_tokens(unit: ReviewUnit, level: ContextLevel,
                     requests: Sequence[ExtraRequest]) -> int:
    """About what the rendered bundle adds around its pieces: the heading, the metadata block
    (the unit's path, location, tags, line numbers, requests and budget, as indented JSON) and
    the sections' titles and fences."""
    strings = (2 * len(unit.location) + len(unit.file_path) + len(unit.old_path or "")
               + len(unit.new_compact) + len(unit.old_compact)
               + sum(len(tag) for tag in unit.tags)
               + sum(len(_request_text(r)) for r in requests))
    sections = (1 + int(level is not ContextLevel.DIFF_ONLY)
                + int(any(r.type == "previous_version" for r in requests)))
    return (_HEAD_TOKENS + _REQUEST_TOKENS * len(requests)
            + math.ceil(strings / _STRING_CHARS_PER_TOKEN) + _SECTION_TOKENS * sections)


def _span_lines(ranges: Sequence[Range]) -> int:
    return sum(b - a + 1 for a, b in ranges)


class Estimator:
    """Estimates for the units of one change; ``size_of`` and ``names_of`` are cheap lookups."""

    def __init__(self, settings: ContextSettings, size_of: SizeOf, names_of: NamesOf,
                 findings: Callable[[ReviewUnit], Sequence[ScannerFinding] | None] | None
                 = None) -> None:
        self._settings = settings
        self._size_of = size_of
        self._names_of = names_of
        self._findings = findings

    def unit(self, unit: ReviewUnit, level: ContextLevel,
             requests: Sequence[ExtraRequest]) -> UnitEstimate:
        line = _line_chars(unit)
        per_line = _line_tokens(line)
        ranges = changed_ranges(unit)
        removes_only = unit.change_type == "delete" or (
            unit.added_lines == 0 and unit.removed_lines > 0)
        side = "old" if removes_only else "new"
        primary = ranges.old if removes_only else ranges.new
        file_lines = self._file_lines(unit, side, line)
        level_lines = self._level_lines(unit, level, primary, file_lines)
        previous = 0
        searches: list[int] = []
        scanner = 0
        for request in requests:
            if request.type == "previous_version":
                previous = self._previous_lines(unit, ranges.old, line)
                searches.append(0)
            elif request.type in _SEARCHES:
                names = self._names_of(unit, request)
                window = 2 * self._settings.search_context_lines + 1
                snippet = window * per_line + tokens_of(_HEADER)
                searches.append(math.ceil(names * _SNIPPETS_PER_NAME * snippet))
            else:  # scanner_issues: the findings are at hand
                found = self._findings(unit) if self._findings is not None else None
                scanner = tokens_of(sum(len(f.message) + _HEADER for f in found or ()))
                searches.append(0)
        return UnitEstimate(diff=diff_tokens(unit), level=math.ceil(level_lines * per_line),
                            previous_version=math.ceil(previous * per_line),
                            requests=tuple(searches), scanner_issues=scanner,
                            rendering=rendering_tokens(unit, level, requests))

    def _file_lines(self, unit: ReviewUnit, side: str, line_chars: float) -> int | None:
        size = self._size_of(unit, side)
        return None if size is None else max(1, round(size / (line_chars + 1)))

    def _level_lines(self, unit: ReviewUnit, level: ContextLevel, ranges: Sequence[Range],
                     file_lines: int | None) -> int:
        if level is ContextLevel.DIFF_ONLY:
            return 0
        if level is ContextLevel.FULL_FILE:
            count = file_lines if file_lines is not None else self._settings.full_file_max_lines
            return min(count, self._settings.full_file_max_lines) + 1
        function = self._function_lines(unit, ranges, file_lines)
        if level is ContextLevel.FUNCTION:
            return function
        return self._file_view_lines(ranges, file_lines, function)

    def _file_view_lines(self, ranges: Sequence[Range], file_lines: int | None,
                         function: int) -> int:
        top = file_lines if file_lines is not None else 1 << 30
        window = _span_lines(widen(ranges, self._settings.file_context_lines, top))
        lines = max(function, round(window * _SNAP))
        return min(lines, top) + len(ranges) + 1

    def _function_lines(self, unit: ReviewUnit, ranges: Sequence[Range],
                        file_lines: int | None) -> int:
        """The innermost definitions around the changes, shortened as the level shortens them."""
        settings = self._settings
        window = settings.window_lines
        top = file_lines if file_lines is not None else 1 << 30
        definitions = [s for s in unit.scopes
                       if s.role == "encloses" and 0 < s.start_line <= s.end_line]
        if not definitions:
            return _span_lines(widen(ranges, window, top)) + len(ranges)
        changed = _span_lines(ranges) // len(definitions) + 1
        limit = settings.max_function_lines
        total = 0
        for definition in definitions:
            length = definition.end_line - definition.start_line + 1
            around = changed + 2 * window
            if definition.kind in CONTAINER_KINDS:
                shown = min(length, around + 2)
            elif length > limit:
                shown = min(length, limit // 5 + limit // 10 + around)
            else:
                shown = length
            total += shown + 1
        return total

    def _previous_lines(self, unit: ReviewUnit, old: Sequence[Range], line_chars: float) -> int:
        if unit.change_type == "add" or not old:
            return 0
        if unit.change_type == "delete":
            file_lines = self._file_lines(unit, "old", line_chars)
            return self._file_view_lines(old, file_lines,
                                         self._function_lines(unit, old, file_lines))
        return self._function_lines(unit, old, self._file_lines(unit, "old", line_chars))
