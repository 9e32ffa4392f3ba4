"""Cut very long lines of a unit's numbered diff to a window around what changed.

A change inside one long line (minified JavaScript, a 30 KB configuration line) cannot be clipped
at line boundaries: the whole line is one line, so clipping keeps the hunk headers and drops both
the removed and the added line -- the bundle then shows nothing of the change. Here each long
line keeps its numbers and its kind and is cut to a window of its text; for a removed line and
the added line that replaces it, the window sits on the characters that differ (their common
head and tail are what was cut), so ``k1500:1500`` → ``k1500:eval(userInput)`` reaches the
model. What was cut is marked on the line: ``[… 7,412 chars]`` before, ``[22,300 chars …]``
after. The window is the widest that lets the whole diff fit its room.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["LONG_LINE", "cut_marks", "window_long_lines"]

Counter = Callable[[str], int]

LONG_LINE = 400  # characters of a line's text: longer lines may be cut to a window
MIN_WINDOW = 24  # characters: the narrowest window tried
_ROW = re.compile(r"( *\d*) ( *\d*) ([-+ ])")  # "{old:>5} {new:>5} {kind}" of diff_rows
_MARK = re.compile(r"\[… [\d,]+ chars\] |\s\[[\d,]+ chars …\]")


@dataclass(frozen=True, slots=True)
class _Row:
    prefix: str  # the numbers and the kind ("" for headers and markers)
    text: str
    kind: str  # "+", "-", " ", or "" for a line that is not a diff row
    start: int = 0  # where the changed characters begin in ``text``


def _rows(text: str) -> list[_Row]:
    rows: list[_Row] = []
    for line in text.split("\n"):
        match = _ROW.match(line) if not line.startswith(("@@", "\\")) else None
        if match is None:
            rows.append(_Row("", line, ""))
        else:
            rows.append(_Row(line[:match.end()], line[match.end():], match.group(3)))
    return _changed_starts(rows)


def _common_head(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _changed_starts(rows: list[_Row]) -> list[_Row]:
    """Pair each run of removed rows with the added rows after it (first with first...) and
    mark where each pair starts to differ."""
    out = list(rows)
    i = 0
    while i < len(out):
        if out[i].kind != "-":
            i += 1
            continue
        removed_end = i
        while removed_end < len(out) and out[removed_end].kind == "-":
            removed_end += 1
        added_end = removed_end
        while added_end < len(out) and out[added_end].kind == "+":
            added_end += 1
        for r, a in zip(range(i, removed_end), range(removed_end, added_end), strict=False):
            head = _common_head(out[r].text, out[a].text)
            out[r] = _Row(out[r].prefix, out[r].text, "-", head)
            out[a] = _Row(out[a].prefix, out[a].text, "+", head)
        i = added_end
    return out


def _window(row: _Row, width: int) -> str:
    text = row.text
    if row.kind == "" or len(text) <= max(width, LONG_LINE):
        return row.prefix + text
    start = max(0, min(row.start - width // 4, len(text) - width))
    end = start + width
    before = f"[… {start:,} chars] " if start else ""
    after = f" [{len(text) - end:,} chars …]" if end < len(text) else ""
    return f"{row.prefix}{before}{text[start:end]}{after}"


def window_long_lines(text: str, room: int, count: Counter) -> tuple[str, bool]:
    """``text`` (a numbered diff) with its lines longer than ``LONG_LINE`` characters cut to
    the widest window that lets it fit ``room`` tokens, or to the narrowest one when none does;
    and whether it fits. ``text`` itself (and False) when it has no long line."""
    rows = _rows(text)
    longest = max((len(row.text) for row in rows if row.kind), default=0)
    if longest <= LONG_LINE:
        return text, False

    def cut(width: int) -> str:
        return "\n".join(_window(row, width) for row in rows)

    low, high, best = MIN_WINDOW, longest - 1, None
    while low <= high:
        middle = (low + high) // 2
        if count(cut(middle)) <= room:
            best, low = middle, middle + 1
        else:
            high = middle - 1
    if best is None:
        return cut(MIN_WINDOW), False
    return cut(best), True


def cut_marks(text: str) -> int:
    """How many lines of ``text`` were cut to a window."""
    return sum(1 for line in text.split("\n") if _MARK.search(line))
