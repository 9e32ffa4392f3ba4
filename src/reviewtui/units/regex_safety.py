"""Patterns that can take exponential time: a repeat inside an unbounded repeat.

A rule pack is data a repository brings along (``.reviewtui/rules.toml``): a pattern such as
``(a+)+$`` makes Python's backtracking ``re`` try every way to split a long run of ``a``
before it gives up, and one changed line like that keeps ``reviewtui index`` busy for hours.
``nested_repeat`` finds such a pattern before it runs (star height above one, the shape of
nearly every catastrophic pattern), so the pack is refused with its file and key instead.
Possessive repeats and atomic groups (``(?>...)``, ``a++``) never backtrack and are allowed.
"""

from __future__ import annotations

from typing import Any

try:  # the parser behind ``re.compile``; private, so its absence only turns the check off
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another Python's layout
    _p = _c = None

NESTED_REPEAT = ("repeats a repeat without bound (as in '(a+)+'): it can take hours on one "
                 "line; write it with a character between the repeats, or possessive ('a++')")


def nested_repeat(pattern: str) -> bool:
    """Does ``pattern`` repeat, without bound, a sequence made only of repeats
    (``(a+)+``, ``(\\w*\\s?)*``, ``(?:x{2,})+``)? A sequence with a character of its own
    (``(\\w+\\.)*``, ``(\\w+\\s*,\\s*)*``) splits a text one way only and is allowed.
    ``pattern`` must compile."""
    if _p is None:  # pragma: no cover - another Python's layout
        return False
    return _walk(_p.parse(pattern))


def _walk(items: Any) -> bool:
    """Is there, anywhere in ``items``, an unbounded repeat of a sequence of repeats?"""
    for op, arg in items:
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            if arg[1] == _c.MAXREPEAT and _only_repeats(arg[2]):
                return True
            if _walk(arg[2]):
                return True
        for child in _children(op, arg):
            if _walk(child):
                return True
    return False


def _children(op: Any, arg: Any) -> list[Any]:
    if op == _c.SUBPATTERN:
        return [arg[-1]]
    if op == _c.BRANCH:
        return list(arg[1])
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        return [arg[1]]
    if op == _c.GROUPREF_EXISTS:
        return [branch for branch in arg[1:] if branch is not None]
    return []


def _only_repeats(items: Any) -> bool:
    """Has some way through ``items`` a repeat (more than once) and no character of its own?"""
    return _shape(items) == (False, True)


def _shape(items: Any) -> tuple[bool, bool]:
    """(has a character of its own on every way through, has a repeat on some way)."""
    fixed = repeats = False
    for op, arg in items:
        if op in (_c.LITERAL, _c.NOT_LITERAL, _c.IN, _c.ANY):
            fixed = True
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            inner_fixed, _ = _shape(arg[2])
            repeats = repeats or arg[1] > 1
            fixed = fixed or (arg[0] >= 1 and inner_fixed and arg[1] <= 1)
        elif op == _c.SUBPATTERN:
            inner = _shape(arg[-1])
            fixed, repeats = fixed or inner[0], repeats or inner[1]
        elif op == _c.BRANCH:
            shapes = [_shape(branch) for branch in arg[1]]
            fixed = fixed or all(shape[0] for shape in shapes)
            repeats = repeats or any(shape == (False, True) for shape in shapes)
    return fixed, repeats
