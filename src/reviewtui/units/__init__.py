"""The units stage: ``build_units`` cuts a ``ChangeSet`` into tagged ``ReviewUnit``s."""

from __future__ import annotations

from reviewtui.units.build import build_units, compact_ranges
from reviewtui.units.index import build_review_index, index_unit, planner_index
from reviewtui.units.model import ReviewUnit

__all__ = [
    "ReviewUnit",
    "build_review_index",
    "build_units",
    "compact_ranges",
    "index_unit",
    "planner_index",
]
