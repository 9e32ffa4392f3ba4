"""Many regexes searched in many short texts, fast: ``FastRegex``.

Rule packs hold a few hundred regexes, and every unit's changed lines are searched with each of
them (and with the tagging vocabulary's security constructs); nearly all of those searches find
nothing, and the ones without a literal prefix (a leading character class, case-insensitive
alternations, a leading word boundary, a ``(?:a|b)`` join of many patterns) scan the whole
text to say so. So a regex runs only on a text that holds one of its *needles* (literals every
match contains: ``units.regex_needles``), found per needle or for many regexes at once
(``units.needle_scan``); a leading word boundary is checked by hand and an alternation is
searched alternative by alternative (``units.regex_shape``). A prefilter never changes what is
found, only what is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reviewtui.units.needle_scan import Found, NeedleScan, needle_scan
from reviewtui.units.regex_needles import ASCII_FOLDS, Needles, lowered, needles
from reviewtui.units.regex_shape import Part, leading_boundary, split_alternatives

__all__ = ["ASCII_FOLDS", "PREFILTER_AFTER", "FastRegex", "Found", "NeedleScan", "Needles",
           "lowered", "needle_scan", "needles"]

PREFILTER_AFTER = 32  # searches of a FastRegex before its prefilter is worked out


# a searched part: its regex, whether it asks for a leading word boundary (checked by hand),
# its needles (None: not known), whether they are case-insensitive, and the alternatives it
# is split into (None: searched whole)
_Searched = tuple[re.Pattern[str], bool, "tuple[str, ...] | None", bool,
                  "tuple[Part, ...] | None"]


class FastRegex:
    """Alternative patterns searched one by one, fast.

    Python's ``re`` scans quickly for a literal prefix, but a leading word boundary (or a
    ``(?:a|b)`` join of many patterns) defeats that and costs 20-30x on large diffs. So the
    patterns stay separate, and a leading word boundary is dropped from the regex and
    checked on each candidate match instead. A pattern is not run at all on a text that holds
    none of the literals every match of it contains (``needles``): most searches find
    nothing, and a substring test says so faster than the regex. Finding those literals parses
    the pattern again (about as long as compiling it), so it is done only for a regex that is
    searched often (a large change), after its first ``PREFILTER_AFTER`` searches.

    A pattern that is one alternation (``a|b|c``, ``(?i)(\\ba|\\bb)``) whose every alternative
    has needles is then searched alternative by alternative (``split_alternatives``): only
    those whose needles the text holds run, each with its own literal prefix, and the leftmost
    match wins (at one position, the earlier alternative), which is what the whole
    alternation finds.
    """

    __slots__ = ("_gate", "_pending", "_union", "parts")

    def __init__(self, patterns: list[str], flags: int = re.MULTILINE) -> None:
        parts: list[_Searched] = []
        for pattern in patterns:
            boundary = leading_boundary(pattern, flags)
            parts.append((re.compile(pattern[2:] if boundary else pattern, flags), boundary,
                          None, False, None))
        self.parts = tuple(parts)
        self._pending = PREFILTER_AFTER
        # (needles, case-insensitive) of every part, for ``may_match``; None: not worked out
        # yet, or a part without needles or with one holding a line break
        self._gate: tuple[tuple[tuple[str, ...], bool], ...] | None = None
        # every needle of the parts, case-sensitive and case-insensitive, for a search given
        # the needles found (``NeedleScan``); None: a part without needles
        self._union: tuple[frozenset[str], frozenset[str]] | None = None

    def _prefiltered(self) -> tuple[_Searched, ...]:
        parts: list[_Searched] = []
        for regex, boundary, _, _, _ in self.parts:
            found = needles(regex.pattern, regex.flags)
            literals, ignore_case = found or (None, False)
            pattern = "\\b" + regex.pattern if boundary else regex.pattern
            alternatives = (split_alternatives(pattern, regex.flags) if literals is not None
                            else None)
            parts.append((regex, boundary, literals, ignore_case, alternatives))
        return tuple(parts)

    def prefilter_now(self) -> None:
        """Work the needles out now (a ``NeedleScan`` needs them all at once)."""
        if self._pending:
            self._turn_prefilter_on()

    def _turn_prefilter_on(self) -> None:
        self._pending = 0
        self.parts = parts = self._prefiltered()
        self._gate = _gate(parts)
        self._union = _union(parts)

    def needles(self) -> list[tuple[str, bool]]:
        """Every needle of every part and alternative, with whether it is case-insensitive."""
        out: list[tuple[str, bool]] = []
        for _, _, literals, ignore_case, alternatives in self.parts:
            out += [(literal, ignore_case) for literal in literals or ()]
            for _, _, more, more_case in alternatives or ():
                out += [(literal, more_case) for literal in more or ()]
        return out

    def scan_gate(self, joined: bool = False) -> tuple[frozenset[str], frozenset[str]] | None:
        """The needles (case-sensitive, case-insensitive) one of which must be among those a
        ``NeedleScan`` holding this regex found in a text for ``search`` (``joined``: for
        ``may_match``) to find anything there; None when that is not known (the needles not
        worked out yet, a part without needles, or for ``may_match`` one with a line break)."""
        if joined and self._gate is None:
            return None
        return self._union

    def may_match(self, text: str, seen: Found | None = None) -> bool:
        """False when no pattern can match ``text``, nor any line of it, nor any text made of
        some of its lines, because it holds none of the needles of any (a needle with a line
        break gives no answer); True when one may (or when the needles are not worked out
        yet). ``seen``: the needles a ``NeedleScan`` found in ``text``, as for ``search``."""
        gate = self._gate
        if gate is None:
            return True
        union = self._union
        if seen is not None and union is not None and id(self) in seen.members:
            return not (seen.plain.isdisjoint(union[0]) and seen.folded.isdisjoint(union[1]))
        folded: str | None = None
        for literals, ignore_case in gate:
            if not ignore_case:
                hay = text
            elif folded is not None:
                hay = folded
            else:
                hay = folded = lowered(text)
            for literal in literals:
                if literal in hay:
                    return True
        return False

    def search(self, text: str, seen: Found | None = None) -> re.Match[str] | None:
        """The first pattern's first match in ``text``. ``seen``: the needles a
        ``NeedleScan`` found in ``text`` (used when the scan holds this regex's)."""
        parts = self.parts
        if self._pending:
            self._pending -= 1
            if self._pending <= 0:  # (two threads may both get here: the same parts twice)
                self._turn_prefilter_on()
                parts = self.parts
        if seen is not None and id(self) in seen.members:
            union = self._union
            if union is not None and seen.plain.isdisjoint(union[0]) and seen.folded.isdisjoint(
                    union[1]):
                return None  # none of the needles of any pattern: nothing can match
            return _search_found(parts, text, seen)
        folded: str | None = None
        for regex, boundary, literals, ignore_case, alternatives in parts:
            if literals is not None:
                if not ignore_case:
                    hay = text
                elif folded is not None:
                    hay = folded
                else:
                    hay = folded = lowered(text)
                for literal in literals:
                    if literal in hay:
                        break
                else:
                    continue  # no literal a match needs: the regex cannot match
                if alternatives is not None:
                    found = _leftmost(alternatives, text, _in_text(text))
                    if found:
                        return found
                    continue
            if not boundary:
                found = regex.search(text)
                if found:
                    return found
                continue
            found = _at_boundary(regex, text)
            if found:
                return found
        return None


def _search_found(parts: tuple[_Searched, ...], text: str, found: Found) -> re.Match[str] | None:
    """``FastRegex.search`` with the needles already found in ``text``."""
    plain, folded = found.plain, found.folded
    for regex, boundary, literals, ignore_case, alternatives in parts:
        if literals is not None:
            if (folded if ignore_case else plain).isdisjoint(literals):
                continue
            if alternatives is not None:
                best = _leftmost(alternatives, text, _in_found(found))
                if best is not None:
                    return best
                continue
        hit = _at_boundary(regex, text) if boundary else regex.search(text)
        if hit:
            return hit
    return None


def _union(parts: tuple[_Searched, ...]) -> tuple[frozenset[str], frozenset[str]] | None:
    """Every needle of ``parts`` (case-sensitive, case-insensitive), or None when a part has
    none."""
    plain: set[str] = set()
    folded: set[str] = set()
    for _, _, literals, ignore_case, _ in parts:
        if literals is None:
            return None
        (folded if ignore_case else plain).update(literals)
    return frozenset(plain), frozenset(folded)


def _gate(parts: tuple[_Searched, ...]) -> tuple[tuple[tuple[str, ...], bool], ...] | None:
    """The needles ``FastRegex.may_match`` looks for, or None when it cannot say no."""
    gate = []
    for _, _, literals, ignore_case, _ in parts:
        if literals is None or any("\n" in literal for literal in literals):
            return None
        gate.append((literals, ignore_case))
    return tuple(gate)


# Does the searched text hold one of these needles (case-insensitive ones: in its folded form)?
_Holds = Callable[[tuple[str, ...], bool], bool]


def _in_text(text: str) -> _Holds:
    """The needles looked for in ``text`` itself (``lowered`` keeps its folded form)."""
    def holds(literals: tuple[str, ...], ignore_case: bool) -> bool:
        hay = lowered(text) if ignore_case else text
        return any(literal in hay for literal in literals)
    return holds


def _in_found(found: Found) -> _Holds:
    """The needles looked up in what a ``NeedleScan`` found in the text."""
    def holds(literals: tuple[str, ...], ignore_case: bool) -> bool:
        return not (found.folded if ignore_case else found.plain).isdisjoint(literals)
    return holds


def _leftmost(alternatives: tuple[Part, ...], text: str, holds: _Holds) -> re.Match[str] | None:
    """What the alternation of ``alternatives`` finds in ``text``: the match that starts
    first, of the earliest alternative at that position. (Each alternative's own leftmost
    match is the alternation's there: nothing follows it in the pattern.) Alternatives
    whose needles ``text`` does not hold are not run."""
    best: re.Match[str] | None = None
    for regex, boundary, literals, ignore_case in alternatives:
        if literals is not None and not holds(literals, ignore_case):
            continue
        found = _at_boundary(regex, text) if boundary else regex.search(text)
        if found is not None and (best is None or found.start() < best.start()):
            best = found
            if not found.start():
                break  # a later alternative starting there too comes second
    return best


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # what ``\\w`` is in a str pattern


def _at_boundary(regex: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of ``regex`` that starts at a word boundary: what ``\\b`` + ``regex``
    finds. Searched again one character on after a match that does not (a later match may
    start inside it)."""
    position, size = 0, len(text)
    while True:
        found = regex.search(text, position)
        if found is None:
            return None
        start = found.start()
        if (start > 0 and _is_word(text[start - 1])) != (start < size and _is_word(text[start])):
            return found
        if start >= size:
            return None
        position = start + 1
