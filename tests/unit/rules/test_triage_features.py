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


def test_comment_heads_say_what_the_comment_regex_said() -> None:
    """``_ChangedLines`` asks the stripped line for ``COMMENT_HEADS`` where the regex below was
    matched against every changed line: every whitespace character of Unicode before every
    head (and near misses) says the same."""
    import re
    import sys

    from reviewtui.rules.triage_features import COMMENT_HEADS

    regex = re.compile(r"^\s*(#|//|/\*|\*|--|<!--|\"\"\"|''')")
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    tails = [*COMMENT_HEADS, "/", "-", "<!-", '""', "''", "x", "a # b", "\u00e9", "", "\u200b#"]
    for space in ["", *spaces]:
        for tail in tails:
            for text in (space + tail, space * 2 + tail + " y", tail + space):
                stripped = text.strip()
                said = bool(stripped) and stripped.startswith(COMMENT_HEADS)
                assert said == bool(regex.match(text)), repr(text)


def _parsed_counts_by_sets(kinds: frozenset[tuple[str, str, int]]) -> dict[str, int]:
    """The counts as first written: the (kind, number) lines of each category as sets."""
    checks = frozenset({"control", "check", "error"})
    lines: dict[str, set[tuple[str, int]]] = {}
    for category, kind, number in kinds:
        lines.setdefault(category, set()).add((kind, number))
        if category in checks and kind == "-":
            lines.setdefault("check-", set()).add((kind, number))
    count = {name: len(found) for name, found in lines.items()}
    for category in ("compare", "error"):
        for kind in "+-":
            count[category + kind] = sum(1 for k, _ in lines.get(category, ()) if k == kind)
    return {name: count.get(name, 0) for name in (
        "control", "compare+", "compare-", "arith", "error+", "error-", "check-", "null",
        "return")}


def test_parsed_counts_count_what_the_sets_counted() -> None:
    import random
    from types import SimpleNamespace

    from reviewtui.rules.triage_features import _parsed_counts

    categories = ["control", "compare", "arith", "error", "check", "null", "return", "other"]
    rng = random.Random(24)
    for _ in range(3000):
        kinds = frozenset((rng.choice(categories), rng.choice("+-"), rng.randint(1, 6))
                          for _ in range(rng.randint(0, 14)))
        unit = SimpleNamespace(line_kinds=kinds)
        assert _parsed_counts(unit) == _parsed_counts_by_sets(kinds), kinds  # type: ignore[arg-type]
