"""Fusing the planner's answers again with new rule scores (a learned rule was accepted)."""

from __future__ import annotations

from reviewtui.models import CallersRequest, PreviousVersionRequest, ReviewIndex
from reviewtui.plan import FusedPlan, PlannerReport, fuse_again, fuse_plan
from tests.unit.plan.test_fusion import FULL, C, D, F, llm, unit


def _index(units: list[object]) -> ReviewIndex:
    return ReviewIndex.model_validate({
        "review_metadata": {"mode": "commit", "base_branch": None, "old": "a", "new": "b",
                            "total_files": 1, "total_changes": len(units),
                            "timestamp": "2024-01-01T00:00:00+00:00"},
        "summary": {"changes_by_type": {}, "total_lines": {"added": 1, "removed": 0},
                    "files_changed": ["src/a.py"]},
        "units": units})


def test_the_same_answers_fused_again_give_the_same_plan() -> None:
    units = [unit("kept", level=F, requests=[PreviousVersionRequest()]),
             unit("skipped", level=F, risk="low", conf=0.4),
             unit("guarded", level=C, risk="high", conf=0.9),
             unit("silent", level=F, risk="low", conf=0.4),
             unit("unplanned", level=F)]
    answers = {"kept": llm("kept", C, requests=[CallersRequest(symbol="pay")], reason=""),
               "skipped": llm("skipped", D, skip=True),
               "guarded": llm("guarded", D, skip=True)}
    fused = fuse_plan(units, answers, {"kept", "skipped", "guarded", "silent"}, model="m")
    plan = FusedPlan(plan=fused.items, planner=PlannerReport(status="ok", model="m"),
                     conflicts=len(fused.conflicts))
    assert fuse_again(plan, _index(units)) == plan


def test_new_rule_levels_are_fused_with_the_old_answers() -> None:
    before = [unit("t", level=F, conf=0.7, risk="low")]
    plan = fuse_plan(before, {"t": llm("t", FULL)}, {"t"})
    first = FusedPlan(plan=plan.items, planner=PlannerReport(status="ok"))
    assert first.plan[0].final_context_level is FULL  # between the bands: the higher
    after = [unit("t", level=D, conf=0.9, risk="low")]  # a learned rule says diff_only
    again = fuse_again(first, _index(after)).plan[0]
    assert (again.rule_context_level, again.llm_context_level) == (D, FULL)
    assert again.final_context_level is FULL and again.provenance.level == "llm"
