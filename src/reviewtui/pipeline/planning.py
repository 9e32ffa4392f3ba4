"""The plan and the context bundles of a loaded change (``LoadedChange.plan``, ``replan``,
``bundle_stream``, ``bundles``), and the planner for the configured model.

Kept apart from loading and from the change itself: these reach into the planner, the LLM
stack and the context stage, none of which loading a change needs.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewtui.config import Settings
    from reviewtui.context import BundleStream
    from reviewtui.models import BundleSet, ScannerFinding
    from reviewtui.pipeline.change import LoadedChange
    from reviewtui.plan import FusedPlan, OverrideSet, Planner, PlannerReport
    from reviewtui.rules.scanners import ScanReport
    from reviewtui.units import ReviewUnit


def plan(loaded: LoadedChange, *, use_llm: bool = True, overrides: OverrideSet | None = None,
         scan: ScanReport | None = None) -> FusedPlan:
    """The fused plan: the LLM planner when configured (and wanted), else the rules."""
    from reviewtui.plan import plan_change

    planner, why_not = make_planner(loaded.settings, use_llm=use_llm)
    # The planner batches by priority: count reach then (the model call costs far more).
    source = loaded.with_reach() if planner is not None else loaded
    return plan_change(source.review_index(scan), planner, overrides=overrides,
                       conflict_log=loaded.conflict_log(), without_planner=why_not,
                       intent=loaded.intent)


def replan(loaded: LoadedChange, previous: FusedPlan) -> FusedPlan:
    """``previous`` carried over to this change after a refresh: its items for the units
    still here (a unit id pins the unit's content, so its decision still holds), the
    rules' plan for the units that are new or changed."""
    known = {item.unit_id: item for item in previous.plan}
    new = [unit for unit in loaded.units if unit.unit_id not in known]
    planned = ({item.unit_id: item for item in replace(loaded, units=new).plan(
        use_llm=False).plan} if new else {})
    items = [known.get(u.unit_id) or planned[u.unit_id] for u in loaded.units
             if u.unit_id in known or u.unit_id in planned]
    return previous.model_copy(update={"plan": items})


def bundle_stream(loaded: LoadedChange, plan: FusedPlan, unit_ids: Sequence[str] | None = None, *,
                  unit_budget: int | None = None, review_budget: int | None = None,
                  batches: int | None = 1, scan: ScanReport | None = None) -> BundleStream:
    """Context bundles for ``unit_ids`` (default: every unit the plan keeps), built lazily
    in priority order as the stream is iterated; ``batches`` review budgets are filled
    (None: all), the rest deferred (see ``context.allocate``)."""
    from reviewtui.context import (
        BundleRequest,
        BundleStream,
        ContextScheduler,
        ProjectSearch,
        RequestRunner,
        unit_priority,
    )
    from reviewtui.llm import resolve_llm, token_counter
    from reviewtui.llm.redact import redact_text
    from reviewtui.rules.scan_mapping import findings_by_unit

    items = {item.unit_id: item for item in plan.plan}
    by_id = {unit.unit_id: unit for unit in loaded.units}
    wanted = list(unit_ids) if unit_ids is not None else [
        item.unit_id for item in plan.plan if not item.skip_review]
    requests = [BundleRequest(uid, items[uid].final_context_level,
                              tuple(items[uid].extra_requests),
                              unit_priority(items[uid], by_id[uid].tags))
                for uid in dict.fromkeys(wanted) if uid in items and uid in by_id]
    asking = {by_id[r.unit_id].file_path for r in requests
              if any(x.type == "scanner_issues" for x in r.extra_requests)}
    findings = None
    if asking:
        report = scan if scan is not None else loaded.scan(paths=asking)
        found = findings_by_unit(loaded.units, report.issues)
        if report.ran:
            def findings(unit: ReviewUnit) -> list[ScannerFinding]:
                return found.get(unit.unit_id, [])
    search = (ProjectSearch(loaded.repo, loaded.change_set, loaded.reader, loaded.settings.context)
              if loaded.repo is not None else None)
    engine = loaded.rules
    runner = RequestRunner(
        search, lambda unit, kind: engine.handler(unit.language).symbols(unit).symbols_for(
            kind), findings)
    config = resolve_llm(loaded.settings.llm)
    counter = token_counter(config.model)
    key = config.api_key
    # Bundles leave the process (the model, bundle's output): no secret, nor the configured
    # key, is in them -- and what is counted is what is sent.
    scheduler = ContextScheduler(loaded.units, loaded.change_set, loaded.reader,
                                 loaded.settings.context, runner, count=counter.count,
                                 counter_name=counter.name,
                                 redact=lambda text: redact_text(text, key))
    return BundleStream(scheduler, requests, unit_budget=unit_budget,
                        review_budget=review_budget, batches=batches)


def bundles(loaded: LoadedChange, plan: FusedPlan, unit_ids: Sequence[str] | None = None, *,
            unit_budget: int | None = None, review_budget: int | None = None,
            batches: int | None = 1, scan: ScanReport | None = None) -> BundleSet:
    """``bundle_stream`` collected: every included bundle and the allocation."""
    return loaded.bundle_stream(plan, unit_ids, unit_budget=unit_budget,
                              review_budget=review_budget, batches=batches,
                              scan=scan).collect()


def make_planner(settings: Settings, *, use_llm: bool = True,
                 env: Mapping[str, str] | None = None, cancel: threading.Event | None = None,
                 ) -> tuple[Planner | None, PlannerReport | None]:
    """A planner for the configured model, or None and a report saying why there is none.

    Setting ``cancel`` stops its requests at once (the planner then raises
    ``LLMCancelledError``)."""
    from reviewtui.llm import NOT_CONFIGURED_HINT, resolve_llm, token_counter
    from reviewtui.plan import PlannerReport

    if not use_llm:
        return None, PlannerReport(status="skipped",
                                   messages=["LLM planning turned off; the rules decide"])
    config = resolve_llm(settings.llm, env)
    if not config.configured:
        return None, PlannerReport(status="not_configured",
                                   messages=[f"{NOT_CONFIGURED_HINT}; the rules decide"])
    from reviewtui.llm import LLMClient  # the openai SDK: only when a model will be asked
    from reviewtui.plan.planner import Planner

    return Planner(LLMClient(config), token_counter(config.model).count, cancel=cancel), None
