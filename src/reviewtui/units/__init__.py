"""The units stage: ``build_units`` cuts a ``ChangeSet`` into tagged ``ReviewUnit``s.

``ReviewUnit`` (plain data) loads with the package; building units (tree-sitter, the tagging
vocabularies) and the index load on first use, so a module that only names a unit does not
import the parsers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewtui import lazy_exports
from reviewtui.units.model import ReviewUnit

if TYPE_CHECKING:
    from reviewtui.units.build import build_units, compact_ranges
    from reviewtui.units.index import build_review_index, index_unit, planner_index

_LAZY = {"build_units": "reviewtui.units.build", "compact_ranges": "reviewtui.units.build",
         "build_review_index": "reviewtui.units.index", "index_unit": "reviewtui.units.index",
         "planner_index": "reviewtui.units.index"}

__all__ = [
    "ReviewUnit",
    "build_review_index",
    "build_units",
    "compact_ranges",
    "index_unit",
    "planner_index",
]


__getattr__ = lazy_exports(__name__, _LAZY, globals())
