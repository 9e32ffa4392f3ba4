"""Many regexes searched in many short texts, fast: ``FastRegex``, and its prefilter.

Rule packs hold a few hundred regexes, and every unit's changed lines are searched with each of
them (and with the tagging vocabulary's security constructs); nearly all of those searches find
nothing, and the ones without a literal prefix (a leading character class, case-insensitive
alternations, a leading word boundary, a ``(?:a|b)`` join of many patterns) scan the whole
text to say so. A substring test (``"CVE-" in text``) answers that far faster. So each regex
is taken apart once (Python's own regex parser) for a set of *needles*: literal strings at
least one of which every match contains. When no needle is in the text, the regex cannot
match and is not run; when one is, the regex runs as before, so a prefilter never changes what
is found, only what is skipped.

Case-insensitive needles are ASCII, lowercased, and looked for in the text folded as ``re``
folds it for an ASCII letter (``lowered``): ASCII capitals lowercased, and the four characters
outside ASCII that ``re`` takes for an ASCII letter (the Kelvin sign for ``k``, the long s for
``s``, the dotted and the dotless I for ``i``) turned into that letter; no other character
matches an ASCII needle's. A regex whose structure is not understood here (scoped flags,
conditionals, ...) gets no needles and always runs.

A text that many regexes search (a unit's changed lines, searched by every rule) is read once
for all of their needles (``NeedleScan``, Aho-Corasick in ``ahocorasick_rs``) rather than once
per needle: the search then asks the set of needles found.
"""

from __future__ import annotations

import re
import string
from itertools import pairwise
from typing import Any

try:  # one pass over a text for the needles of many regexes (``NeedleScan``)
    from ahocorasick_rs import AhoCorasick
except ImportError:  # pragma: no cover - then every regex looks for its own needles
    AhoCorasick = None  # type: ignore[misc,assignment]

try:  # the parser behind ``re.compile``; private, so its absence only turns prefilters off
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another Python's layout
    _p = _c = None

Needles = tuple[tuple[str, ...], bool]  # (needles, case-insensitive)


class _Unknown(Exception):
    """A construct the needle analysis does not reason about: no prefilter."""


def _better(a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The more selective needle set: the longer shortest needle, then the fewer needles."""
    if a is None:
        return b
    if b is None:
        return a
    key_a = (min(map(len, a)), -len(a))
    key_b = (min(map(len, b)), -len(b))
    return b if key_b > key_a else a


def _minimal(found: set[str]) -> tuple[str, ...]:
    """``found`` without the needles that hold another one (``skip`` does for ``skipif``)."""
    return tuple(sorted(n for n in found if not any(o != n and o in n for o in found)))


def _required(items: Any) -> tuple[str, ...] | None:
    """Needles that any match of the parsed sequence ``items`` contains, or None."""
    best: tuple[str, ...] | None = None
    run: list[str] = []
    for op, arg in items:
        if op == _c.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            best = _better(best, ("".join(run),))
            run = []
        if op == _c.SUBPATTERN:
            _group, add_flags, del_flags, body = arg
            if add_flags or del_flags:
                raise _Unknown("scoped flags")
            best = _better(best, _required(body))
        elif op == _c.BRANCH:
            alternatives = [_required(branch) for branch in arg[1]]
            if all(alt is not None for alt in alternatives):
                best = _better(best, _minimal({n for alt in alternatives for n in alt or ()}))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            low, _high, body = arg
            if low >= 1:
                best = _better(best, _required(body))
        elif op == _c.ATOMIC_GROUP:
            best = _better(best, _required(arg))
        elif op == _c.GROUPREF_EXISTS:
            raise _Unknown("a conditional group")
        # Anything else (classes, anchors, lookarounds, back references, any) requires no
        # literal we can name; it only ends the current run of literals.
    if run:
        best = _better(best, ("".join(run),))
    return best


def needles(pattern: str, flags: int = 0) -> Needles | None:
    """The needles of ``pattern`` compiled with ``flags``, or None when none are known.

    Every match of ``re.compile(pattern, flags)`` contains at least one of the needles (in
    lowercase, compared with the lowercased ASCII text, when the second item is True)."""
    if _p is None or not isinstance(pattern, str):
        return None
    try:
        parsed = _p.parse(pattern, flags)
        found = _required(parsed)
    except (_Unknown, re.error, TypeError, ValueError, AttributeError):
        return None
    if not found or not all(found):
        return None
    ignore_case = bool(parsed.state.flags & re.IGNORECASE)
    if ignore_case:
        if not all(needle.isascii() for needle in found):
            return None  # non-ASCII literals fold in ways a lowercase test cannot follow
        found = _minimal({needle.lower() for needle in found})
    return found, ignore_case


_lowered: tuple[str, str] = ("", "")  # the last text lowercased: rules search one text in turn
# What ``re.IGNORECASE`` matches with an ASCII letter, as that letter: the capitals, and the
# only four other characters (every code point checked: ``test_needles``).
ASCII_FOLDS = {**{ord(c): c.lower() for c in string.ascii_uppercase},
               0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}


def lowered(text: str) -> str:
    """``text`` folded for case-insensitive needles: each character that ``re.IGNORECASE``
    takes for an ASCII letter is that letter in lowercase, and no other character becomes an
    ASCII one (ASCII text: ``text.lower()``). Outside ASCII, ``str.lower`` already turns the
    capitals and the Kelvin sign into ASCII letters and leaves every other character but
    the dotted capital I (``i`` and a combining dot) outside ASCII; that one, the dotless i
    and the long s are replaced first."""
    global _lowered
    kept = _lowered  # one read: another thread may put its own text in the slot meanwhile
    if kept[0] is not text:
        kept = _lowered = (text, text.lower() if text.isascii() else text.replace(
            "\u0130", "i").replace("\u0131", "i").replace("\u017f", "s").lower())
    return kept[1]


PREFILTER_AFTER = 32  # searches of a FastRegex before its prefilter is worked out


def _leading_boundary(pattern: str, flags: int) -> bool:
    """Does every match of ``pattern`` start at a word boundary it asks for first
    (``\\bfoo``, ``\\b(a|b)``, ``\\bfoo|\\bbar``)? Not ``\\bfoo|\\.bar\\(``: there the boundary
    belongs to the first alternative only, and a ``.bar(`` right after a word is a match."""
    if not (pattern.startswith("\\b") and (pattern[2:3].isalnum() or pattern[2:3] == "(")):
        return False
    if flags & re.ASCII or "(?a" in pattern:
        return False  # ``\\w`` is ASCII there; the check by hand reads Unicode words
    if not _alternation_outside_groups(pattern):
        return True
    if _p is None:
        return False
    try:  # the parser takes a prefix shared by every alternative out in front of them
        first = _p.parse(pattern, flags).data[0]
    except (re.error, TypeError, ValueError, AttributeError, IndexError):
        return False
    return bool(first[0] == _c.AT and first[1] == _c.AT_BOUNDARY)


def _alternation_outside_groups(pattern: str) -> bool:
    """Does ``pattern`` hold a ``|`` outside every group and class? (Wrong only towards True:
    a verbose pattern's comment may hold one.)"""
    return any(char == "|" and top for _, char, top in _scan(pattern))


_Part = tuple[re.Pattern[str], bool, "tuple[str, ...] | None", bool]
# a searched part: its regex, whether it asks for a leading word boundary (checked by hand),
# its needles (None: not known), whether they are case-insensitive, and the alternatives it
# is split into (None: searched whole)
_Searched = tuple[re.Pattern[str], bool, "tuple[str, ...] | None", bool,
                  "tuple[_Part, ...] | None"]


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
    has needles is then searched alternative by alternative (``_split``): only those whose
    needles the text holds run, each with its own literal prefix, and the leftmost match wins
    (at one position, the earlier alternative), which is what the whole alternation finds.
    """

    __slots__ = ("_gate", "_pending", "_union", "parts")

    def __init__(self, patterns: list[str], flags: int = re.MULTILINE) -> None:
        parts: list[_Searched] = []
        for pattern in patterns:
            boundary = _leading_boundary(pattern, flags)
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
            alternatives = _split("\\b" + regex.pattern if boundary else regex.pattern,
                                  regex.flags) if literals is not None else None
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
                    found = _leftmost(alternatives, text, folded)
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

    __slots__ = ("_folded", "_plain", "_regexes", "members")

    def __init__(self, regexes: list[FastRegex]) -> None:
        plain: set[str] = set()
        folded: set[str] = set()
        for regex in regexes:
            regex.prefilter_now()
            for needle, ignore_case in regex.needles():
                (folded if ignore_case else plain).add(needle)
        self._regexes = tuple(regexes)  # kept: their ids name them in ``members``
        self.members = frozenset(map(id, self._regexes))
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


def needle_scan(regexes: list[FastRegex]) -> NeedleScan | None:
    """A ``NeedleScan`` of ``regexes``, or None when the library behind it is not there."""
    return NeedleScan(regexes) if AhoCorasick is not None else None


def _automaton(needles: set[str]) -> Any:
    return AhoCorasick(sorted(needles), store_patterns=True) if needles else None


def _search_found(parts: tuple[_Searched, ...], text: str, found: Found) -> re.Match[str] | None:
    """``FastRegex.search`` with the needles already found in ``text``."""
    plain, folded = found.plain, found.folded
    for regex, boundary, literals, ignore_case, alternatives in parts:
        if literals is not None:
            if (folded if ignore_case else plain).isdisjoint(literals):
                continue
            if alternatives is not None:
                best: re.Match[str] | None = None
                for each, each_boundary, each_literals, each_case in alternatives:
                    if each_literals is not None and (
                            folded if each_case else plain).isdisjoint(each_literals):
                        continue
                    hit = _at_boundary(each, text) if each_boundary else each.search(text)
                    if hit is not None and (best is None or hit.start() < best.start()):
                        best = hit
                        if not hit.start():
                            break
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


def _leftmost(alternatives: tuple[_Part, ...], text: str,
              folded: str | None) -> re.Match[str] | None:
    """What the alternation of ``alternatives`` finds in ``text``: the match that starts
    first, of the earliest alternative at that position. (Each alternative's own leftmost
    match is the alternation's there: nothing follows it in the pattern.) Alternatives
    whose needles ``text`` does not hold are not run."""
    best: re.Match[str] | None = None
    for regex, boundary, literals, ignore_case in alternatives:
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
                continue
        found = _at_boundary(regex, text) if boundary else regex.search(text)
        if found is not None and (best is None or found.start() < best.start()):
            best = found
            if not found.start():
                break  # a later alternative starting there too comes second
    return best


_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
_UNSPLITTABLE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(|\(\?#")  # back references, conditionals


def _split(pattern: str, flags: int) -> tuple[_Part, ...] | None:
    """``pattern``'s alternatives, when it is one alternation (``a|b``, ``(a|b)``,
    ``(?:a|b)``, after global inline flags) whose every alternative has needles, each
    compiled with the pattern's flags and its own leading boundary; else None."""
    if _p is None or flags & re.VERBOSE or _UNSPLITTABLE.search(pattern):
        return None
    try:
        state_flags = _p.parse(pattern, flags).state.flags
    except (re.error, TypeError, ValueError, AttributeError):
        return None
    if state_flags & re.VERBOSE:
        return None
    body = pattern
    while (head := _GLOBAL_FLAGS.match(body)) is not None:
        body = body[head.end():]
    alternatives = _top_level_alternatives(body)
    if alternatives is None:
        inner = _enclosed(body)
        alternatives = _top_level_alternatives(inner) if inner is not None else None
    if alternatives is None:
        return None
    out: list[_Part] = []
    for alternative in alternatives:
        found = needles(alternative, state_flags)
        if found is None:
            return None  # it would run on every text: the whole alternation is cheaper
        boundary = _leading_boundary(alternative, state_flags)
        try:
            regex = re.compile(alternative[2:] if boundary else alternative, state_flags)
        except re.error:
            return None
        out.append((regex, boundary, *found))
    return tuple(out)


def _enclosed(pattern: str) -> str | None:
    """The inside of ``(...)`` or ``(?:...)`` when that group is the whole of ``pattern``."""
    if pattern.startswith("(?:"):
        start = 3
    elif pattern.startswith("(") and not pattern.startswith("(?"):
        start = 1
    else:
        return None
    ends = _group_ends(pattern)
    return pattern[start:-1] if ends.get(0) == len(pattern) - 1 else None


def _group_ends(pattern: str) -> dict[int, int]:
    """Where each group opening at a position closes (escapes and classes skipped)."""
    ends: dict[int, int] = {}
    opened: list[int] = []
    for index, char, _ in _scan(pattern):
        if char == "(":
            opened.append(index)
        elif char == ")" and opened:
            ends[opened.pop()] = index
    return ends


def _top_level_alternatives(pattern: str) -> list[str] | None:
    """``pattern`` cut at each ``|`` outside every group and class (None: no such ``|``)."""
    cuts = [index for index, char, top in _scan(pattern) if char == "|" and top]
    if not cuts:
        return None
    bounds = [-1, *cuts, len(pattern)]
    return [pattern[a + 1:b] for a, b in pairwise(bounds)]


def _scan(pattern: str) -> list[tuple[int, str, bool]]:
    """The group and alternation characters of ``pattern`` (position, character, at depth
    0), outside escapes and character classes."""
    out: list[tuple[int, str, bool]] = []
    depth, index, size, in_class = 0, 0, len(pattern), False
    while index < size:
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            index += 1  # a "]" (after a "^") just inside the bracket is a member
            if pattern[index:index + 1] == "^":
                index += 1
            if pattern[index:index + 1] == "]":
                index += 1
            continue
        elif char == "(":
            out.append((index, char, depth == 0))
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
            out.append((index, char, depth == 0))
        elif char == "|":
            out.append((index, char, depth == 0))
        index += 1
    return out


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
