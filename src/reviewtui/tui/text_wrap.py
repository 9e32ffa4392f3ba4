"""Wrap-aware layout for the chat input: cell widths, soft wrapping, moving between rows.

Kept apart from ``text_cursor`` (clusters, words and deleting within a line) because this is
the part that depends on how the line is drawn: where ``TextArea`` soft-wraps a line, how wide
each cluster and tab is, and where the cursor lands on the row above or below. Like
``text_cursor``, it works on whole grapheme clusters and is tested without a terminal.

Conventions (as in ``text_cursor``): a *column* is a code-point offset into one document line;
a *boundary* is a column between two clusters; *x* is a cell offset within one wrapped section
of a line. Widths are Rich's (the measure Textual renders with), summed per cluster, and a tab
advances to the next tab stop counted from the start of the unwrapped line, exactly as
``TextArea`` renders tabs in wrapped lines.

This module imports ``rich.cells`` and ``text_cursor`` only, never Textual.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Literal

from rich.cells import cell_len

from reviewtui.tui.text_cursor import cluster_bounds, snap

__all__ = [
    "Direction",
    "cell_width",
    "column_at_x",
    "locate",
    "tab_widths",
    "visual_move",
    "wrap_offsets",
]

Direction = Literal["up", "down"]


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
    bounds = cluster_bounds(line)
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
