"""The needles of a regex: literal strings at least one of which every match contains.

Rule packs hold a few hundred regexes and nearly all of their searches find nothing; a
substring test (``"CVE-" in text``) says so far faster than the regex. ``needles`` takes a
pattern apart once (Python's own regex parser) for such literals; ``FastRegex``
(``units.fast_regex``) runs a regex only on a text that holds one of its needles.

Case-insensitive needles are ASCII, lowercased, and looked for in the text folded as ``re``
folds it for an ASCII letter (``lowered``): ASCII capitals lowercased, and the four characters
outside ASCII that ``re`` takes for an ASCII letter (the Kelvin sign for ``k``, the long s for
``s``, the dotted and the dotless I for ``i``) turned into that letter; no other character
matches an ASCII needle's. A regex whose structure is not understood here (scoped flags,
conditionals, ...) gets no needles and always runs.
"""

from __future__ import annotations

import re
import string
from collections.abc import Set as AbstractSet
from typing import Any

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


def minimal_needles(found: AbstractSet[str]) -> tuple[str, ...]:
    """``found`` without the needles that hold another one (``skip`` does for ``skipif``)."""
    return tuple(sorted(n for n in found if not any(o != n and o in n for o in found)))


# A character class is spelled out as needles up to this many characters, and a run of
# literals, small classes and groups of them up to this many spellings: ``[+*]\)[+*{]`` is
# six needles of three characters, not ``)`` alone. (The rule packs' costliest regexes had
# only a quote or a bracket for a needle: 3x less time in their searches on Django 4.2 -> 5.2.)
_CLASS_MAX = 10
_SPELLINGS_MAX = 16


def _class_chars(members: Any) -> list[str] | None:
    """The characters a class (``[...]``, not negated) matches, when it names few of them."""
    chars: dict[str, None] = {}
    for op, arg in members:
        if op == _c.LITERAL:
            chars[chr(arg)] = None
        elif op == _c.RANGE and arg[1] - arg[0] < _CLASS_MAX:
            chars.update(dict.fromkeys(map(chr, range(arg[0], arg[1] + 1))))
        else:  # a negation, a category (\\d, \\w) or a wide range
            return None
    return list(chars) if 0 < len(chars) <= _CLASS_MAX else None


def _spelled(op: Any, arg: Any) -> list[str] | None:
    """Every text the item matches, when there are few (a literal, a small class, a group or
    an alternation of such), else None."""
    if op == _c.LITERAL:
        return [chr(arg)]
    if op == _c.IN:
        return _class_chars(arg)
    if op == _c.SUBPATTERN:
        _group, add_flags, del_flags, body = arg
        return None if add_flags or del_flags else _spelled_sequence(body)
    if op == _c.BRANCH:
        either: dict[str, None] = {}
        for branch in arg[1]:
            spelled = _spelled_sequence(branch)
            if spelled is None:
                return None
            either.update(dict.fromkeys(spelled))
        return list(either) if len(either) <= _SPELLINGS_MAX else None
    return None


def _spelled_sequence(items: Any) -> list[str] | None:
    """Every text the parsed sequence matches, when each item is spelled and there are few."""
    run = [""]
    for op, arg in items:
        spelled = _spelled(op, arg)
        if spelled is None or len(run) * len(spelled) > _SPELLINGS_MAX:
            return None
        run = [head + tail for head in run for tail in spelled]
    return run


def _run_needles(run: list[str]) -> tuple[str, ...] | None:
    """The needles of a run of spelled items: each match holds one of its spellings."""
    return minimal_needles(set(run)) if run != [""] else None


def _required(items: Any) -> tuple[str, ...] | None:
    """Needles that any match of the parsed sequence ``items`` contains, or None."""
    best: tuple[str, ...] | None = None
    run = [""]  # the spellings of the items spelled in a row so far (one of them is matched)
    for op, arg in items:
        spelled = _spelled(op, arg)
        if spelled is not None:
            if len(run) * len(spelled) <= _SPELLINGS_MAX:
                run = [head + tail for head in run for tail in spelled]
            else:  # too many spellings together: the run so far is one candidate
                best = _better(best, _run_needles(run))
                run = spelled
            continue
        best = _better(best, _run_needles(run))
        run = [""]
        if op == _c.SUBPATTERN:
            _group, add_flags, del_flags, body = arg
            if add_flags or del_flags:
                raise _Unknown("scoped flags")
            best = _better(best, _required(body))
        elif op == _c.BRANCH:
            alternatives = [_required(branch) for branch in arg[1]]
            if all(alt is not None for alt in alternatives):
                either = {n for alt in alternatives for n in alt or ()}
                best = _better(best, minimal_needles(either))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            low, _high, body = arg
            if low >= 1:
                best = _better(best, _required(body))
        elif op == _c.ATOMIC_GROUP:
            best = _better(best, _required(arg))
        elif op == _c.GROUPREF_EXISTS:
            raise _Unknown("a conditional group")
        # Anything else (wide or negated classes, anchors, lookarounds, back references, any)
        # requires no literal we can name; it only ends the current run.
    return _better(best, _run_needles(run))


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
        found = minimal_needles({needle.lower() for needle in found})
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
