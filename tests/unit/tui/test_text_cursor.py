"""Cursor arithmetic on grapheme clusters within a line, without a terminal."""

from __future__ import annotations

import pytest

from reviewtui.tui.text_cursor import (
    delete_left,
    delete_right,
    grapheme_bounds,
    graphemes,
    next_boundary,
    prev_boundary,
    snap,
    snap_end,
    word_end_right,
    word_left,
    word_right,
)
from tests.support.clusters import CJK, DE, E_ACUTE, FAMILY, FR, GAK, HEART, THUMB


@pytest.mark.parametrize(
    ("text", "clusters"),
    [
        (FAMILY, [FAMILY]),
        (FR + DE, [FR, DE]),
        (THUMB, [THUMB]),
        (E_ACUTE, [E_ACUTE]),
        (GAK, [GAK]),
        (HEART, [HEART]),
        (CJK, ["中", "文"]),
        ("", []),
        (f"a{FAMILY}b{FR}{E_ACUTE}中", ["a", FAMILY, "b", FR, E_ACUTE, "中"]),
    ],
)
def test_graphemes_are_whole_user_perceived_characters(text: str, clusters: list[str]) -> None:
    assert graphemes(text) == clusters
    assert "".join(clusters) == text


def test_bounds_include_both_ends_and_skip_the_inside_of_clusters() -> None:
    assert grapheme_bounds("") == [0]
    assert grapheme_bounds("abc") == [0, 1, 2, 3]
    assert grapheme_bounds(FAMILY) == [0, 5]
    assert grapheme_bounds(FR + DE) == [0, 2, 4]
    assert grapheme_bounds(THUMB) == [0, 2]
    assert grapheme_bounds(E_ACUTE) == [0, 2]
    assert grapheme_bounds(GAK) == [0, 3]
    assert grapheme_bounds(HEART) == [0, 2]
    assert grapheme_bounds(CJK) == [0, 1, 2]
    mixed = f"x{FAMILY}{FR}y"  # x=0..1, family 1..6, flag 6..8, y 8..9
    assert grapheme_bounds(mixed) == [0, 1, 6, 8, 9]


def test_next_and_prev_boundary_step_one_cluster() -> None:
    line = f"a{FAMILY}{FR}{DE}"  # bounds 0 1 6 8 10
    assert next_boundary(line, 0) == 1
    assert next_boundary(line, 1) == 6
    assert next_boundary(line, 3) == 6  # from inside: to the end of that cluster
    assert next_boundary(line, 6) == 8
    assert next_boundary(line, 10) == 10  # end stays
    assert prev_boundary(line, 10) == 8
    assert prev_boundary(line, 8) == 6
    assert prev_boundary(line, 6) == 1
    assert prev_boundary(line, 4) == 1  # from inside: the cluster's start
    assert prev_boundary(line, 0) == 0


def test_snap_moves_inside_columns_to_the_cluster_start_and_clamps() -> None:
    line = f"a{FAMILY}b"
    assert [snap(line, col) for col in range(8)] == [0, 1, 1, 1, 1, 1, 6, 7]
    assert snap(line, -3) == 0
    assert snap(line, 99) == 7
    assert snap_end(line, 3) == 6
    assert snap_end(line, 1) == 1
    assert snap(GAK, 2) == 0 and snap_end(GAK, 2) == 3


def test_word_moves_treat_accented_and_cjk_clusters_as_word_characters() -> None:
    line = f"caf{E_ACUTE} au lait {FAMILY} 中文"
    # bounds: c0 a1 f2 é3..5 ' '5 a6 u7 ' '8 l9 a10 i11 t12 ' '13 family14..19 ' '19 中20 文21
    assert word_right(line, 0) == 5
    assert word_right(line, 5) == 8
    # The family and the space after it are both non-word: one step to the next word.
    assert word_right(line, 13) == 20
    assert word_left(line, 5) == 0
    assert word_left(line, len(line)) == 20
    assert word_left(line, 20) == 13  # back over the family and the space before it
    assert word_left(line, 4) == 0  # from inside é: snapped first
    assert word_end_right(line, 0) == 5  # deletes "café" whole, accent included
    assert word_end_right(f"{E_ACUTE}{E_ACUTE}", 0) == 4


@pytest.mark.parametrize("cluster", [FAMILY, FR, THUMB, E_ACUTE, GAK, HEART, "中"])
def test_delete_left_and_right_remove_exactly_one_cluster(cluster: str) -> None:
    line = f"a{cluster}{cluster}b"
    end_of_first = 1 + len(cluster)
    assert delete_left(line, end_of_first) == (f"a{cluster}b", 1)
    assert delete_right(line, end_of_first) == (f"a{cluster}b", end_of_first)
    assert delete_right(line, 1) == (f"a{cluster}b", 1)
    assert delete_left(line, len(line)) == (f"a{cluster}{cluster}", len(line) - 1)


def test_delete_at_the_edges_and_from_inside_a_cluster() -> None:
    assert delete_left("abc", 0) == ("abc", 0)
    assert delete_right("abc", 3) == ("abc", 3)
    assert delete_left(FR + DE, 3) == (DE, 0)  # col 3 snaps to 2, then the first flag goes
    assert delete_right(f"x{FAMILY}", 2) == ("x", 1)
