"""``reviewtui eval``: the triage measured on the repository's bug history, as a table,
Markdown or JSON, with a progress line on stderr while it runs (only on a terminal).

With ``--review`` the review agent runs on each case: the estimate goes to stderr first, and
above ``[eval] review_confirm_tokens`` the person confirms on the terminal (or passes
``--yes``); a pipe without ``--yes`` is refused before anything is sent.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from typing import TYPE_CHECKING, TextIO

from reviewtui.errors import UsageError

if TYPE_CHECKING:
    from reviewtui.app.eval_review import EvalReviewReport, ReviewEstimate
    from reviewtui.app.evaluate import EvalProgress, EvalReport
    from reviewtui.eval.metrics import GroupMetrics
    from reviewtui.eval.review import ContextMode, ReviewOutcome

_ORDER_NAMES = {"reviewtui": "reviewtui priority", "file": "file order",
                "largest": "largest first", "random": "random (expected)"}


class _ProgressLine:
    """``eval: ranking [#####.....] 12/40`` rewritten in place on a terminal; silent on a pipe
    and for the first second (a warm run is done before anyone could read it)."""

    def __init__(self, err: TextIO) -> None:
        self._err = err
        self._on = err.isatty()
        self._started = time.monotonic()
        self._shown = False

    def __call__(self, progress: EvalProgress) -> None:
        if not self._on or time.monotonic() - self._started < 1.0:
            return
        if progress.phase == "mine":
            text = f"eval: mining history: {progress.detail}, {progress.done} cases"
        else:
            total = progress.total or 1
            filled = int(20 * progress.done / total)
            verb = {"rank": "ranking", "prepare": "preparing reviews",
                    "review": "reviewing"}.get(progress.phase, progress.phase)
            text = (f"eval: {verb} [{'#' * filled}{'.' * (20 - filled)}] "
                    f"{progress.done}/{total} {progress.detail}").rstrip()
        self._err.write("\r\x1b[K" + text)
        self._err.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            self._err.write("\r\x1b[K")
            self._err.flush()


def _review_modes(args: argparse.Namespace) -> tuple[ContextMode, ...]:
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


def run_eval_command(args: argparse.Namespace, out: TextIO, err: TextIO,
                     stdin: TextIO | None = None) -> int:
    from reviewtui.app.evaluate import EvalRequest, run_eval

    if args.max_cases is not None and args.max_cases < 1:
        raise UsageError("--max-cases must be 1 or more")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be 1 or more")
    modes = _review_modes(args)
    if modes:
        from reviewtui.app.eval_review import review_model

        review_model(args.path)  # no model: say so before mining anything
    line = _ProgressLine(err)
    review: EvalReviewReport | None = None
    try:
        report = run_eval(EvalRequest(args.path, since=args.since, max_cases=args.max_cases,
                                      jobs=args.jobs, use_cache=not args.no_cache), line)
        if modes:
            from reviewtui.app.eval_review import EvalReviewRequest, run_eval_review

            def confirm(estimate: ReviewEstimate) -> bool:
                line.close()
                return confirm_estimate(estimate, yes=args.yes,
                                        stdin=stdin if stdin is not None else sys.stdin,
                                        err=err)

            request = (EvalReviewRequest(modes) if args.max_tool_rounds is None
                       else EvalReviewRequest(modes, args.max_tool_rounds))
            review = run_eval_review(report, request, confirm, line)
    finally:
        line.close()
    if args.json:
        out.write(json.dumps(report_json(report, review), indent=2) + "\n")
    else:
        out.write(render_report(report, review, markdown=args.markdown))
    out.flush()
    return 0


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


def report_json(report: EvalReport, review: EvalReviewReport | None = None
                ) -> dict[str, object]:
    data: dict[str, object] = {
        "repository": str(report.root),
        "commits_read": report.commits,
        "fixes_examined": report.fixes,
        "statuses": report.statuses,
        "reused_results": report.reused,
        "metrics": report.metrics.model_dump(mode="json"),
        "cases": [r.model_dump(mode="json") for r in report.results],
    }
    if review is not None:
        data["review"] = {
            "model": review.model,
            "modes": list(review.modes),
            "estimate": asdict(review.estimate),
            "cost": review.cost,
            "summaries": {m: s.model_dump(mode="json") for m, s in review.summaries.items()},
            "cases": [{"bug": bug, **{m: o.model_dump(mode="json") for m, o in by_mode.items()}}
                      for bug, by_mode in review.outcomes.items()],
        }
    return data


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"


def _metric_rows(group: GroupMetrics) -> list[list[str]]:
    return [[_ORDER_NAMES[name], _pct(m.recall[1]), _pct(m.recall[3]), _pct(m.recall[5]),
             f"{m.mrr:.2f}", _pct(m.effort)] for name, m in group.orders.items()]


def _table(rows: list[list[str]], markdown: bool) -> list[str]:
    if markdown:
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
        return lines + ["| " + " | ".join(row) + " |" for row in rows[1:]]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            for row in rows]


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


def render_review(review: EvalReviewReport, *, markdown: bool = False) -> list[str]:
    """The review section: each context mode's summary, then each case's outcome."""
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
    return [*lines, ""]


def render_report(report: EvalReport, review: EvalReviewReport | None = None, *,
                  markdown: bool = False) -> str:
    metrics = report.metrics
    skipped = ", ".join(f"{count} {status.replace('_', ' ')}"
                        for status, count in sorted(report.statuses.items()) if status != "ok")
    lines = [("# " if markdown else "") + f"eval: {report.root}", "",
             f"{len(report.results)} bug-introducing commits from {report.fixes} fixes in "
             f"{report.commits} commits; {metrics.all.cases} ranked"
             + (f" ({skipped})" if skipped else "")
             + (f"; {report.reused} results reused" if report.reused else ""), ""]
    header = ["order", "R@1", "R@3", "R@5", "MRR", "effort"]
    for title, group in ((f"all changes ({metrics.all.cases} cases)", metrics.all),
                         (f"changes of {metrics.large_units}+ units ({metrics.large.cases} "
                          f"cases)", metrics.large)):
        lines.append(("## " if markdown else "") + title)
        if markdown:
            lines.append("")
        lines += _table([header, *_metric_rows(group)], markdown) if group.cases else [
            "no cases"]
        lines.append("")
    lines.append(("## " if markdown else "") + "cases")
    if markdown:
        lines.append("")
    rows = [["bug", "units", "rank", "file", "largest", "held by", "bug commit"]]
    for result in report.results:
        ranks = result.rankings
        held = result.holders[0].location if result.holders else (result.reason or "-")
        rows.append([result.case.case_id, str(result.units),
                     *(str(ranks[o].rank) if o in ranks else "-"
                       for o in ("reviewtui", "file", "largest")),
                     held, result.case.subject[:60]])
    lines += _table(rows, markdown)
    lines.append("")
    lines.append("R@k: bug-holding unit among the first k; MRR: mean 1/rank; effort: share of "
                 "changed lines read before it (lower is better)")
    if review is not None:
        lines += ["", *render_review(review, markdown=markdown)]
        while lines and not lines[-1]:
            lines.pop()
    return "\n".join(lines) + "\n"
