"""The headless commands' tables: one row a line, columns padded, the last one left ragged."""

from __future__ import annotations

from collections.abc import Sequence

from reviewtui.app.terminal_text import shown_text


def table_lines(rows: Sequence[Sequence[str]]) -> list[str]:
    """``rows`` (the header first) as aligned lines. Each cell is shown on one line: a path
    may hold a newline or a tab (git allows both), which would break its row apart."""
    cells = [[shown_text(cell, one_line=True) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]) - 1)]
    return ["  ".join([*(c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)), row[-1]])
            .rstrip() for row in cells]
