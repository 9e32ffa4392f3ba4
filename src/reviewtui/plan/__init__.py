"""The plan stage: the LLM planner, fusion with the rules, the person's overrides on top.

``plan_change`` is the one entry point: review index in, fused plan out. Without a planner (no
model configured, or ``--no-llm``) the rules decide alone and the report says why. What the
planner and the person said goes to the evidence log (``conflicts``, ``evidence``). Given a
plan cache (``cache``), a complete plan is kept and planning the same inputs again asks the
model nothing.
The planner itself (``planner``, ``prompt``, ``extract``) loads only when a model plans: the
rules-only plan that opens the workbench never imports it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from reviewtui.git.intent import ChangeIntent
from reviewtui.models import ReviewIndex
from reviewtui.plan.conflicts import (
    EvidenceLog,
    append_conflicts,
    conflict_log_path,
    read_conflicts,
    read_evidence,
)
from reviewtui.plan.evidence import UnitFacts, override_records
from reviewtui.plan.fusion import fuse_plan, is_high_risk, llm_answers
from reviewtui.plan.overrides import apply_overrides, load_overrides, resolve_unit_ids
from reviewtui.plan.requests import merge_requests, parse_level, planner_request
from reviewtui.plan.schema import (
    ConflictRecord,
    FusedItem,
    FusedPlan,
    LLMPlanItem,
    OverrideSet,
    PlannerReport,
    Provenance,
    UnitOverride,
)
from reviewtui.units.index import planner_index

if TYPE_CHECKING:
    from reviewtui.plan.cache import PlanCache
    from reviewtui.plan.planner import Planner


def plan_change(index: ReviewIndex, planner: Planner | None, *,
                overrides: OverrideSet | None = None, conflict_log: EvidenceLog | None = None,
                without_planner: PlannerReport | None = None,
                intent: ChangeIntent | None = None, cache: PlanCache | None = None,
                change: str = "", fresh: bool = False) -> FusedPlan:
    """Plan (when a planner is given), fuse, log the evidence, and apply the overrides.

    ``without_planner`` is the report to show when ``planner`` is None (why there is none).
    ``intent``, the change's stated purpose, goes to the planner with every batch.
    With a ``cache``, the plan kept for the same inputs (``change``: the change's key) is
    used instead of asking, unless ``fresh``; a complete new plan is kept there.
    What the LLM said about each unit and the person's ``overrides`` go to ``conflict_log``.
    """
    answers: dict[str, LLMPlanItem] = {}
    planned: frozenset[str] = frozenset()
    if planner is None or not index.units:
        report = without_planner or PlannerReport(status="skipped")
    elif cache is not None:
        from reviewtui.plan.cache import cached_plan

        outcome = cached_plan(planner, planner_index(index), intent, cache, change=change,
                              fresh=fresh)
        answers, planned, report = outcome.items, outcome.planned_ids, outcome.report
    else:
        outcome = planner.plan(planner_index(index), intent)
        answers, planned, report = outcome.items, outcome.planned_ids, outcome.report
    fusion = fuse_plan(index.units, answers, planned, model=report.model)
    if overrides is not None:
        overrides = resolve_unit_ids(overrides, [u.unit_id for u in index.units])
    if conflict_log is not None:
        evidence = list(fusion.evidence)
        if overrides is not None:
            facts = {u.unit_id: UnitFacts.of_index(u) for u in index.units}
            evidence += override_records(facts, OverrideSet(), overrides)
        try:
            if evidence:
                conflict_log.append(evidence)
        except OSError as exc:
            report.messages.append(f"evidence log not written: {exc.strerror}")
    items = apply_overrides(fusion.items, overrides)
    return FusedPlan(plan=items, planner=report, conflicts=len(fusion.conflicts))


def fuse_again(plan: FusedPlan, index: ReviewIndex) -> FusedPlan:
    """``plan``'s planner answers fused with the rule scores of ``index`` (after the rules
    changed: a learned rule accepted), without asking the model again or logging evidence."""
    answers, planned = llm_answers(plan.plan)
    fusion = fuse_plan(index.units, answers, planned, model=plan.planner.model)
    return FusedPlan(plan=fusion.items, planner=plan.planner, conflicts=len(fusion.conflicts))


__all__ = [
    "ConflictRecord",
    "EvidenceLog",
    "FusedItem",
    "FusedPlan",
    "LLMPlanItem",
    "OverrideSet",
    "Planner",
    "PlannerReport",
    "Provenance",
    "UnitOverride",
    "append_conflicts",
    "conflict_log_path",
    "fuse_again",
    "fuse_plan",
    "is_high_risk",
    "load_overrides",
    "merge_requests",
    "parse_level",
    "plan_change",
    "planner_request",
    "read_conflicts",
    "read_evidence",
]


def __getattr__(name: str) -> Any:
    if name == "Planner":  # the LLM planner, loaded on first use
        value = importlib.import_module("reviewtui.plan.planner").Planner
        globals()[name] = value
        return value
    raise AttributeError(f"module 'reviewtui.plan' has no attribute {name!r}")
