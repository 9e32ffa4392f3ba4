"""The headless commands' tables: one row a line, columns padded, the last one left ragged."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from reviewtui.app.terminal_text import shown_text


def table_lines(rows: Sequence[Sequence[str]]) -> list[str]:
    """``rows`` (the header first) as aligned lines. Each cell is shown on one line: a path
    may hold a newline or a tab (git allows both), which would break its row apart. Columns
    are padded by the cells a terminal gives the text, not by its characters: a CJK name
    takes two a character, a combining accent none."""
    cells = [[shown_text(cell, one_line=True) for cell in row] for row in rows]
    widths = [max(display_width(row[i]) for row in cells) for i in range(len(cells[0]) - 1)]
    return ["  ".join([*(_padded(c, w) for c, w in zip(row[:-1], widths, strict=True)),
                       row[-1]]).rstrip() for row in cells]


def display_width(text: str) -> int:
    """The terminal cells ``text`` takes (East Asian wide and fullwidth: two; combining: 0)."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(ch) else
               2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _padded(cell: str, width: int) -> str:
    return cell + " " * (width - display_width(cell))
