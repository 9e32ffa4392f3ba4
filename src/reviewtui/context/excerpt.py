"""Numbered excerpts of one file version: the shared plumbing of every context level.

Each level only decides *which* lines to show; turning a file's bytes into lines (the way git
counts them, never ``str.splitlines`` which also splits on form feeds and Unicode separators),
rendering ``  41 | code`` with ``…`` markers over the gaps, and line-range arithmetic live here
so that all levels number and elide lines identically.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from reviewtui.code import FileStructure, analyze_source

Range = tuple[int, int]  # 1-based, inclusive

_BINARY_SNIFF = 8000


def looks_binary(data: bytes | str) -> bool:
    """Git's heuristic: a NUL byte near the start means binary."""
    if isinstance(data, str):
        return "\0" in data[:_BINARY_SNIFF]
    return b"\0" in data[:_BINARY_SNIFF]


@lru_cache(maxsize=8)
def decode_lines(data: bytes | str) -> tuple[str, ...]:
    """The file's lines as git numbers them: split on LF only, CR and terminator stripped.

    Non-UTF-8 bytes are replaced, never fatal. Cached: bytes cache their hash, so asking again
    for the same version (one per level) costs a lookup.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if not text:
        return ()
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return tuple(part[:-1] if part.endswith("\r") else part for part in parts)


@lru_cache(maxsize=8)
def parse_structure(language: str | None, data: bytes | str | None) -> FileStructure | None:
    """Whole-file structure for the context levels (None: no language, no grammar, no data).

    The levels look at definitions far from the changed lines (window edges), so they want a
    whole-file parse rather than the windowed one the units stage makes.
    """
    if language is None or data is None or looks_binary(data):
        return None
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    return analyze_source(language, raw)


@dataclass(frozen=True, slots=True)
class Source:
    """One file version as numbered lines, with where it came from for the headers."""

    path: str
    lines: tuple[str, ...]
    before: bool = False  # the old side: headers say so, numbers are old numbers

    @property
    def count(self) -> int:
        return len(self.lines)

    @property
    def width(self) -> int:
        return max(4, len(str(self.count)))


def merge_ranges(ranges: Iterable[Range], *, gap: int = 1) -> list[Range]:
    """Sorted ranges with overlapping (and, with ``gap=1``, adjacent) ones joined."""
    merged: list[Range] = []
    for start, end in sorted((min(a, b), max(a, b)) for a, b in ranges):
        if merged and start <= merged[-1][1] + gap:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def clamp_ranges(ranges: Iterable[Range], count: int) -> list[Range]:
    """Ranges cut to ``1..count``; ranges wholly outside disappear."""
    out = [(max(1, a), min(count, b)) for a, b in ranges]
    return merge_ranges(r for r in out if r[0] <= r[1])


def widen(ranges: Iterable[Range], by: int, count: int) -> list[Range]:
    return clamp_ranges(((a - by, b + by) for a, b in ranges), count)


def lines_of(ranges: Iterable[Range]) -> set[int]:
    return {n for a, b in ranges for n in range(a, b + 1)}


def runs(numbers: Iterable[int]) -> list[Range]:
    """``{1, 2, 3, 7}`` -> ``[(1, 3), (7, 7)]``."""
    out: list[Range] = []
    for n in sorted(set(numbers)):
        if out and out[-1][1] == n - 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def span_label(ranges: Sequence[Range]) -> str:
    """``[(10, 40), (55, 55)]`` -> ``L10-40,L55``."""
    return ",".join(f"L{a}" if a == b else f"L{a}-{b}" for a, b in ranges)


def omitted(count: int) -> str:
    return f"… {count} line{'s' if count != 1 else ''} omitted …"


def render_numbered(source: Source, keep: Iterable[int], *, lo: int = 1,
                    hi: int | None = None) -> list[str]:
    """The kept lines as ``  41 | code``; every gap inside ``lo..hi`` becomes one marker line."""
    top = source.count if hi is None else min(hi, source.count)
    wanted = sorted(n for n in set(keep) if lo <= n <= top)
    out: list[str] = []
    expected = lo
    for n in wanted:
        if n > expected:
            out.append(omitted(n - expected))
        out.append(f"{n:>{source.width}} | {source.lines[n - 1]}")
        expected = n + 1
    if wanted and top >= expected:
        out.append(omitted(top - expected + 1))
    return out


def header(source: Source, ranges: Sequence[Range], what: str | None = None) -> str:
    """``# src/a.py:L10-40 (function handle)``; the old side says ``before the change``."""
    notes = [part for part in (what, "before the change" if source.before else None) if part]
    suffix = f" ({', '.join(notes)})" if notes else ""
    where = f"{source.path}:{span_label(ranges)}" if ranges else source.path
    return f"# {where}{suffix}"
