"""Rich's grapheme spans agree with its cell widths once the workbench is imported.

Rich 15 split a string opening with a zero width joiner into graphemes that did not add up
to the string's measured width: ``set_cell_size`` (every crop and pad of a table cell) then
raised on a file named ``\\u200d\\u200d中.py`` -- a traceback out of the workbench.
"""

from __future__ import annotations

import random

import rich.cells
from rich.cells import cell_len, set_cell_size

import reviewtui.tui.app  # noqa: F401  (installs the wrapper, as the workbench does)
from reviewtui.tui import rich_graphemes

CHARACTERS = ["a", " ", "\u200d", "\u4e2d", "\u0301", "\U0001f468", "\ufe0f", "\U0001f3fb"]


def _texts(count: int, seed: int) -> list[str]:
    chosen = random.Random(seed)
    return ["".join(chosen.choice(CHARACTERS) for _ in range(chosen.randrange(1, 8)))
            for _ in range(count)]


def test_a_text_opening_with_two_joiners_is_cut_and_padded_to_any_width() -> None:
    # (a joiner at the very end still swallows the padding after it, measured: Rich's own,
    # a cell short at worst, and no failure)
    for text in ("\u200d\u200d\u4e2d\u4e2d.py", "\u200d\u200d\U0001f468 x", "\u200d\u4e2dx"):
        for width in range(10):
            assert cell_len(set_cell_size(text, width)) == width, (text, width)


def test_the_spans_cover_the_text_and_add_up_to_its_width() -> None:
    for text in _texts(20_000, 3):
        spans, width = rich.cells.split_graphemes(text)
        assert width == cell_len(text), repr(text)
        assert sum(cells for _, _, cells in spans) == width
        assert [start for start, _, _ in spans] == [0, *(end for _, end, _ in spans[:-1])]
        assert spans[-1][1] == len(text)


def test_cutting_never_raises() -> None:
    chosen = random.Random(5)
    for text in _texts(20_000, 4):
        set_cell_size(text, chosen.randrange(0, 10))


def test_other_texts_are_split_as_rich_splits_them() -> None:
    rich_graphemes.install()  # a second time: wrapped once only
    split = rich.cells.split_graphemes
    original = split.__wrapped__  # type: ignore[attr-defined]
    assert not hasattr(original, "__wrapped__")
    for text in _texts(5_000, 6):
        if not text.startswith("\u200d"):
            assert split(text) == original(text)
