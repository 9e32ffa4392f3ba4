"""The plan and the context bundles of a loaded change (``LoadedChange.plan``, ``replan``,
``bundle_stream``, ``bundles``), and the planner for the configured model.

Kept apart from loading and from the change itself: these reach into the planner, the LLM
stack and the context stage, none of which loading a change needs.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
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
         scan: ScanReport | None = None, fresh: bool = False,
         cancel: threading.Event | None = None) -> FusedPlan:
    """The fused plan: the LLM planner when configured (and wanted), else the rules.

    The one way the commands and the workbench plan a change: the model's plan is kept in
    the repository's plan cache (``plan.cache``) and a later run on the same inputs reads it
    instead of asking again -- unless ``fresh`` (``--replan``, ``P`` again), which asks and
    keeps the new plan, or the change was loaded without the caches (``--no-cache``).
    Setting ``cancel`` stops the planner's requests at once (``LLMCancelledError``)."""
    from reviewtui.plan import plan_change

    planner, why_not = make_planner(loaded.settings, use_llm=use_llm, cancel=cancel)
    # The planner batches by priority: count reach then (the model call costs far more).
    source = loaded.with_reach() if planner is not None else loaded
    cache = None
    if planner is not None and loaded.use_cache and loaded.repo is not None:
        from reviewtui.plan.cache import PlanCache, plan_cache_path

        cache = PlanCache.open(plan_cache_path(loaded.repo.common_dir))
    try:
        return plan_change(source.review_index(scan), planner, overrides=overrides,
                           conflict_log=loaded.conflict_log(), without_planner=why_not,
                           intent=loaded.intent, cache=cache, change=loaded.change_set.key,
                           fresh=fresh)
    finally:
        if cache is not None:
            cache.close()


def replan(loaded: LoadedChange, previous: FusedPlan, before: Sequence[ReviewUnit] = (), *,
           follow: bool = True) -> FusedPlan:
    """``previous`` carried over to this change after a refresh (``carry_plan``)."""
    return carry_plan(loaded, previous, before, follow=follow).plan


@dataclass(frozen=True)
class CarriedPlan:
    """A plan made for an earlier version of a change, on the change's units as they are."""

    plan: FusedPlan
    followed: tuple[str, ...] = ()  # units edited since: the plan of the unit they were
    uncovered: tuple[str, ...] = ()  # units it had nothing for: the rules decide them


def carry_plan(loaded: LoadedChange, previous: FusedPlan, before: Sequence[ReviewUnit] = (),
               *, follow: bool = True) -> CarriedPlan:
    """``previous``, made for an earlier version of this change (``before``: the units it was
    made for), on every unit of this one: its items for the units still here (a unit id pins
    the unit's content, so its decision still holds); a unit edited since takes what the
    planner said about the unit it was (``successor_of``: same file, nearest lines; of
    several, the same definition's), fused with its own rule scores; the units it has
    nothing for (new ones; every edited one when ``follow`` is off: another change, not a
    version of this one) are decided by the rules, as in a plan that did not cover them."""
    from reviewtui.plan.fusion import fuse_plan, llm_answers
    from reviewtui.units.identity import successor_of
    from reviewtui.units.model import unit_key

    known = {item.unit_id: item for item in previous.plan}
    rest = [unit for unit in loaded.units if unit.unit_id not in known]
    if not rest:
        return CarriedPlan(previous.model_copy(update={"plan": [
            known[u.unit_id] for u in loaded.units]}))
    by_file: dict[str, list[ReviewUnit]] = {}
    for unit in loaded.units:
        by_file.setdefault(unit.file_path, []).append(unit)
    was: dict[str, ReviewUnit] = {}  # a unit edited since -> the unit it was
    for old in before if follow else ():
        if old.unit_id not in known:
            continue
        now = successor_of(old, by_file.get(old.file_path, ()))
        if now is None or now in known:
            continue  # its file left the change, or it is there unchanged
        mine, key = was.get(now), unit_key(loaded.units_by_id[now])
        if mine is None or unit_key(mine) != key == unit_key(old):
            was[now] = old
    # What the planner said about each of them; one it planned without a word (left out of
    # an answered batch: dropped when low risk) is not followed -- its edits were not seen.
    said, _ = llm_answers([known[old.unit_id] for old in was.values()])
    answers = {now: said[old.unit_id].model_copy(update={"unit_id": now})
               for now, old in was.items() if old.unit_id in said}
    index = replace(loaded, units=rest).review_index()
    fused = {item.unit_id: item for item in fuse_plan(
        index.units, answers, answers.keys(), model=previous.planner.model).items}
    items = [known.get(u.unit_id) or fused[u.unit_id] for u in loaded.units]
    return CarriedPlan(previous.model_copy(update={"plan": items}),
                       tuple(u.unit_id for u in rest if u.unit_id in answers),
                       tuple(u.unit_id for u in rest if u.unit_id not in answers))


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
