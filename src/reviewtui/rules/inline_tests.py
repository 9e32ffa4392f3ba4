"""Test code inside library files: Rust's ``#[cfg(test)] mod tests { ... }`` and ``#[test] fn``.

Rust keeps unit tests next to the code they test, in the same file, so the path alone cannot
say that an added ``unwrap()`` is in a test. A reviewer reads the attribute; so does this
module: it finds the items a test attribute applies to in the after-side text of the file (the
attribute line to the item's closing brace, with a small lexer that skips strings, chars,
lifetimes and comments) and says whether every changed line of a unit lies inside one. When the
code structure is available, a test attribute on the definitions around the change says it too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewtui.units.model import ReviewUnit

# `#[test]`, `#[tokio::test]`, `#[rstest]`-style test attributes, and `#[cfg(test)]` (also inside
# all()/any()), but not `#[cfg(not(test))]`, which is the opposite.
_CFG_TEST = r"cfg\s*\((?![^\]]*\bnot\s*\()[^\]]*\btest\b"
TEST_ATTRIBUTE = re.compile(r"^\s*#\[\s*(?:(?:\w+::)*test\b|rstest\b|" + _CFG_TEST + ")")
_WHOLE_FILE = re.compile(r"^\s*#!\[\s*" + _CFG_TEST, re.MULTILINE)  # the file is a test
_RAW_STRING = re.compile(r'r(#*)"')


def _skip_string(text: str, start: int) -> int:
    """The index after the string literal starting at ``text[start] == '"'``."""
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == '"':
            return index + 1
        index += 1
    return index


def _skip_raw_string(text: str, start: int) -> int | None:
    """After ``r"..."`` / ``r#"..."#`` starting at ``text[start] == 'r'``, or None."""
    match = _RAW_STRING.match(text, start)
    if match is None:
        return None
    end = text.find('"' + match.group(1), match.end())
    return len(text) if end < 0 else end + 1 + len(match.group(1))


def _skip_comment(text: str, start: int) -> int:
    """After the comment at ``start`` (``//`` to the line end, or nested ``/* */``)."""
    if text.startswith("//", start):
        end = text.find("\n", start)
        return len(text) if end < 0 else end
    depth, index = 0, start
    while index < len(text):
        if text.startswith("/*", index):
            depth += 1
            index += 2
        elif text.startswith("*/", index):
            depth -= 1
            index += 2
            if depth == 0:
                return index
        else:
            index += 1
    return index


def _code_chars(text: str, start: int) -> Iterator[tuple[int, str]]:
    """(index, char) of the code from ``start`` on, strings/chars/comments left out."""
    index = start
    size = len(text)
    while index < size:
        char = text[index]
        if char == "/" and text.startswith(("//", "/*"), index):
            index = _skip_comment(text, index)
        elif char == '"':
            index = _skip_string(text, index)
        elif char == "r" and (index == 0 or not (text[index - 1].isalnum()
                                                 or text[index - 1] == "_")):
            raw = _skip_raw_string(text, index)
            yield index, char
            index = raw if raw is not None else index + 1
        elif char == "'":
            # a char literal ('x', '\n', '\u{1F600}') or a lifetime ('a): only the first closes
            if text.startswith("\\", index + 1):
                close = text.find("'", index + 2)
                index = size if close < 0 else close + 1
            elif index + 2 < size and text[index + 2] == "'":
                index += 3
            else:
                index += 1
        else:
            yield index, char
            index += 1


def _item_end(text: str, start: int) -> int | None:
    """The offset of the ``}`` closing the item whose text starts at ``start``; None when the
    item has no body (``mod tests;``, ``use``)."""
    depth = 0
    for index, char in _code_chars(text, start):
        if depth == 0 and char == ";":
            return None
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def inline_test_regions(text: str) -> list[tuple[int, int]]:
    """1-based (first, last) line ranges of the items a test attribute applies to."""
    if _WHOLE_FILE.search(text):
        return [(1, text.count("\n") + 1)]
    regions: list[tuple[int, int]] = []
    offsets = [0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    for number, line in enumerate(text.splitlines(), start=1):
        if regions and regions[-1][0] <= number <= regions[-1][1]:
            continue  # already inside a test item
        if not TEST_ATTRIBUTE.match(line):
            continue
        start = offsets[number - 1]
        bracket = text.find("]", start)
        end = _item_end(text, bracket + 1 if bracket >= 0 else start)
        if end is not None:
            regions.append((number, text.count("\n", 0, end) + 1))
    return regions


def _positions(unit: ReviewUnit) -> Iterator[tuple[int, int]]:
    """For every changed line, the new-side lines it lies between (equal for added lines)."""
    for hunk in unit.hunks:
        previous = hunk.new_start - 1
        for line in hunk.lines:
            if line.kind == "-":
                yield previous, previous + 1
            elif line.new_no is not None:
                if line.kind == "+":
                    yield line.new_no, line.new_no
                previous = line.new_no


def in_test_code(unit: ReviewUnit, text: str | None) -> bool:
    """Is every changed line of ``unit`` inside test code (by attribute) of its file?"""
    if any(scope.role != "outer" for scope in unit.scopes) and all(
            any(TEST_ATTRIBUTE.match(d) for d in scope.decorators)
            for scope in unit.scopes if scope.role != "outer"):
        return True
    if not text or "test" not in text:
        return False
    regions = inline_test_regions(text)
    if not regions:
        return False
    positions = list(_positions(unit))
    return bool(positions) and all(
        any(first <= low and high <= last for first, last in regions)
        for low, high in positions)
