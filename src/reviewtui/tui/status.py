"""What the status line says: the counts, where the plan came from, and the last event.

Kept apart from the app (and free of Textual) so that every wording is a plain function with a
test: the status line must say what is true — which model is configured, that the plan is the
rules' until the planner runs, and what the planner did.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # named only: the workbench module imports this before any change loads
    from reviewtui.git.model import ChangeSet
    from reviewtui.llm.settings import LLMConfig
    from reviewtui.pipeline.planning import CarriedPlan
    from reviewtui.plan import FusedPlan
    from reviewtui.tui.triage import Row


def counts(rows: Sequence[Row]) -> str:
    """``120 units (8% high) · 90 kept · 3 reviewed``: the share of high or critical risk says
    whether "high" still singles something out."""
    kept = sum(1 for r in rows if not r.item.skip_review)
    reviewed = sum(1 for r in rows if r.status == "reviewed")
    high = sum(1 for r in rows if r.item.risk in ("high", "critical"))
    share = f" ({100 * high / len(rows):.0f}% high)" if rows else ""
    return f"{len(rows)} units{share} · {kept} kept · {reviewed} reviewed"


def plan_source(config: LLMConfig, plan: FusedPlan, *, planning: bool = False,
                now: datetime | None = None) -> str:
    """Where the levels come from: the rules (and why), the planner running, or its result
    (a plan kept from an earlier run says how old it is at ``now``)."""
    if not config.configured:
        return "rules' plan · no model configured (REVIEWTUI_MODEL)"
    model = config.model or "?"
    if planning:
        return f"planner running on {model}…"
    report = plan.planner
    if report.status in ("skipped", "not_configured"):
        return f"rules' plan · P asks {model}"
    by_llm = sum(1 for item in plan.plan if item.provenance.level == "llm")
    skipped = sum(1 for item in plan.plan if item.skip_review and item.provenance.skip == "llm")
    result = f"{by_llm} levels, {skipped} skips by the model"
    if report.status == "failed":
        why = report.endpoint_error or (report.messages[-1] if report.messages else "")
        return f"planner failed ({model}): {why}" if why else f"planner failed ({model})"
    if report.status == "partial":
        return (f"planner partial ({model}, {report.failed_batches}/{report.batches} batches "
                f"failed): {result}")
    disagreements = f" · {plan.conflicts} disagreements" if plan.conflicts else ""
    kept = ""
    if report.cached_at is not None:  # (the cache's module: only once a kept plan is shown)
        from reviewtui.plan.cache import age_text

        age = ((now or datetime.now(UTC)) - report.cached_at).total_seconds()
        kept = f" (kept plan, made {age_text(age)}; P asks again)"
    return f"planned by {model}{kept}: {result}{disagreements}"


def change_label(change: ChangeSet) -> str:
    """The change as the header names it: ``all: HEAD -> worktree``, ``base: main -> feature``."""
    return f"{change.mode}: {change.old_side.describe()} -> {change.new_side.describe()}"


def switched(now: ChangeSet, before: ChangeSet) -> str:
    """A refresh found another change (a commit, a checkout under ``--watch`` or ``r``): the
    workbench works on it and its session from now on."""
    return f"the change is now {change_label(now)} (from {change_label(before)})"


def earlier_plan(carried: CarriedPlan) -> str:
    """The planner answered for an earlier version of the change (a refresh landed while it
    ran): what its plan is on the units there are now."""
    details = []
    if carried.followed:
        count = len(carried.followed)
        details.append(f"{count} edited unit{'s' if count != 1 else ''} took the plan of "
                       f"the version it read")
    if carried.uncovered:
        count = len(carried.uncovered)
        details.append(f"{count} unit{'s' if count != 1 else ''} it did not cover "
                       + ("keeps the rules' level" if count == 1 else "keep the rules' levels"))
    return "the plan was made for an earlier version of the change" + (
        f" ({'; '.join(details)})" if details else "")
