"""The line features' shortcuts find what the plain computation finds."""

from __future__ import annotations

import itertools

from reviewtui.rules.triage_features import _calls, _calls_in_both

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
