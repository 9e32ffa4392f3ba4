"""Cell widths, soft wrapping and moves between wrapped rows on grapheme clusters, without a
terminal."""

from __future__ import annotations

import random

import pytest
from rich.cells import cell_len
from textual._wrap import compute_wrap_offsets
from textual.expand_tabs import get_tab_widths

from reviewtui.tui.text_cursor import grapheme_bounds, graphemes
from reviewtui.tui.text_wrap import (
    cell_width,
    column_at_x,
    locate,
    tab_widths,
    visual_move,
    wrap_offsets,
)
from tests.support.clusters import DE, E_ACUTE, FAMILY, FR, GAK, HEART, THUMB


@pytest.mark.parametrize(
    ("cluster", "width"),
    [
        ("a", 1),
        ("中", 2),
        (FAMILY, 2),
        (FR, 2),
        (THUMB, 2),
        (E_ACUTE, 1),
        (GAK, 2),
        (HEART, 2),
        ("\u2764", 1),  # the text-style heart without VS16 is narrow
    ],
)
def test_cell_width_per_cluster(cluster: str, width: int) -> None:
    assert cell_width(cluster) == width


def test_cluster_widths_add_up_to_what_rich_measures_for_the_line() -> None:
    line = f"ab{FAMILY} {FR}{DE}{THUMB}{E_ACUTE}{GAK}{HEART}中文"
    assert sum(cell_width(cluster) for cluster in graphemes(line)) == cell_len(line)


def test_tabs_expand_to_tab_stops_counted_from_the_line_start() -> None:
    assert tab_widths("\tx", 4) == [4]
    assert tab_widths("ab\tc\t", 4) == [2, 3]
    assert tab_widths("中\t", 4) == [2]
    assert tab_widths("no tabs", 4) == []
    assert tab_widths("a\tb", 4) == [width for _, width in get_tab_widths("a\tb", 4) if width]


# --- wrapping ---------------------------------------------------------------------------------


def _sections(line: str, offsets: list[int]) -> list[str]:
    starts = [0, *offsets]
    ends = [*offsets, len(line)]
    return [line[start:end] for start, end in zip(starts, ends, strict=True)]


def test_wrap_breaks_at_whitespace_like_textarea() -> None:
    line = "hello world again"
    assert wrap_offsets(line, 12) == [12]  # "hello world " | "again"
    assert wrap_offsets(line, 11) == [6]  # "hello " | "world again"
    assert _sections(line, wrap_offsets(line, 6)) == ["hello ", "world ", "again"]
    assert wrap_offsets(line, 0) == []  # no wrapping
    assert wrap_offsets("", 5) == []


def test_wrap_agrees_with_textual_on_text_without_clusters() -> None:
    rng = random.Random(7)
    words = ["hello", "中文字符", "a", "longwordlongwordlongword", "  ", "日本語のテキスト",
             "foo.bar()", "ｆｕｌｌ", "x"]
    for _ in range(2000):
        line = " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        width = rng.randint(2, 30)
        expected = compute_wrap_offsets(line, width, 4,
                                        precomputed_tab_sections=get_tab_widths(line, 4))
        assert wrap_offsets(line, width) == expected, (line, width)


def test_wrap_never_splits_a_cluster_and_every_row_fits() -> None:
    rng = random.Random(11)
    pieces = [FAMILY, FR, DE, THUMB, E_ACUTE, GAK, HEART, "中", "文", "a", "b", " ", "word"]
    for _ in range(2000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        width = rng.randint(2, 12)
        offsets = wrap_offsets(line, width)
        bounds = set(grapheme_bounds(line))
        assert all(offset in bounds for offset in offsets), (line, width, offsets)
        assert offsets == sorted(set(offsets))
        for section in _sections(line, offsets):
            # A row may overflow only by trailing spaces (as in Textual) or if one cluster
            # alone is wider than the row.
            assert cell_len(section.rstrip(" ")) <= width or len(graphemes(section)) == 1


def test_a_long_word_of_emoji_folds_between_clusters() -> None:
    line = FAMILY * 4  # 8 cells, 20 code points, no whitespace
    assert wrap_offsets(line, 5) == [10]  # two families (4 cells) per row of 5
    assert wrap_offsets(line, 4) == [10]
    assert wrap_offsets(line, 3) == [5, 10, 15]
    flags = FR + DE + FR  # 6 cells
    assert wrap_offsets(flags, 4) == [4]


# --- locating and vertical moves ----------------------------------------------------------------


def test_locate_and_column_at_x_are_inverse_on_boundaries() -> None:
    line = f"ab{FAMILY}中{FR} cd 文文文"
    offsets = wrap_offsets(line, 6)
    for col in grapheme_bounds(line):
        section, x = locate(line, offsets, col)
        back = column_at_x(line, offsets, section, x)
        assert back == col or (col == len(line) and back == len(line))


def test_column_at_x_inside_a_wide_cluster_lands_on_its_start() -> None:
    line = f"a{FAMILY}b"  # a=x0, family x1..2, b=x3
    assert column_at_x(line, [], 0, 0) == 0
    assert column_at_x(line, [], 0, 1) == 1
    assert column_at_x(line, [], 0, 2) == 1  # right half of the family
    assert column_at_x(line, [], 0, 3) == 6
    assert column_at_x(line, [], 0, 99) == 7  # past the end of the last row: line end


def test_visual_move_down_and_up_through_wrapped_cjk_keeps_the_column() -> None:
    line = "中文" * 10  # 40 cells, wraps at 10 cells into rows of five characters
    assert wrap_offsets(line, 10) == [5, 10, 15]
    row, col, goal = visual_move([line], 10, 0, 2, "down", None)  # x=4 on row 0
    assert (row, col, goal) == (0, 7, 4)
    row, col, goal = visual_move([line], 10, row, col, "down", goal)
    assert (row, col) == (0, 12)
    row, col, goal = visual_move([line], 10, row, col, "up", goal)
    assert (row, col) == (0, 7)
    row, col, goal = visual_move([line], 10, row, col, "up", goal)
    assert (row, col) == (0, 2)
    assert visual_move([line], 10, 0, 2, "up", goal) == (0, 0, 4)  # first row: to the start
    assert visual_move([line], 10, 0, 17, "down", None) == (0, 20, 4)  # last row: to the end


def test_visual_move_between_lines_with_emoji_never_lands_inside_a_cluster() -> None:
    top = f"ab{FAMILY}{FR}cd"  # x: a0 b1 family2-3 flag4-5 c6 d7
    bottom = "xyzw1234"
    row, col, goal = visual_move([top, bottom], 40, 1, 3, "up", None)  # x=3: inside the family
    assert (row, col, goal) == (0, 2, 3)
    row, col, goal = visual_move([top, bottom], 40, 0, 2, "down", goal)
    assert (row, col) == (1, 3)  # the goal column (3) survives the trip
    assert visual_move([top, bottom], 40, 1, 5, "up", None)[:2] == (0, 7)  # the flag's start
    # A shorter row clamps to its end but the goal is kept for the next move.
    lines = ["中文中文中文", "ab", "中文中文中文"]
    row, col, goal = visual_move(lines, 40, 0, 4, "down", None)  # x=8
    assert (row, col, goal) == (1, 2, 8)
    assert visual_move(lines, 40, row, col, "down", goal)[:2] == (2, 4)


def test_visual_move_uses_the_last_cluster_of_an_inner_row_when_past_its_end() -> None:
    line = f"aaa {FAMILY}{FAMILY} bbbbbbbb"
    offsets = wrap_offsets(line, 8)
    assert _sections(line, offsets) == ["aaa ", f"{FAMILY}{FAMILY} ", "bbbbbbbb"]
    # From x=7 on the last row up into the middle row (5 cells wide): its last cluster, the
    # trailing space, since the row's end is the next row's start.
    row, col, _goal = visual_move([line], 8, 0, len(line) - 1, "up", None)
    assert (row, col) == (0, 14)
