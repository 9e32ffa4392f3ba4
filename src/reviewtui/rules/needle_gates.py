"""Which of a plan's text rules may match a unit, read off the needles its scan found.

A handler asks every keyword and change-pattern rule of its plan about each unit, and nearly
every ask ends at the first test: none of the rule regex's needles is among those the unit's
one-pass scan found (``NeedleScan``): on Django 4.2 -> 5.2, 96% of 87,000 asks per run. Each
ask still cost a chain of calls (``search_lines``, the unit's view and its needles,
``may_match``). ``NeedleGates`` indexes the plan's rules by their needles once, so that the
needles a unit holds name the rules worth asking; the others are not asked at all, which is
exactly what asking them would have found.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from reviewtui.rules.compiled import Rule
from reviewtui.rules.unit_text import UnitText
from reviewtui.units.fast_regex import FastRegex
from reviewtui.units.needle_scan import NeedleScan

# per view a rule reads (on, reads): needle -> the rules it opens (bits), case-sensitive needles
# looked up in what the scan found in the text, case-insensitive ones in the folded text
_View = tuple[str, str, dict[str, int], frozenset[str], dict[str, int], frozenset[str]]


class NeedleGates:
    """The rules of a sequence (by position, as bits) that a unit's needles leave open."""

    __slots__ = ("_always", "_scan", "_views", "every")

    def __init__(self, rules: Sequence[tuple[FastRegex | None, Rule]], scan: NeedleScan) -> None:
        """``rules``: each rule with the regex ``search_lines`` searches for it (None: a rule
        that is always asked, such as a word rule)."""
        self.every = (1 << len(rules)) - 1
        self._scan = scan
        always = 0
        views: dict[tuple[str, str], tuple[dict[str, int], dict[str, int]]] = {}
        for index, (regex, rule) in enumerate(rules):
            # ``search_lines`` asks may_match of the changed lines first, or searches one view
            needles = (regex.scan_gate(joined=rule.on == "changed")
                       if regex is not None and id(regex) in scan.members else None)
            if needles is None:
                always |= 1 << index
                continue
            plain, folded = views.setdefault((rule.on, rule.reads), ({}, {}))
            for table, found in ((plain, needles[0]), (folded, needles[1])):
                for needle in found:
                    table[needle] = table.get(needle, 0) | 1 << index
        self._always = always
        self._views: tuple[_View, ...] = tuple(
            (on, reads, plain, frozenset(plain), folded, frozenset(folded))
            for (on, reads), (plain, folded) in views.items())

    def open(self, text: UnitText) -> int:
        """The rules (bits) that may match ``text``: every one when the text has no scan."""
        opened = self._always
        for on, reads, plain, plain_keys, folded, folded_keys in self._views:
            found = text.found(on, reads)
            if found is None:
                return self.every
            for needle in plain_keys.intersection(found.plain):
                opened |= plain[needle]
            for needle in folded_keys.intersection(found.folded):
                opened |= folded[needle]
        return opened


def set_bits(bits: int) -> Iterator[int]:
    """The positions of the bits set in ``bits`` (not negative), lowest first: the rules a
    gate left open, in the order they are asked (a plan asks a few of its dozens of rules)."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low
