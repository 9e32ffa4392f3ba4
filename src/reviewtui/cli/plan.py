"""``reviewtui plan`` and ``reviewtui bundle``: the fused plan and the context bundles, headless.

Both run the same pipeline as the TUI: load the change, score it, plan it (the LLM planner when a
model is configured, unless ``--no-llm``), apply the person's overrides, and for ``bundle``
build the context bundles of the kept units that fit the review budget, by priority, writing
each as it is built, then the allocation (who was deferred, and why). What the planner did (and
why it did not) goes to stderr so that ``--json`` on stdout stays machine-readable.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

from reviewtui.cli.selectors import selector_from_args
from reviewtui.cli.table import table_lines
from reviewtui.errors import UsageError
from reviewtui.plan import FusedPlan, OverrideSet, PlannerReport, load_overrides
from reviewtui.plan.overrides import override_problems

if TYPE_CHECKING:
    from reviewtui.context.render import BundleSource
    from reviewtui.models import BudgetAccount


def run_plan(args: argparse.Namespace) -> int:
    from reviewtui.cli.intent import intent_line, loaded_with_intent
    from reviewtui.cli.progress import load_change

    overrides = overrides_from_args(args)
    loaded = load_change(args.path, selector_from_args(args), use_cache=not args.no_cache)
    loaded = loaded_with_intent(loaded, args)
    plan = loaded.plan(use_llm=not args.no_llm, overrides=overrides, fresh=args.replan)
    print_planner_report(plan.planner, plan.conflicts, sys.stderr)
    print_override_problems(overrides, plan, sys.stderr)
    print_plan(plan, args.json, sys.stdout, intent=intent_line(loaded))
    return 0


def run_bundle(args: argparse.Namespace) -> int:
    from reviewtui.cli.intent import loaded_with_intent
    from reviewtui.cli.progress import load_change
    from reviewtui.config import ContextSettings, minimum

    for option, key in (("budget", "unit_budget"), ("review_budget", "review_budget")):
        value, least = getattr(args, option), minimum(ContextSettings, key)
        if value is not None and least is not None and value < least:  # as the config key
            raise UsageError(f"--{option.replace('_', '-')} must be at least {least:,} tokens "
                             f"(as context.{key})")
    overrides = overrides_from_args(args)
    loaded = load_change(args.path, selector_from_args(args), use_cache=not args.no_cache)
    loaded = loaded_with_intent(loaded, args)
    plan = loaded.plan(use_llm=not args.no_llm, overrides=overrides, fresh=args.replan)
    print_planner_report(plan.planner, plan.conflicts, sys.stderr)
    print_override_problems(overrides, plan, sys.stderr)
    units = selected(plan, args.unit)
    stream = loaded.bundle_stream(plan, units, unit_budget=args.budget,
                                  review_budget=args.review_budget)
    fmt = ("json" if args.json else "jsonl" if args.jsonl else
           "markdown" if args.markdown else "table")
    print_bundles(stream, fmt, sys.stdout)
    return 0


def overrides_from_args(args: argparse.Namespace) -> OverrideSet | None:
    return load_overrides(args.overrides) if args.overrides else None


def print_override_problems(overrides: OverrideSet | None, plan: FusedPlan,
                            err: TextIO) -> None:
    """A line on stderr for every ``--overrides`` key that names no unit, several, or a unit
    another key names too."""
    if overrides is None:
        return
    for problem in override_problems(overrides, [item.unit_id for item in plan.plan]):
        err.write(f"overrides: {problem}\n")
    err.flush()


def print_planner_report(report: PlannerReport, conflicts: int, err: TextIO) -> None:
    if report.status in ("ok", "partial", "failed"):
        tokens = f"{report.prompt_tokens} prompt + {report.completion_tokens} completion tokens"
        if report.cached_at is not None:
            tokens = (f"kept plan made {kept_age(report.cached_at)}, no request sent; "
                      "--replan asks the model again")
        err.write(f"planner: {report.status} ({report.model}, {report.batches} batch"
                  f"{'es' if report.batches != 1 else ''}, {tokens})\n")
    for message in report.messages:
        err.write(f"planner: {message}\n")
    if conflicts:
        # (kept once in the evidence log: a run that repeats them writes nothing new)
        err.write(f"planner: {conflicts} rule/LLM disagreements, in the evidence log for "
                  "learning\n")
    err.flush()


def kept_age(made: datetime, now: datetime | None = None) -> str:
    """How long ago a kept plan was made: ``5 min ago``."""
    from reviewtui.plan.cache import age_text

    return age_text(((now or datetime.now(UTC)) - made).total_seconds())


def _level(value: object) -> str:
    return str(getattr(value, "value", value)) if value is not None else "-"


def plan_table(plan: FusedPlan, intent: str = "") -> str:
    """The plan as a table; ``intent`` (the stated purpose's line) heads it. A unit the
    planner found unrelated to the stated purpose says so in its reason."""
    head = f"{intent}\n\n" if intent else ""
    if not plan.plan:
        return head + "no changes to review\n"
    rows = [("UNIT", "LOCATION", "RISK", "RULE", "CONF", "LLM", "FINAL", "BY", "SKIP",
             "REQUESTS", "REASON")]
    for item in plan.plan:
        requests = ",".join(r.type + (f"({d})" if (d := getattr(r, "symbol", None)
                                                      or getattr(r, "keyword", None)) else "")
                            for r in item.extra_requests)
        rows.append((
            item.unit_id, item.location, item.risk or "-", _level(item.rule_context_level),
            f"{item.rule_confidence:.2f}" if item.rule_confidence is not None else "-",
            _level(item.llm_context_level), _level(item.final_context_level),
            item.provenance.level, "yes" if item.skip_review else "no", requests or "-",
            item.reason + (f" [unrelated: {item.unrelated}]" if item.unrelated else ""),
        ))
    lines = table_lines(rows)
    kept = sum(1 for item in plan.plan if not item.skip_review)
    lines.append("")
    lines.append(f"{kept} of {len(plan.plan)} units kept for review")
    unrelated = sum(1 for item in plan.plan if item.unrelated)
    if unrelated:
        lines.append(f"{unrelated} units unrelated to the stated purpose")
    return head + "\n".join(lines) + "\n"


def print_plan(plan: FusedPlan, as_json: bool, out: TextIO, *, intent: str = "") -> None:
    if as_json:
        out.write(json.dumps(plan.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n")
    else:
        out.write(plan_table(plan, intent))
    out.flush()


def selected(plan: FusedPlan, unit_ids: Sequence[str]) -> list[str]:
    """Unit ids to bundle: the named ones (prefixes allowed), else every kept unit."""
    if not unit_ids:
        return [item.unit_id for item in plan.plan if not item.skip_review]
    chosen: list[str] = []
    for wanted in unit_ids:
        matches = [i.unit_id for i in plan.plan if i.unit_id == wanted] or [
            i.unit_id for i in plan.plan if i.unit_id.startswith(wanted)]
        if len(matches) != 1:
            problem = "no unit" if not matches else f"{len(matches)} units"
            raise UsageError(f"{problem} matching {wanted!r} in this change",
                             hint="run 'reviewtui index' to list the unit ids")
        if matches[0] not in chosen:
            chosen.append(matches[0])
    return chosen


def _names(account: BudgetAccount, status: str) -> str:
    return ",".join(p.name for p in account.pieces if p.status == status) or "-"


def bundle_table(source: BundleSource) -> str:
    """One row per bundle as built (only the row is kept), the allocation, the deferred units."""
    from reviewtui.context.render import allocation_summary

    rows = [("UNIT", "LOCATION", "LEVEL", "REQUESTS", "TOKENS", "CLIPPED", "DROPPED",
             "NOT FETCHED")]
    for bundle in source:
        account = bundle.budget
        rows.append((bundle.unit_id, bundle.meta.location, bundle.final_context_level.value,
                     ",".join(r.type for r in bundle.extra_requests) or "-",
                     f"{account.used}/{account.limit}", _names(account, "clipped"),
                     _names(account, "dropped"), _names(account, "not_fetched")))
    allocation = source.allocation
    if len(rows) == 1 and not allocation.deferred:
        return "no units to bundle (every unit is skipped; name one with --unit)\n"
    lines = table_lines(rows) if len(rows) > 1 else ["no unit fits the review budget"]
    if allocation.deferred:
        deferred = [("DEFERRED", "LOCATION", "RISK", "LEVEL", "NEEDS", "REASON")]
        deferred += [(d.unit_id, d.location, d.risk, d.final_context_level.value,
                      f"{'' if d.measured else '~'}{d.tokens}", d.reason)
                     for d in allocation.deferred]
        lines += ["", *table_lines(deferred)]
    return "\n".join(lines) + "\n\n" + allocation_summary(allocation)


def print_bundles(source: BundleSource, fmt: str, out: TextIO) -> None:
    """Bundles as they are built: ``json``, ``jsonl``, ``markdown`` or a ``table``."""
    from reviewtui.context.render import write_bundles

    if fmt == "table":
        out.write(bundle_table(source))
        out.flush()
    else:
        write_bundles(source, fmt, out)
