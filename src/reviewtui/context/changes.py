"""Where a unit changed each side of the file, as line ranges the levels can look around.

Added lines give ranges on the new side and removed lines on the old side. A block that only
removes lines still changed the new side *somewhere*: between the two lines around the removal,
so that pair becomes the new-side range (and symmetrically for a pure insertion on the old side).
Every context level centres on these ranges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reviewtui.context.excerpt import Range, merge_ranges
from reviewtui.git.model import DiffLine, Hunk
from reviewtui.units.model import ReviewUnit


@dataclass(frozen=True, slots=True)
class ChangedRanges:
    new: tuple[Range, ...]
    old: tuple[Range, ...]


def _number(line: DiffLine, side: str) -> int | None:
    return line.new_no if side == "new" else line.old_no


def _block_range(block: Sequence[DiffLine], side: str, before: int | None,
                 after: int | None) -> Range | None:
    mine = "+" if side == "new" else "-"
    numbers = [n for ln in block if ln.kind == mine and (n := _number(ln, side)) is not None]
    if numbers:
        return min(numbers), max(numbers)
    around = [n for n in (before, after) if n is not None]
    return (min(around), max(around)) if around else None


def _hunk_ranges(hunk: Hunk, side: str) -> list[Range]:
    """One range per block of consecutive changed lines of the hunk."""
    out: list[Range] = []
    lines = hunk.lines
    last: int | None = None  # this side's number of the latest line before the block
    i = 0
    while i < len(lines):
        if lines[i].kind == " ":
            last = _number(lines[i], side)
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].kind != " ":
            j += 1
        following = _number(lines[j], side) if j < len(lines) else None
        found = _block_range(lines[i:j], side, last, following)
        if found is not None:
            out.append(found)
        for ln in lines[i:j]:
            number = _number(ln, side)
            if number is not None:
                last = number
        i = j
    return out


def changed_ranges(unit: ReviewUnit) -> ChangedRanges:
    """The unit's changed line ranges on the new and on the old side, merged and sorted."""
    new: list[Range] = []
    old: list[Range] = []
    for hunk in unit.hunks:
        new.extend(_hunk_ranges(hunk, "new"))
        old.extend(_hunk_ranges(hunk, "old"))
    return ChangedRanges(tuple(merge_ranges(new)), tuple(merge_ranges(old)))
