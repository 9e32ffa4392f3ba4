"""``reviewtui eval --review``: the estimate, the confirmation, the review section.

The estimate goes to stderr before anything is sent; above ``[eval] review_confirm_tokens`` the
person confirms on the terminal (or passes ``--yes``), and a pipe without ``--yes`` is refused
with one line. The review section follows the ranking's report: each context mode's summary
side by side, then each case's outcome.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, TextIO

from reviewtui.cli.evaluate import _pct, _table
from reviewtui.errors import UsageError

if TYPE_CHECKING:
    from reviewtui.app.eval_review import EvalReviewReport, ReviewEstimate
    from reviewtui.app.evaluate import EvalProgress, EvalReport
    from reviewtui.eval.review import ContextMode, ReviewOutcome


def review_modes(args: argparse.Namespace) -> tuple[ContextMode, ...]:
    if not args.review:
        given = [name for name, value in (("--context", args.context), ("--yes", args.yes),
                                          ("--max-tool-rounds", args.max_tool_rounds))
                 if value not in (None, False)]
        if given:
            raise UsageError(f"{given[0]} only applies with --review")
        return ()
    if args.max_tool_rounds is not None and args.max_tool_rounds < 0:
        raise UsageError("--max-tool-rounds must be 0 or more")
    if args.context in (None, "both"):
        return ("planned", "diff_only")
    return ("planned",) if args.context == "planned" else ("diff_only",)


def check_review(args: argparse.Namespace) -> tuple[ContextMode, ...]:
    """The context modes ``--review`` asks for (none without it); ``LLMNotConfiguredError``
    when a review is asked for and no model is configured."""
    modes = review_modes(args)
    if modes:
        from reviewtui.app.eval_review import review_model

        review_model(args.path)
    return modes


def run_reviews(args: argparse.Namespace, modes: tuple[ContextMode, ...], report: EvalReport,
                progress: Callable[[EvalProgress], None], clear: Callable[[], None],
                err: TextIO, stdin: TextIO) -> EvalReviewReport:
    """Review ``report``'s cases; ``clear`` wipes the progress line before the estimate."""
    from reviewtui.app.eval_review import EvalReviewRequest, run_eval_review

    def confirm(estimate: ReviewEstimate) -> bool:
        clear()
        return confirm_estimate(estimate, yes=args.yes, stdin=stdin, err=err)

    request = (EvalReviewRequest(modes) if args.max_tool_rounds is None
               else EvalReviewRequest(modes, args.max_tool_rounds))
    return run_eval_review(report, request, confirm, progress)


def _thousands(value: int) -> str:
    return f"{value:,}"


def estimate_line(estimate: ReviewEstimate) -> str:
    if not estimate.runs:
        return (f"eval: review: all {estimate.reused} reviews reused from an earlier run; "
                f"nothing to send to {estimate.model}")
    cost = f" (~{estimate.cost:.2f} at [eval] prices)" if estimate.cost is not None else ""
    return (f"eval: review estimate for {estimate.model}: {estimate.runs} reviews of "
            f"{estimate.cases} cases"
            + (f" ({estimate.reused} reused)" if estimate.reused else "")
            + f", {estimate.requests} requests before tool calls, "
              f"{_thousands(estimate.prompt_tokens)} prompt + up to "
              f"{_thousands(estimate.output_tokens)} output tokens{cost}")


def confirm_estimate(estimate: ReviewEstimate, *, yes: bool, stdin: TextIO,
                     err: TextIO) -> bool:
    """Show the estimate; ask on a terminal when it is over the threshold; refuse on a pipe
    (``UsageError``) unless ``yes``."""
    err.write(estimate_line(estimate) + "\n")
    err.flush()
    if not estimate.needs_confirmation or yes:
        return True
    over = (f"about {_thousands(estimate.tokens)} tokens, over [eval] review_confirm_tokens "
            f"({_thousands(estimate.threshold)})")
    if not stdin.isatty():
        raise UsageError(f"eval --review would send {over}, and there is no terminal to "
                         "confirm it on", hint="pass --yes to send them, or review fewer "
                                               "cases with --max-cases or --since")
    err.write(f"eval: send {over}, to {estimate.model}? [y/N] ")
    err.flush()
    return stdin.readline().strip().lower() in ("y", "yes")


def review_json(review: EvalReviewReport) -> dict[str, object]:
    return {
        "model": review.model,
        "modes": list(review.modes),
        "estimate": asdict(review.estimate),
        "cost": review.cost,
        "summaries": {m: s.model_dump(mode="json") for m, s in review.summaries.items()},
        "cases": [{"bug": bug, **{m: o.model_dump(mode="json") for m, o in by_mode.items()}}
                  for bug, by_mode in review.outcomes.items()],
    }


def _heading(title: str, markdown: bool) -> list[str]:
    return [("## " if markdown else "") + title, *([""] if markdown else [])]


def _outcome_cell(outcome: ReviewOutcome | None) -> str:
    if outcome is None:
        return "-"
    if outcome.status != "ok":
        return "failed: " + (outcome.reason or "")[:50]
    found = len(outcome.findings)
    verdict = "detected" if outcome.detected else "missed" if outcome.holder_reviewed else (
        "bug unit skipped by the plan" if outcome.holder_skipped
        else "bug unit over the review budget")
    return f"{verdict}, {found} finding{'s' if found != 1 else ''}"


def render_review(review: EvalReviewReport, *, markdown: bool = False) -> str:
    """The review section, to follow the report: each context mode's summary side by side,
    then each case's outcome."""
    cases = max((s.cases for s in review.summaries.values()), default=0)
    lines = _heading(f"review by {review.model} ({cases} cases)", markdown)
    rows = [["context", "detected", "bug unit sent", "findings/case", "other/case", "requests",
             "prompt tokens", "completion tokens", "s/case"]]
    estimated = False
    for mode, summary in review.summaries.items():
        estimated = estimated or summary.tokens_estimated
        rows.append([mode, _pct(summary.detected), _pct(summary.holder_reviewed),
                     f"{summary.findings_per_case:.1f}", f"{summary.other_per_case:.1f}",
                     str(summary.requests), _thousands(summary.prompt_tokens),
                     _thousands(summary.completion_tokens), f"{summary.seconds_per_case:.1f}"]
                    + ([f"{summary.failed} failed"] if summary.failed else []))
    width = max(len(row) for row in rows)
    lines += _table([row + [""] * (width - len(row)) for row in rows], markdown)
    notes = []
    if review.cost is not None:
        notes.append(f"cost ~{review.cost:.2f} at [eval] prices")
    if estimated:
        notes.append("some token counts are local estimates (the server gave no usage)")
    if notes:
        lines += ["", "; ".join(notes)]
    lines.append("")
    lines += _heading("review cases", markdown)
    rows = [["bug", *review.modes]]
    for bug, by_mode in review.outcomes.items():
        rows.append([bug[:12], *(_outcome_cell(by_mode.get(m)) for m in review.modes)])
    lines += _table(rows, markdown)
    from reviewtui.eval.review import NEAR

    lines += ["", f"detected: a finding within {NEAR} lines of a blamed line; other: the "
                  "rest; bug unit sent: the unit holding the bug was reviewed at all (not "
                  "skipped by the plan, not over the review budget)"]
    return "\n" + "\n".join(lines) + "\n"


