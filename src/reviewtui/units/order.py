"""The orders a review index can be read in: by file (as built), by priority, by risk.

One function, so that ``index --sort``, the workbench and ``eval`` (which measures where the
priority order puts each real bug) always mean the same order. Sorting is stable: units of the
same score keep their file order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewtui.models import IndexUnit, ReviewIndex

_RISK_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def sort_units(index: ReviewIndex, order: str) -> ReviewIndex:
    """The index with its units by file (as built), by priority or by risk (then priority)."""
    if order == "file":
        return index

    def key(unit: IndexUnit) -> tuple[float, ...]:
        score = -(unit.priority_score or 0.0)
        if order == "priority":
            return (score,)
        risk = unit.agent_decision.priority if unit.agent_decision else None
        return (_RISK_ORDER.get(risk or "", 4), score)

    return index.model_copy(update={"units": sorted(index.units, key=key)})
