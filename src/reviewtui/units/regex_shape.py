"""What a regex's text says about how it can be searched faster, read before it runs.

``FastRegex`` (``units.fast_regex``) drops a leading word boundary that every match asks for
(``leading_boundary``) and checks it by hand: ``re`` then scans for the literal after it
quickly. A pattern that is one alternation whose every alternative has needles is cut into its
alternatives (``split_alternatives``), so that only those whose needles the text holds run.
Both read the pattern's text (escapes, classes and groups skipped by ``_scan``) and, where
that is not enough, Python's own regex parser.
"""

from __future__ import annotations

import re
from itertools import pairwise

from reviewtui.units.regex_needles import needles

try:  # the parser behind ``re.compile``; private, so its absence only turns these off
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another Python's layout
    _p = _c = None

# an alternative searched on its own: its regex, whether it asks for a leading word boundary
# (checked by hand), its needles (None: not known), whether they are case-insensitive
Part = tuple[re.Pattern[str], bool, "tuple[str, ...] | None", bool]


def leading_boundary(pattern: str, flags: int) -> bool:
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


_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
_UNSPLITTABLE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(|\(\?#")  # back references, conditionals


def split_alternatives(pattern: str, flags: int) -> tuple[Part, ...] | None:
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
    out: list[Part] = []
    for alternative in alternatives:
        found = needles(alternative, state_flags)
        if found is None:
            return None  # it would run on every text: the whole alternation is cheaper
        boundary = leading_boundary(alternative, state_flags)
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
