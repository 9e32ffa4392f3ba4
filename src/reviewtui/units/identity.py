"""Which unit is which across edits, when a unit's id changed with its content.

``successor_of`` -- the unit another became after an edit: itself while its id is there, else
the unit of its file whose lines are nearest to where it was. The workbench's cursor follows
it after a refresh; the person's overrides follow it too, among the units of the same
definition (``unit_key``) that the edit made (``plan.overrides.carry_overrides``).
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewtui.units.model import ReviewUnit

Span = tuple[int, int]


def unit_span(unit: ReviewUnit) -> Span | None:
    """The lines the unit covers: on the new side, or the old one for a deletion."""
    return unit.span() or unit.span("old")


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
