"""Grapheme-aware, wrap-aware cursor arithmetic for the chat input.

Textual's ``TextArea`` moves, deletes and soft-wraps by *code point*. That is fine for ASCII, CJK
and single-code-point emoji, but a user-perceived character is often several code points: a ZWJ
family (👩‍👩‍👧, five code points), a flag (🇫🇷, two regional indicators), a skin tone (👍🏽), a
combining accent (``e`` + U+0301), a Hangul syllable typed as jamo, an emoji with a variation
selector (❤️). Stepping into the middle of one of those leaves the cursor where nothing can be
drawn, and Backspace deletes half a glyph. These functions do the arithmetic on whole extended
grapheme clusters (UAX #29, via ``regex``'s ``\\X``) so the widget can stay a thin adapter, and so
the arithmetic can be tested without a terminal (seed 004: the input's cursor bugs came from
cursor maths tangled with rendering).

Conventions: a *column* is a code-point offset into one document line (what Textual calls a
column); a *boundary* is a column between two clusters (0 and ``len(line)`` included); *x* is a
cell offset within one wrapped section of a line. Widths are Rich's (the measure Textual renders
with), summed per cluster, and a tab advances to the next tab stop counted from the start of the
unwrapped line, exactly as ``TextArea`` renders tabs in wrapped lines.

This module imports ``regex`` and ``rich.cells`` only, never Textual.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Literal

import regex
from rich.cells import cell_len

__all__ = [
    "Direction",
    "cell_width",
    "column_at_x",
    "delete_left",
    "delete_right",
    "grapheme_bounds",
    "graphemes",
    "locate",
    "next_boundary",
    "prev_boundary",
    "snap",
    "snap_end",
    "tab_widths",
    "visual_move",
    "word_end_right",
    "word_left",
    "word_right",
    "wrap_offsets",
]

Direction = Literal["up", "down"]

_CLUSTER = regex.compile(r"\X")
_WORD = regex.compile(r"\w")
_WORD_END = regex.compile(r"\s*\w+")


# --- clusters -------------------------------------------------------------------------------


def graphemes(text: str) -> list[str]:
    """The extended grapheme clusters of ``text``, in order (what a reader counts as characters)."""
    return _CLUSTER.findall(text)


@lru_cache(maxsize=2048)
def _bounds(line: str) -> tuple[int, ...]:
    # ASCII without CR LF is one cluster per code point: skip the regex on the common case.
    if line.isascii() and "\r\n" not in line:
        return tuple(range(len(line) + 1))
    return (0, *(match.end() for match in _CLUSTER.finditer(line)))


def grapheme_bounds(line: str) -> list[int]:
    """Code-point offsets of every cluster boundary in ``line``, 0 and ``len(line)`` included."""
    return list(_bounds(line))


def snap(line: str, col: int) -> int:
    """The boundary at or before ``col``: a column inside a cluster snaps to the cluster's start.

    Columns outside the line are clamped to it, so any column a caller holds becomes one the
    cursor may rest on.
    """
    bounds = _bounds(line)
    col = max(0, min(col, len(line)))
    return bounds[bisect_right(bounds, col) - 1]


def snap_end(line: str, col: int) -> int:
    """The boundary at or after ``col``: a column inside a cluster moves to the cluster's end.

    Used where a range must swallow a whole cluster (deleting to a word end).
    """
    bounds = _bounds(line)
    col = max(0, min(col, len(line)))
    return bounds[bisect_left(bounds, col)]


def next_boundary(line: str, col: int) -> int:
    """The boundary after ``col`` (one cluster to the right), or ``len(line)`` at the end."""
    bounds = _bounds(line)
    index = bisect_right(bounds, col)
    return bounds[index] if index < len(bounds) else len(line)


def prev_boundary(line: str, col: int) -> int:
    """The boundary before ``col`` (one cluster to the left), or 0 at the start."""
    bounds = _bounds(line)
    index = bisect_left(bounds, min(col, len(line)))
    return bounds[index - 1] if index > 0 else 0


# --- widths ---------------------------------------------------------------------------------


def cell_width(cluster: str) -> int:
    """Terminal cells one cluster occupies, as Rich (and so Textual) measures it.

    Wide CJK and emoji are 2; combining marks, variation selectors and skin-tone modifiers add
    nothing to their base; a ZWJ sequence is as wide as its first emoji (2); a flag's two
    regional indicators are 1 each. A tab is 0 here: its width depends on where it sits, see
    :func:`tab_widths`.
    """
    return cell_len(cluster)


@lru_cache(maxsize=2048)
def _layout(line: str, tab_size: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(boundaries, x of each boundary from the start of the unwrapped line)."""
    bounds = _bounds(line)
    xs = [0]
    x = 0
    for start, end in pairwise(bounds):
        cluster = line[start:end]
        x += tab_size - x % tab_size if cluster == "\t" else cell_len(cluster)
        xs.append(x)
    return bounds, tuple(xs)


def tab_widths(line: str, tab_size: int = 4) -> list[int]:
    """The width each tab in ``line`` expands to, in order (Textual's tab cache for a line)."""
    bounds, xs = _layout(line, tab_size)
    return [xs[i + 1] - xs[i] for i, start in enumerate(bounds[:-1]) if line[start] == "\t"]


def _x_at(line: str, col: int, tab_size: int) -> int:
    """The x of ``col`` (snapped to its cluster's start) from the start of the unwrapped line."""
    bounds, xs = _layout(line, tab_size)
    col = max(0, min(col, len(line)))
    return xs[bisect_right(bounds, col) - 1]


# --- soft wrapping --------------------------------------------------------------------------


def wrap_offsets(line: str, width: int, tab_size: int = 4) -> list[int]:
    """The columns where soft wrapping breaks ``line`` at ``width`` cells; never inside a cluster.

    The same algorithm as Textual's ``compute_wrap_offsets`` (so plain text wraps exactly as a
    stock ``TextArea`` would): the line is cut into chunks of a word plus its trailing
    whitespace; a chunk that does not fit moves to the next line, and a chunk wider than a whole
    line is folded. The difference is the unit: Textual folds and measures by code point, which
    splits a ZWJ family between two rows; here the unit is the cluster. ``width <= 0`` means no
    wrapping.
    """
    if width <= 0 or not line:
        return []
    bounds, xs = _layout(line, tab_size)
    count = len(bounds) - 1
    space = [line[bounds[i]].isspace() for i in range(count)]
    breaks: list[int] = []
    cell_offset = 0
    i = 0
    while i < count:
        # One chunk, as the regex \S+\s*|\s+ would cut it, but over clusters.
        j = i
        if not space[j]:
            while j < count and not space[j]:
                j += 1
        while j < count and space[j]:
            j += 1
        chunk_width = xs[j] - xs[i]
        start = bounds[i]
        if width - cell_offset >= chunk_width:
            cell_offset += chunk_width
        elif chunk_width > width:
            # Fold the chunk: as many whole clusters per row as fit (at least one).
            row_starts = [i]
            row_width = 0
            for k in range(i, j):
                cluster_width = xs[k + 1] - xs[k]
                if row_width + cluster_width > width and k != row_starts[-1]:
                    row_starts.append(k)
                    row_width = cluster_width
                else:
                    row_width += cluster_width
            for row_start in row_starts:
                if bounds[row_start]:
                    breaks.append(bounds[row_start])
            cell_offset = row_width
        elif cell_offset and start:
            breaks.append(start)
            cell_offset = chunk_width
        i = j
    return breaks


def _section_starts(offsets: Sequence[int]) -> list[int]:
    return [0, *offsets]


def locate(line: str, offsets: Sequence[int], col: int, tab_size: int = 4) -> tuple[int, int]:
    """(section index, x within that section) of ``col`` in a line wrapped at ``offsets``.

    A column equal to a wrap offset belongs to the section the offset starts, as in Textual.
    """
    col = snap(line, col)
    section = bisect_right(offsets, col)
    start = _section_starts(offsets)[section]
    return section, _x_at(line, col, tab_size) - _x_at(line, start, tab_size)


def column_at_x(
    line: str, offsets: Sequence[int], section: int, x: int, tab_size: int = 4
) -> int:
    """The boundary in section ``section`` of a wrapped line nearest to the left of cell ``x``.

    A cluster under ``x`` (including the right half of a wide one) yields its start. Past the end
    of the last section the cursor may rest at the line's end; past the end of an inner section
    it lands on the section's last cluster, since the end of an inner section is the start of
    the next one.
    """
    bounds, xs = _layout(line, tab_size)
    starts = _section_starts(offsets)
    section = max(0, min(section, len(starts) - 1))
    start = snap(line, starts[section])
    last = section == len(starts) - 1
    end = len(line) if last else snap(line, starts[section + 1])
    first = bisect_left(bounds, start)
    origin = xs[first]
    k = first
    while k < len(bounds) - 1 and bounds[k] < end:
        if xs[k + 1] - origin > x:
            return bounds[k]
        k += 1
    if last or k == first:
        return end
    return bounds[k - 1]


def visual_move(
    lines: Sequence[str],
    wrap_width: int,
    row: int,
    col: int,
    direction: Direction,
    goal_x: int | None,
    tab_size: int = 4,
) -> tuple[int, int, int]:
    """Move up or down one *visual* row, keeping the goal column; returns (row, col, goal_x).

    ``goal_x`` is the cell column the user was last at horizontally (``None``: where the cursor
    is now). It survives passing through shorter rows, so going down through an empty line and
    on returns to the same column. Up from the first visual row goes to the start of the text,
    down from the last to its end, as in Textual. The result is always a cluster boundary.
    """
    line = lines[row]
    offsets = wrap_offsets(line, wrap_width, tab_size)
    section, x = locate(line, offsets, col, tab_size)
    goal = x if goal_x is None else goal_x
    if direction == "up":
        if section > 0:
            return row, column_at_x(line, offsets, section - 1, goal, tab_size), goal
        if row == 0:
            return 0, 0, goal
        above = lines[row - 1]
        above_offsets = wrap_offsets(above, wrap_width, tab_size)
        return row - 1, column_at_x(above, above_offsets, len(above_offsets), goal, tab_size), goal
    if section < len(offsets):
        return row, column_at_x(line, offsets, section + 1, goal, tab_size), goal
    if row == len(lines) - 1:
        return row, len(line), goal
    below = lines[row + 1]
    return row + 1, column_at_x(below, wrap_offsets(below, wrap_width, tab_size), 0, goal,
                                tab_size), goal


# --- words ----------------------------------------------------------------------------------


def _is_word(line: str, start: int) -> bool:
    # A cluster is a word character when its base is (regex's \w also covers marks and ZWJ).
    return _WORD.match(line, start) is not None


def word_left(line: str, col: int) -> int:
    """Where "word left" lands within ``line``: Textual's rule, on cluster boundaries.

    Trailing whitespace before the cursor is skipped, then the cursor goes to the last change
    between word and non-word clusters (or the line start).
    """
    bounds = _bounds(line)
    col = snap(line, col)
    end = len(line[:col].rstrip())
    end = snap_end(line, end)
    index = bisect_left(bounds, end)
    while index > 1:
        if _is_word(line, bounds[index - 1]) != _is_word(line, bounds[index - 2]):
            return bounds[index - 1]
        index -= 1
    return 0


def word_right(line: str, col: int) -> int:
    """Where "word right" lands within ``line``: Textual's rule, on cluster boundaries.

    Leading whitespace after the cursor is skipped, then the cursor goes to the first change
    between word and non-word clusters (or the line end).
    """
    bounds = _bounds(line)
    col = snap(line, col)
    start = snap(line, len(line) - len(line[col:].lstrip()))
    index = bisect_left(bounds, start)
    while index + 1 < len(bounds) - 1:
        if _is_word(line, bounds[index]) != _is_word(line, bounds[index + 1]):
            return bounds[index + 1]
        index += 1
    return len(line)


def word_end_right(line: str, col: int) -> int:
    """Where "delete word right" stops: past optional spaces and one word, never mid-cluster."""
    found = _WORD_END.search(line, snap(line, col))
    return snap_end(line, found.end()) if found else len(line)


# --- deleting -------------------------------------------------------------------------------


def delete_left(line: str, col: int) -> tuple[str, int]:
    """Backspace within a line: remove the whole cluster before ``col``; (new line, new col)."""
    col = snap(line, col)
    start = prev_boundary(line, col)
    return line[:start] + line[col:], start


def delete_right(line: str, col: int) -> tuple[str, int]:
    """Delete within a line: remove the whole cluster after ``col``; (new line, col)."""
    col = snap(line, col)
    return line[:col] + line[next_boundary(line, col):], col
