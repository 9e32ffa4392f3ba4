"""Grapheme-aware cursor arithmetic within one line of the chat input.

Textual's ``TextArea`` moves, deletes and soft-wraps by *code point*. That is fine for ASCII, CJK
and single-code-point emoji, but a user-perceived character is often several code points: a ZWJ
family (👩‍👩‍👧, five code points), a flag (🇫🇷, two regional indicators), a skin tone (👍🏽), a
combining accent (``e`` + U+0301), a Hangul syllable typed as jamo, an emoji with a variation
selector (❤️). Stepping into the middle of one of those leaves the cursor where nothing can be
drawn, and Backspace deletes half a glyph. These functions do the arithmetic on whole extended
grapheme clusters (UAX #29, via ``regex``'s ``\\X``) so the widget can stay a thin adapter, and so
the arithmetic can be tested without a terminal (seed 004: the input's cursor bugs came from
cursor maths tangled with rendering). Here: clusters and their boundaries, word moves and
deleting; widths, soft wrapping and moving between wrapped rows are ``text_wrap``.

Conventions: a *column* is a code-point offset into one document line (what Textual calls a
column); a *boundary* is a column between two clusters (0 and ``len(line)`` included).

This module imports ``regex`` only, never Textual.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from functools import lru_cache

import regex

__all__ = [
    "cluster_bounds",
    "delete_left",
    "delete_right",
    "grapheme_bounds",
    "graphemes",
    "next_boundary",
    "prev_boundary",
    "snap",
    "snap_end",
    "word_end_right",
    "word_left",
    "word_right",
]

_CLUSTER = regex.compile(r"\X")
_WORD = regex.compile(r"\w")
_WORD_END = regex.compile(r"\s*\w+")


# --- clusters -------------------------------------------------------------------------------


def graphemes(text: str) -> list[str]:
    """The extended grapheme clusters of ``text``, in order (what a reader counts as characters)."""
    return _CLUSTER.findall(text)


@lru_cache(maxsize=2048)
def cluster_bounds(line: str) -> tuple[int, ...]:
    """The boundaries of ``line`` as :func:`grapheme_bounds`, cached and immutable."""
    # ASCII without CR LF is one cluster per code point: skip the regex on the common case.
    if line.isascii() and "\r\n" not in line:
        return tuple(range(len(line) + 1))
    return (0, *(match.end() for match in _CLUSTER.finditer(line)))


def grapheme_bounds(line: str) -> list[int]:
    """Code-point offsets of every cluster boundary in ``line``, 0 and ``len(line)`` included."""
    return list(cluster_bounds(line))


def snap(line: str, col: int) -> int:
    """The boundary at or before ``col``: a column inside a cluster snaps to the cluster's start.

    Columns outside the line are clamped to it, so any column a caller holds becomes one the
    cursor may rest on.
    """
    bounds = cluster_bounds(line)
    col = max(0, min(col, len(line)))
    return bounds[bisect_right(bounds, col) - 1]


def snap_end(line: str, col: int) -> int:
    """The boundary at or after ``col``: a column inside a cluster moves to the cluster's end.

    Used where a range must swallow a whole cluster (deleting to a word end).
    """
    bounds = cluster_bounds(line)
    col = max(0, min(col, len(line)))
    return bounds[bisect_left(bounds, col)]


def next_boundary(line: str, col: int) -> int:
    """The boundary after ``col`` (one cluster to the right), or ``len(line)`` at the end."""
    bounds = cluster_bounds(line)
    index = bisect_right(bounds, col)
    return bounds[index] if index < len(bounds) else len(line)


def prev_boundary(line: str, col: int) -> int:
    """The boundary before ``col`` (one cluster to the left), or 0 at the start."""
    bounds = cluster_bounds(line)
    index = bisect_left(bounds, min(col, len(line)))
    return bounds[index - 1] if index > 0 else 0


# --- words ----------------------------------------------------------------------------------


def _is_word(line: str, start: int) -> bool:
    # A cluster is a word character when its base is (regex's \w also covers marks and ZWJ).
    return _WORD.match(line, start) is not None


def word_left(line: str, col: int) -> int:
    """Where "word left" lands within ``line``: Textual's rule, on cluster boundaries.

    Trailing whitespace before the cursor is skipped, then the cursor goes to the last change
    between word and non-word clusters (or the line start).
    """
    bounds = cluster_bounds(line)
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
    bounds = cluster_bounds(line)
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
