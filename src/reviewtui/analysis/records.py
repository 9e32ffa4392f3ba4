"""Compact per-file results: what worker processes send back and what the cache stores.

A unit's hunks are kept as indices into its file's hunks: the diff is parsed on every run anyway,
so a record stays small (no diff lines in it) and rebuilding a unit is one constructor call.
Only the pieces of a hunk split for size (a long new file) are stored whole.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from reviewtui.git.model import FileChange, Hunk
from reviewtui.rules import RuleSuggestion
from reviewtui.units import ReviewUnit

_FIELDS = tuple(field.name for field in dataclasses.fields(ReviewUnit))
_HUNKS = _FIELDS.index("hunks")


@dataclass(frozen=True, slots=True)
class FileRecord:
    """The units of one changed file (hunks as indices) with their rule suggestions."""

    units: tuple[tuple[object, ...], ...]
    suggestions: tuple[RuleSuggestion, ...]


def encode(change: FileChange, units: Sequence[ReviewUnit],
           suggestions: Sequence[RuleSuggestion]) -> FileRecord:
    position = {id(hunk): index for index, hunk in enumerate(change.hunks)}
    rows: list[tuple[object, ...]] = []
    for unit in units:
        values = [getattr(unit, name) for name in _FIELDS]
        values[_HUNKS] = tuple(position.get(id(hunk), hunk) for hunk in unit.hunks)
        rows.append(tuple(values))
    return FileRecord(tuple(rows), tuple(suggestions))


def decode(change: FileChange, record: FileRecord) -> list[tuple[ReviewUnit, RuleSuggestion]]:
    """The units and suggestions of ``record``, attached to this run's hunks of ``change``.

    Raises ``ValueError`` when the record does not fit the change (a stale or foreign record).
    """
    if len(record.units) != len(record.suggestions):
        raise ValueError("record has mismatched units and suggestions")
    hunks = change.hunks
    out: list[tuple[ReviewUnit, RuleSuggestion]] = []
    for row, suggestion in zip(record.units, record.suggestions, strict=True):
        if len(row) != len(_FIELDS):
            raise ValueError("record was written for another unit layout")
        values = list(row)
        stored = values[_HUNKS]
        if not isinstance(stored, tuple):
            raise ValueError("record hunks are not a tuple")
        values[_HUNKS] = tuple(_hunk(hunks, item) for item in stored)
        unit = ReviewUnit(*values)  # type: ignore[arg-type]
        if not isinstance(suggestion, RuleSuggestion):
            raise ValueError("record suggestion has the wrong type")
        out.append((unit, suggestion))
    return out


def _hunk(hunks: tuple[Hunk, ...], item: object) -> Hunk:
    if isinstance(item, Hunk):
        return item
    if isinstance(item, int) and 0 <= item < len(hunks):
        return hunks[item]
    raise ValueError("record hunks do not fit the change")
