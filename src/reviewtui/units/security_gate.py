"""Whether a unit's changed lines may hold a security construct or word, in one pass each.

``line_tags.security_in_lines`` asks two questions of every unit's lines before searching them
for real: may a security construct pattern match (does the text hold one of its needles, as
``regex_needles`` finds them: 22 literals when this was measured), and may a security word be
in it (does the lowercased text hold one of the 26 pieces every such word holds). Asked one
substring at a time, that was 48 scans of the text: on Django 4.2 -> 5.2 (3,800 units asked)
86-92 ms of CPU. Asked of two Aho-Corasick automata
(``NeedleScan`` for the patterns' needles, one automaton for the words' pieces), 22-32 ms.
The answers are the same (every occurrence of every needle is found either way); without
``ahocorasick_rs``, the substring tests are used.
"""

from __future__ import annotations

from typing import Any

from reviewtui.units.fast_regex import FastRegex
from reviewtui.units.needle_scan import NeedleScan, needle_scan

try:
    from ahocorasick_rs import AhoCorasick
except ImportError:  # pragma: no cover - then each piece is looked for on its own
    AhoCorasick = None  # type: ignore[misc,assignment]


class SecurityGate:
    """The two questions, for one vocabulary's constructs and words."""

    __slots__ = ("_code", "_pieces", "_scan", "_words")

    def __init__(self, code: FastRegex, word_pieces: tuple[str, ...]) -> None:
        self._code = code
        self._scan: NeedleScan | None = needle_scan([code])
        self._pieces = word_pieces
        self._words: Any = (AhoCorasick(list(word_pieces))
                            if AhoCorasick is not None and word_pieces else None)

    def may_hold_construct(self, text: str) -> bool:
        """``code.may_match(text)``: False when no construct can match ``text`` nor any of
        its lines (see ``FastRegex.may_match``)."""
        return self._code.may_match(text, self._scan.found(text) if self._scan else None)

    def may_hold_word(self, lowered: str) -> bool:
        """Whether the lowercased text holds one of the pieces of the security words."""
        if self._words is None:
            return any(piece in lowered for piece in self._pieces)
        # (any occurrence of a piece gives at least one match, overlapping or not)
        return bool(self._words.find_matches_as_indexes(lowered))
