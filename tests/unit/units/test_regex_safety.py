"""Which patterns a rule pack may not hold: an unbounded repeat of a sequence of repeats."""

from __future__ import annotations

import pytest

from reviewtui.units.regex_safety import nested_repeat


@pytest.mark.parametrize("pattern", [
    "(a+)+$", r"(\w*\s?)*", "(?:x{2,})+", "(x+x+)+y", "(a|b+)+", "((ab)*)+", "(a*)*",
    "(?=(a+)+)", r"\b(?:(\d+)*)+\b",
])
def test_nested_unbounded_repeats_are_found(pattern: str) -> None:
    assert nested_repeat(pattern)


@pytest.mark.parametrize("pattern", [
    # a character of its own in every round splits a text one way only (the shipped packs)
    r"\bledger\.post\(", "a+b+", r"(\w+\s*,\s*)*Authorize\b", r"(->\w+|\[\w*\])*",
    r"\bclass\s+\w+\((\w+\.)*(Model|Base)\)", "(ab{1,3})*c", "(a|b)+", "(a?)+",
    # possessive repeats and atomic groups never backtrack
    "(a++)+", "(?>a+)+",
])
def test_patterns_that_split_one_way_are_allowed(pattern: str) -> None:
    assert not nested_repeat(pattern)
