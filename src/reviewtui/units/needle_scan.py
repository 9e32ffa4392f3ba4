"""The needles of many regexes looked for in one text in one pass (Aho-Corasick).

A text that many regexes search (a unit's changed lines, searched by every rule) is read once
for all of their needles (``NeedleScan``, ``ahocorasick_rs``) rather than once per needle:
``FastRegex.search`` then asks the set of needles found (``Found``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from reviewtui.units.regex_needles import lowered

try:  # one pass over a text for the needles of many regexes
    from ahocorasick_rs import AhoCorasick
except ImportError:  # pragma: no cover - then every regex looks for its own needles
    AhoCorasick = None  # type: ignore[misc,assignment]


class Searched(Protocol):
    """What a scan needs of a regex (a ``FastRegex``): its needles, worked out now."""

    def prefilter_now(self) -> None: ...

    def needles(self) -> list[tuple[str, bool]]: ...


class Found:
    """The needles a ``NeedleScan`` found in one text: case-sensitive ones in the text,
    case-insensitive ones in the folded text; ``members``: the ids of the regexes whose
    needles the scan looked for (any other regex looks for its own)."""

    __slots__ = ("folded", "members", "plain")

    def __init__(self, plain: frozenset[str], folded: frozenset[str],
                 members: frozenset[int]) -> None:
        self.plain = plain
        self.folded = folded
        self.members = members


class NeedleScan:
    """The needles of many ``FastRegex`` looked for in a text in one pass (Aho-Corasick), for
    texts that many of them search: a substring test per needle reads the whole text each
    time, and rules search a unit's lines with a few hundred needles. The same needles are
    found (every occurrence, overlapping ones too), so the same regexes run."""

    __slots__ = ("_folded", "_plain", "_regexes", "by_line", "members")

    def __init__(self, regexes: Sequence[Searched]) -> None:
        plain: set[str] = set()
        folded: set[str] = set()
        for regex in regexes:
            regex.prefilter_now()
            for needle, ignore_case in regex.needles():
                (folded if ignore_case else plain).add(needle)
        self._regexes = tuple(regexes)  # kept: their ids name them in ``members``
        self.members = frozenset(map(id, self._regexes))
        # No needle holds a line break: every one found in lines joined by line breaks is
        # found in one of the lines (``UnitText`` then puts two views' finds together).
        self.by_line = not any("\n" in needle for needle in plain | folded)
        self._plain = _automaton(plain)
        self._folded = _automaton(folded)

    def found(self, text: str) -> Found:
        plain = folded = frozenset[str]()
        if self._plain is not None:
            plain = frozenset(self._plain.find_matches_as_strings(text, overlapping=True))
        if self._folded is not None:
            folded = frozenset(self._folded.find_matches_as_strings(lowered(text),
                                                                    overlapping=True))
        return Found(plain, folded, self.members)


def needle_scan(regexes: Sequence[Searched]) -> NeedleScan | None:
    """A ``NeedleScan`` of ``regexes``, or None when the library behind it is not there."""
    return NeedleScan(regexes) if AhoCorasick is not None else None


def _automaton(needles: set[str]) -> Any:
    return AhoCorasick(sorted(needles), store_patterns=True) if needles else None
