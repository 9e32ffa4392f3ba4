"""The review_index and planner_index of seed 001, built from units.

The rule fields stay empty here; the rule stage fills them. The planner index is the slim view:
no diff text, no notes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from reviewtui.git.model import ChangeSet
from reviewtui.models import (
    IndexUnit,
    PlannerIndex,
    PlannerUnit,
    ReviewIndex,
    ReviewMetadata,
    Summary,
    TotalLines,
)
from reviewtui.units.model import ReviewUnit


def index_unit(unit: ReviewUnit, extra: Mapping[str, Any] | None = None) -> IndexUnit:
    """The unit's entry; ``extra``: more of its fields (the rule stage's), validated with it."""
    return IndexUnit.model_validate(_unit_fields(unit, extra))


def _unit_fields(unit: ReviewUnit, extra: Mapping[str, Any] | None) -> dict[str, Any]:
    """The fields of the unit's ``IndexUnit`` as data to validate (tuples become the lists
    validating them gives)."""
    fields: dict[str, Any] = {
        "unit_id": unit.unit_id,
        "file_path": unit.file_path,
        "old_path": unit.old_path,
        "language": unit.language,
        "change_type": unit.change_type,
        "location": unit.location,
        "tags": unit.tags,
        "metrics": {"added_lines": unit.added_lines, "removed_lines": unit.removed_lines,
                    "hunk_count": len(unit.hunks)},
        "line_numbers": {"new_compact": unit.new_compact, "old_compact": unit.old_compact},
        "symbols": unit.symbols,
    }
    if extra:
        fields.update(extra)
    return fields


def build_review_index(change_set: ChangeSet, units: list[ReviewUnit],
                       extra: Callable[[ReviewUnit], Mapping[str, Any]] | None = None,
                       ) -> ReviewIndex:
    """The index of ``units``; ``extra`` gives each unit's further fields (see ``index_unit``)."""
    files: dict[str, str] = {}
    for unit in units:
        files.setdefault(unit.file_path, unit.change_type)
    by_type = Counter(files.values())
    metadata = ReviewMetadata(
        mode=change_set.mode,
        base_branch=change_set.base_branch,
        old=change_set.old_side.describe(),
        new=change_set.new_side.describe(),
        total_files=len(files),
        total_changes=len(units),
        timestamp=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    summary = Summary(
        changes_by_type={key: by_type.get(key, 0) for key in ("add", "modify", "delete", "rename")},
        total_lines=TotalLines(added=sum(u.added_lines for u in units),
                               removed=sum(u.removed_lines for u in units)),
        files_changed=list(files),
    )
    # Each unit validated from its data in one call (its metrics and line numbers within):
    # three model constructors per unit from Python were ~10% more on 7,987 units.
    return ReviewIndex(review_metadata=metadata, summary=summary, units=[
        IndexUnit.model_validate(_unit_fields(u, extra(u) if extra else None)) for u in units])


def planner_index(index: ReviewIndex) -> PlannerIndex:
    """The slim index for the LLM planner, highest priority first: when the change needs
    several batches, the units that matter most are planned first (and survive a failed
    later batch)."""
    ordered = sorted(index.units, key=lambda u: -(u.priority_score or 0.0))
    return PlannerIndex(
        review_metadata=index.review_metadata,
        summary=index.summary,
        units=[
            PlannerUnit(
                unit_id=u.unit_id, file_path=u.file_path, patch_type=u.change_type, tags=u.tags,
                metrics=u.metrics, rule_context_level=u.rule_context_level,
                rule_confidence=u.rule_confidence, line_numbers=u.line_numbers,
                rule_extra_requests=u.rule_extra_requests,
                risk=u.agent_decision.priority if u.agent_decision else None,
                priority=u.priority_score,
            )
            for u in ordered
        ],
    )
