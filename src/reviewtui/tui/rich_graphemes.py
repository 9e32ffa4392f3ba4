"""Rich's grapheme spans made to agree with its cell widths for text that opens with a ZWJ.

Rich 15 measures a string (``cell_len``) and splits it into graphemes (``split_graphemes``,
behind every crop and pad of a cell) by two rules that differ for a zero width joiner at the
very start: measuring, a joiner always swallows the character after it; splitting, a leading
one stands alone and the next joiner swallows the character after *it* uncounted. A file
named ``\\u200d\\u200d中.py`` (or a code line, an answer of the model opening so) then made
``set_cell_size`` index past its spans, and the table painting the path raised out of the
app -- a traceback, exit status 0. Other leading joiners gave wrong widths (a misaligned
row).

``split_graphemes`` is wrapped, once, when the workbench is imported: a joiner at the start and
the character after it become one span of no width, as ``cell_len`` counts them, and the rest
is Rich's own splitting. Strings not opening with a joiner are not touched. If Rich lays this
out differently one day (the function gone, a fixed version), nothing is wrapped.
"""

from __future__ import annotations

from collections.abc import Callable

import rich.cells

_JOINER = "\u200d"

Spans = tuple[list[tuple[int, int, int]], int]


def _agreeing(split: Callable[..., Spans]) -> Callable[..., Spans]:
    def split_graphemes(text: str, unicode_version: str = "auto") -> Spans:
        if not text.startswith(_JOINER):
            return split(text, unicode_version)
        skipped = min(2, len(text))  # the joiner and what it joins: measured as nothing
        spans, width = split_graphemes(text[skipped:], unicode_version)
        return [(0, skipped, 0), *((start + skipped, end + skipped, cells)
                                   for start, end, cells in spans)], width

    split_graphemes.__wrapped__ = split  # type: ignore[attr-defined]
    return split_graphemes


def install() -> None:
    """Wrap ``rich.cells.split_graphemes`` (once; nothing if Rich has no such function)."""
    split = getattr(rich.cells, "split_graphemes", None)
    if callable(split) and not hasattr(split, "__wrapped__"):
        rich.cells.split_graphemes = _agreeing(split)


install()
