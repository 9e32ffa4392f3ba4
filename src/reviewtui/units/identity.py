"""Which unit is which across edits and changes, without trusting line numbers.

A unit's id (``unit_id``) hashes its line ranges too: a unit that only moved (an edit above it
added a line) gets another id. Two things here do not depend on where a unit sits:

* ``content_ids`` -- what a unit changes: its definition, its diff lines' text (context lines
  included, line numbers left out) and the end-of-file markers. A unit that moved keeps it; a
  unit whose lines were edited gets another. Units of one file with the very same content
  (the same edit twice in one function) are told apart by their order in the file, so each
  keeps an identity of its own. "Reviewed" marks are kept by it (``sessions.marks``).
* ``successor_of`` -- the unit another became after an edit: itself while its id is there,
  else the unit of its file whose lines are nearest to where it was. The workbench's cursor
  follows it after a refresh; the person's overrides follow it too, among the units of the
  same definition (``unit_key``) that the edit made (``plan.overrides.carry_overrides``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from reviewtui.units.model import ReviewUnit

Span = tuple[int, int]


def unit_span(unit: ReviewUnit) -> Span | None:
    """The lines the unit covers: on the new side, or the old one for a deletion."""
    return unit.span() or unit.span("old")


def _content_digest(unit: ReviewUnit) -> str:
    if not unit.hunks:  # no lines (binary, mode, symlink): its id names no line either
        return unit.unit_id.removeprefix("u_")
    anchor = unit.functions[0] if unit.functions else unit.symbols[0] if unit.symbols else ""
    digest = hashlib.sha256(f"{unit.old_path}\0{unit.file_path}\0{anchor}\0".encode(
        "utf-8", "surrogatepass"))
    for hunk in unit.hunks:
        digest.update(f"@{int(hunk.old_missing_newline)}{int(hunk.new_missing_newline)}\n"
                      .encode())
        digest.update("".join([f"{line.kind}{line.text}\n" for line in hunk.lines]).encode(
            "utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


def content_ids(units: Iterable[ReviewUnit]) -> dict[str, str]:
    """``unit_id -> content id`` (``c_…``) of every unit given; give all the units of a file
    together, so that units with the same content are numbered in the file's order."""
    seen: dict[tuple[str, str], int] = {}
    found: dict[str, str] = {}
    for unit in sorted(units, key=lambda u: (u.file_path, unit_span(u) or (0, 0))):
        digest = _content_digest(unit)
        count = seen[unit.file_path, digest] = seen.get((unit.file_path, digest), 0) + 1
        found[unit.unit_id] = f"c_{digest}" if count == 1 else f"c_{digest}.{count}"
    return found


class UnitContents:
    """The content ids of a change's units, worked out a file at a time when first asked
    (hashing reads a unit's diff lines, which a snapshot loads only when they are needed)."""

    def __init__(self, units: Sequence[ReviewUnit]) -> None:
        self._by_file: dict[str, list[ReviewUnit]] = {}
        for unit in units:
            self._by_file.setdefault(unit.file_path, []).append(unit)
        self._ids: dict[str, str] = {}

    def of(self, unit: ReviewUnit) -> str:
        found = self._ids.get(unit.unit_id)
        if found is None:
            self._ids.update(content_ids(self._by_file.get(unit.file_path, [unit])))
            found = self._ids.get(unit.unit_id) or content_ids([unit])[unit.unit_id]
        return found


def nearest(span: Span | None, units: Sequence[ReviewUnit]) -> ReviewUnit | None:
    """Of ``units``, the one whose lines are nearest to ``span``: of those that overlap it
    the one sharing the most lines, else the closest (the first of equals); None when there
    are none."""
    first, last = span or (0, 0)

    def distance(other: ReviewUnit) -> tuple[int, int]:
        start, end = unit_span(other) or (0, 0)
        return max(0, start - last, first - end), -max(0, min(last, end) - max(first, start))

    return min(units, key=distance) if units else None


def successor_of(unit: ReviewUnit, units: Sequence[ReviewUnit]) -> str | None:
    """The unit that ``unit`` became after an edit: itself if unchanged, else the unit of
    the same file whose lines are nearest to where it was (None: its file has none left)."""
    if any(u.unit_id == unit.unit_id for u in units):
        return unit.unit_id
    found = nearest(unit_span(unit), [u for u in units if u.file_path == unit.file_path])
    return found.unit_id if found is not None else None
