"""Parse only the code around the changes: skeletons of the enclosing blocks.

A large diff touches a few lines of many large files, and parsing every file whole dominates the
run time. Code is laid out by indentation in every supported language, so the block holding a
changed line runs from the nearest "start" line above it at its level (plus the decorators,
annotations and comments stacked on it) to the line before the next start line at that level.
When such a block is long (a 3,000-line class) we keep only its header and closing line and
descend one indentation level, repeatedly. The result is a *skeleton*: ``class A:`` / the changed
method / ``}`` -- valid code whose definitions, names and nesting are those of the whole file,
mapped back to file line numbers. A skeleton that does not parse cleanly (a heuristic cut fell
inside a string, say) makes the caller parse the whole file instead, so results never depend on
the heuristic being right.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from reviewtui.code.block_starts import Lines

# Lines glued to the block below them: decorators, annotations and attributes (``@x``,
# ``#[x]``, C# ``[X]``), C++ ``template <...>`` heads, comments.
_ATTACHED = re.compile(rb"@|#|//|/\*|\*|--|\[|template[ \t]*<")
# Identifiers and pointer marks only: the type of a C definition whose name is on the next line.
_TYPE_HEAD = re.compile(rb"[A-Za-z_][\w \t*&]*\r?$")
_CLOSERS = (b"}", b"end", b")")
_OPENERS = (b"(", b"[", b"{", b",")
_BRACKETS = (b")", b"]", b"}")
_HEADER_ENDS = (b":", b"{")
MAX_BLOCK_LINES = 150
_MAX_HEADER_LINES = 12


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def _attached(line: bytes, indent: int) -> bool:
    return _indent(line) == indent and _ATTACHED.match(line, indent) is not None


def _next_start(starts: list[int], after: int, high: int) -> int:
    j = bisect.bisect_right(starts, after)
    return min(starts[j], high + 1) if j < len(starts) else high + 1


def _inside_decorator(line: bytes, indent: int) -> bool:
    """Could ``line`` be the argument list or closing bracket of a multi-line decorator?"""
    if not line.strip():
        return False
    level = _indent(line)
    return level > indent or (level == indent and line[indent:].startswith(_BRACKETS))


def _with_decorators(rows: list[bytes], start: int, low: int, indent: int) -> int:
    """Move ``start`` up over the decorators/comments stacked on it, multi-line ones too, and
    over a C return type written on its own line (``static int`` above ``name(args)``)."""
    row = start - 1
    while row >= low:
        line = rows[row]
        if _attached(line, indent) or (
                _indent(line) == indent and _TYPE_HEAD.match(line, indent) is not None):
            start = row
            if line.startswith(b"*", indent):  # a block comment's last lines: its prose may
                opening = _comment_opening(rows, row, low)  # sit at the block's column
                if opening is not None:
                    start = row = opening
        elif not _inside_decorator(line, indent):
            break
        row -= 1
    return start


def _comment_opening(rows: list[bytes], row: int, low: int) -> int | None:
    """The row above ``row`` (not above ``low``) opening the block comment ``row`` is in
    (``/*`` not closed on its row); None when a comment closes first (``row`` is in none)."""
    for above in range(row - 1, low - 1, -1):
        line = rows[above]
        opened = line.rfind(b"/*")
        if opened >= 0 and line.find(b"*/", opened + 2) < 0:
            return above
        if b"*/" in line:
            return None
    return None


def _trailing_stack(rows: list[bytes], end: int, low: int, indent: int) -> int:
    """First row of the decorators/comments ending the rows before ``end`` (``end`` if none).

    Deeper lines count only as the argument list of a decorator opening a bracket right above
    them, so a comment at the block's indentation inside a body never cuts that body short.
    """
    cut = end
    row = end - 1
    while row >= low:
        line = rows[row]
        if _attached(line, indent):
            if row + 1 < cut and not line.rstrip().endswith(_OPENERS):
                break  # the deeper lines below it are no argument list of this line
            cut = row
        elif not _inside_decorator(line, indent):
            break
        row -= 1
    return cut


def _block(source: Lines, first: int, last: int, low: int, high: int,
           indent: int) -> tuple[int, int]:
    """The block at ``indent`` holding rows ``first..last``, within ``low..high``."""
    rows = source.rows
    starts = source.starts(indent, low, high)
    i = bisect.bisect_right(starts, first) - 1
    start = max(starts[i], low) if i >= 0 else low
    start = _with_decorators(rows, start, low, indent)
    end = _next_start(starts, last, high)
    while True:
        # Decorators and comments (multi-line ones too) at the end belong to the next block.
        cut = _trailing_stack(rows, end, start + 1, indent)
        if cut > last or end > high:
            return start, (cut if cut > last else end) - 1
        if cut <= first:  # the change is in them (a decorator's arguments): the next block's
            start = cut
        # The change reaches into them: take the block they belong to as well.
        end = _next_start(starts, end, high)


def _header_end(lines: list[bytes], start: int, end: int, indent: int) -> int | None:
    """Last line of the block's header (the line ending in ':' or '{'), skipping decorators."""
    row = start
    # over the decorators, their argument lines too (``@override_settings(`` / ``A={`` / ``)``)
    while row <= end and (_attached(lines[row], indent)
                          or (row > start and _inside_decorator(lines[row], indent))):
        row += 1
    for candidate in range(row, min(row + _MAX_HEADER_LINES, end + 1)):
        text = lines[candidate].rstrip()
        if text.endswith(_HEADER_ENDS) or (
                candidate == row and not text.endswith(_OPENERS)  # ``class A(`` goes on
                and text.lstrip().startswith((b"class ", b"module "))):
            return candidate
    return None


def _closing(lines: list[bytes], start: int, end: int, indent: int) -> int | None:
    row = end
    while row > start and not lines[row].strip():
        row -= 1
    text = lines[row]
    if row > start and _indent(text) == indent and text[indent:].startswith(_CLOSERS):
        return row
    return None


def _access_label(source: Lines, low: int, start: int) -> int | None:
    """The last C++ access label (``public:``) in rows ``low..start-1``, if any."""
    labels = source.access_labels()
    i = bisect.bisect_left(labels, start) - 1
    return labels[i] if i >= 0 and labels[i] >= low else None


def _min_indent(lines: list[bytes], first: int, last: int) -> int:
    indents = [_indent(line) for line in lines[first : last + 1] if line.strip()]
    return min(indents) if indents else 0


def skeleton(source: Lines, first: int, last: int,
             max_block: int = MAX_BLOCK_LINES) -> list[int]:
    """0-based file rows forming a parseable skeleton around changed rows ``first..last``."""
    lines = source.rows
    start, end = _block(source, first, last, 0, len(lines) - 1, 0)
    prefix: list[int] = []
    suffix: list[int] = []
    indent = 0
    changed_indent = _min_indent(lines, first, last)
    while end - start + 1 > max_block:
        header = _header_end(lines, start, end, indent)
        if header is None or header >= first:
            break
        body = header + 1
        while body <= end and not lines[body].strip():
            body += 1
        if body > end:
            break
        body_indent = _indent(lines[body])
        if body_indent <= indent or changed_indent < body_indent:
            break
        closing = _closing(lines, start, end, indent)
        inner_high = (closing - 1) if closing is not None else end
        if last > inner_high:
            break
        inner_start, inner_end = _block(source, first, last, header + 1, inner_high,
                                        body_indent)
        prefix.extend(range(start, header + 1))
        label = _access_label(source, header + 1, inner_start)
        if label is not None:
            prefix.append(label)
        if closing is not None:
            suffix.insert(0, closing)
        start, end, indent = inner_start, inner_end, body_indent
    return [*prefix, *range(start, end + 1), *suffix]


def _opened(source: Lines, rows: list[int], opening: bytes) -> list[int] | None:
    """``rows`` behind the tag that opens code (PHP ``<?php``), or None if it is not certain
    that the rows are code: no tag above them, or a closing tag (``?>``) after it."""
    tags = source.rows_with(opening, re.compile(re.escape(opening)))
    i = bisect.bisect_right(tags, rows[0]) - 1
    if i < 0:
        return None
    closing = source.rows_with(b"?>", re.compile(rb"\?>"))
    j = bisect.bisect_left(closing, tags[i])
    if j < len(closing) and closing[j] <= rows[-1]:
        return None
    return rows if tags[i] == rows[0] else [tags[i], *rows]


def skeletons(source: Lines, ranges: Sequence[tuple[int, int]],
              max_block: int = MAX_BLOCK_LINES, *,
              opening: bytes | None = None,
              max_rows: int | None = None) -> list[list[int]] | None:
    """One skeleton per group of 1-based ``ranges``; ranges in one block share a skeleton.

    None when skeletons would not be faithful: a namespace opened at column 0 above a change,
    or (``opening``, PHP's ``<?php``) rows not certainly inside the code tags; and as soon as
    they hold more than ``max_rows`` rows in all (the caller then parses the whole file, and
    the skeletons of the changes further down would be thrown away).
    """
    count = len(source)
    total = 0
    result: list[list[int]] = []
    covered: set[int] = set()
    namespaces = source.open_namespaces()
    for low, high in sorted(ranges):
        first = min(max(low - 1, 0), count - 1)
        last = min(max(high - 1, first), count - 1)
        if all(row in covered for row in range(first, last + 1)):
            continue
        rows = skeleton(source, first, last, max_block)
        if namespaces and namespaces[0] < rows[0]:
            return None
        if opening is not None:
            opened = _opened(source, rows, opening)
            if opened is None:
                return None
            rows = opened
        total += len(rows)
        if max_rows is not None and total > max_rows:
            return None
        covered.update(rows)
        result.append(rows)
    return result
