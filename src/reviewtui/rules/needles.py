"""Literal strings a regex cannot match without: a prefilter that skips hopeless searches.

Rule packs hold a few hundred regexes, and every unit's changed lines are searched with each of
them; nearly all of those searches find nothing, and the ones without a literal prefix (a
leading character class, case-insensitive alternations) scan the whole text to say so. A
substring test (``"CVE-" in text``) answers that far faster. So each regex is taken apart once
(Python's own regex parser) for a set of *needles*: literal strings at least one of which every
match contains. When no needle is in the text, the regex cannot match and is not run; when one
is, the regex runs as before, so a prefilter never changes what is found, only what is skipped.

Case-insensitive needles are lowercased and looked for in the lowercased text, and only when
the text is ASCII: Unicode case folding has characters outside ASCII that match ASCII letters
(the Kelvin sign matches ``k``, the long s matches ``s``) and one whose lowercase is two
characters, so for any other text the regex simply runs. A regex whose structure is not
understood here (scoped flags, conditionals, ...) gets no needles and always runs.
"""

from __future__ import annotations

import re
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


def lowered(text: str) -> str | None:
    """``text`` lowercased, where case-insensitive needles are looked for; None when it is
    not ASCII (then a case-insensitive prefilter cannot say no, and the regex runs)."""
    global _lowered
    if not text.isascii():
        return None
    kept = _lowered  # one read: another thread may put its own text in the slot meanwhile
    if kept[0] is not text:
        kept = _lowered = (text, text.lower())
    return kept[1]
