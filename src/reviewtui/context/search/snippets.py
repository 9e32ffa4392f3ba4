"""Turn accepted search hits into ranked, numbered, merged snippets.

A reviewer (or the model) reads a hit in its surroundings, so every hit becomes its line plus a
few lines around it, each prefixed with its line number (``  41 | code``). Hits of one file whose
windows overlap become one snippet, so the same lines are never paid for twice in the token
budget. Ranking is decided by the query (``Hit.rank``); test files come after the rest and ties
are broken by path and line so results are stable.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from reviewtui.models import CodeSnippet

_TEST_DIRS = frozenset({"test", "tests", "spec", "specs", "__tests__", "testing", "testdata"})
_TEST_NAME = re.compile(
    r"^(test_.*\.py|.*_test\.py|conftest\.py|.*_test\.go|.*\.(test|spec)\.[cm]?[jt]sx?"
    r"|.*(Test|Tests|IT)\.java|.*_spec\.rb|.*_test\.rb|.*(Test|Tests)\.(kt|cs|php)"
    r"|.*_test\.(rs|c|cc|cpp)|test_.*\.(c|cc|cpp))$"
)
_MAX_LINE_CHARS = 400
_MAX_MERGED_LINES = 40


@functools.lru_cache(maxsize=65536)
def is_test_path(path: str) -> bool:
    pure = PurePosixPath(path)
    return bool(_TEST_NAME.match(pure.name)) or any(
        part.lower() in _TEST_DIRS for part in pure.parts[:-1]
    )


@dataclass(frozen=True, slots=True)
class Hit:
    """An accepted hit. ``rank`` orders hits (lower first) before test-ness, path and line."""

    path: str
    line: int
    text: str  # the hit line as grep saw it (used when the file cannot be read)
    symbol: str | None
    primary: int = 0  # the query's strong preference (qualifier on the line, code file...)
    secondary: int = 0  # a weaker one (call site before a mere reference...)

    def sort_key(self) -> tuple[int, bool, int, str, int]:
        return (self.primary, is_test_path(self.path), self.secondary, self.path, self.line)


@dataclass(frozen=True, slots=True)
class Snippet:
    """Numbered lines of one file around one or more hits; converts to ``CodeSnippet``."""

    path: str
    line: int  # the best-ranked hit it holds
    first: int
    last: int
    text: str
    symbol: str | None
    key: tuple[int, bool, int, str, int]

    def to_model(self, kind: str) -> CodeSnippet:
        return CodeSnippet(file_path=self.path, line=self.line, snippet=self.text,
                           symbol=self.symbol, kind=kind)


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_LINE_CHARS else text[: _MAX_LINE_CHARS - 1] + "…"


def number_lines(lines: Sequence[str], first: int) -> str:
    """``lines`` (the first one being line ``first``) as ``  41 | code`` rows."""
    width = max(4, len(str(first + len(lines) - 1)))
    return "\n".join(f"{first + i:>{width}} | {_clip(text)}" for i, text in enumerate(lines))


def split_lines(data: bytes) -> list[str]:
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


@dataclass(frozen=True, slots=True)
class Window:
    """Lines ``first..last`` of ``path`` around one or more hits (``best`` ranks it)."""

    path: str
    first: int
    last: int
    best: Hit


def _file_windows(path: str, hits: list[Hit], context: int, merge: bool) -> list[Window]:
    windows: list[Window] = []
    for hit in sorted(hits, key=lambda h: h.line):
        first, last = max(1, hit.line - context), hit.line + context
        current = windows[-1] if windows else None
        if merge and current is not None and first <= current.last + 1:
            fits = last - current.first < _MAX_MERGED_LINES
            if fits or hit.line <= current.last:
                best = min(current.best, hit, key=Hit.sort_key)
                windows[-1] = Window(path, current.first,
                                     max(current.last, last) if fits else current.last, best)
                continue
            first = current.last + 1  # too long to merge: continue where it stopped
        windows.append(Window(path, first, last, hit))
    return windows


def plan_windows(hits: Sequence[Hit], context: int, limit: int, *,
                 merge: bool = True) -> list[Window]:
    """Rank ``hits``, cut a window around each, merge overlapping ones, keep the best ``limit``.

    Windows may run past the end of a file; ``render`` clips them.
    """
    unique = {(h.path, h.line): h for h in sorted(hits, key=Hit.sort_key, reverse=True)}
    by_path: dict[str, list[Hit]] = {}
    for hit in unique.values():
        by_path.setdefault(hit.path, []).append(hit)
    windows = [w for path, file_hits in by_path.items()
               for w in _file_windows(path, file_hits, context, merge)]
    windows.sort(key=lambda w: w.best.sort_key())
    return windows[:limit]


def render(window: Window, lines: list[str] | None) -> Snippet:
    """The window's numbered text (just the line grep saw if the file cannot be read)."""
    best = window.best
    if lines is None or best.line > len(lines):
        text = number_lines([best.text], best.line)
        return Snippet(window.path, best.line, best.line, best.line, text, best.symbol,
                       best.sort_key())
    last = min(window.last, len(lines))
    text = number_lines(lines[window.first - 1 : last], window.first)
    return Snippet(window.path, best.line, window.first, last, text, best.symbol,
                   best.sort_key())
