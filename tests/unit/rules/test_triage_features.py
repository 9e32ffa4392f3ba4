"""The line features' shortcuts find what the plain computation finds."""

from __future__ import annotations

import itertools

from reviewtui.rules.line_counts import BOUNDARY_LINES, lines_with_match
from reviewtui.rules.triage_features import _BOUNDARY, _calls, _calls_in_both

SIDES = [
    [],
    ["x = 1"],  # no call
    ["foo(a)", "self.bar (b)"],
    ["if x:", "    foo(c)"],
    ["baz(1)", "obj.bar(2)", "len(x)"],  # len is no keyword: a name called
    ["if (x)", "return(y)"],  # keywords, not calls
]


def test_calls_in_both_sides_are_what_each_side_calls() -> None:
    for added, removed in itertools.product(SIDES, repeat=2):
        assert _calls_in_both(added, removed) == _calls(added) & _calls(removed), (
            added, removed)


BOUNDARY_LINES_CASES = [
    "x +", "1 <= 2", "a >= b", "a[ 0 ]", "a[-1]", "a[ -1 ]", "b[1]", "i + 1", "i -\t1",
    "i - 12", "n+1x", "xlen(a)", "len(a)", "_len(a)", "\u00e9len(a)", ".len(a)", "foo.length",
    "a.lengthy", "s.size()", "s.size (", "max(a)", "xmax(a)", "min (a)", "range(3)",
    "arange(3)", "\u00e9range(3)", "(range(3))", "a\r", "+\r1", "", " ", "[", "]", "0 ]",
]


def test_boundary_lines_are_counted_as_line_by_line() -> None:
    def by_line(lines: list[str]) -> int:
        return sum(1 for line in lines if _BOUNDARY.search(line))

    for size in (1, 2):  # two lines: a match must not span the line break
        for lines in itertools.product(BOUNDARY_LINES_CASES, repeat=size):
            assert lines_with_match(BOUNDARY_LINES, lines) == by_line(list(lines)), lines
    # a line holding a line break is counted once, as line by line
    assert lines_with_match(BOUNDARY_LINES, ["a <= b\nc >= d", "x"]) == 1
    assert lines_with_match(BOUNDARY_LINES, []) == 0
