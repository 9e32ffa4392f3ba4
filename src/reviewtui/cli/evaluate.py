"""``reviewtui eval``: the triage measured on the repository's bug history, as a table,
Markdown or JSON, with a progress line on stderr while it runs (only on a terminal).

With ``--review`` the review agent also runs on each case (``cli.eval_review``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, TextIO

from reviewtui.errors import UsageError

if TYPE_CHECKING:
    from reviewtui.app.eval_review import EvalReviewReport
    from reviewtui.app.evaluate import EvalProgress, EvalReport
    from reviewtui.app.fit_weights import FitReport
    from reviewtui.eval.metrics import GroupMetrics

_ORDER_NAMES = {"reviewtui": "reviewtui priority", "file": "file order",
                "largest": "largest first", "random": "random (expected)"}


class _ProgressLine:
    """``eval: ranking [#####.....] 12/40`` through the headless progress line
    (``cli.progress``): rewritten in place on a terminal, silent on a pipe and for the first
    second (a warm run is done before anyone could read it)."""

    def __init__(self, err: TextIO) -> None:
        from reviewtui.cli.progress import TerminalProgress

        self._line = TerminalProgress(err, interval=0.0)

    def __call__(self, progress: EvalProgress) -> None:
        if not self._line.due():
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
        self._line.show(text)

    def close(self) -> None:
        self._line.close()


def run_eval_command(args: argparse.Namespace, out: TextIO, err: TextIO,
                     stdin: TextIO | None = None) -> int:
    from reviewtui.app.evaluate import EvalRequest, run_eval
    from reviewtui.cli import eval_review

    if args.max_cases is not None and args.max_cases < 1:
        raise UsageError("--max-cases must be 1 or more")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be 1 or more")
    if args.samples and not args.json:  # said before the run, not dropped after it
        raise UsageError("--samples adds every unit's features to the JSON: give --json too")
    if args.accept_weights:
        from reviewtui.app.fit_weights import accept_weights

        written = accept_weights(args.path)
        out.write(f"accepted: {written} (the priority order now uses it; delete it to revert "
                  "to the shipped weights)\n")
        return 0
    modes = eval_review.check_review(args)  # no model for --review: said before mining
    line = _ProgressLine(err)
    review: EvalReviewReport | None = None
    try:
        report = run_eval(EvalRequest(args.path, since=args.since, max_cases=args.max_cases,
                                      jobs=args.jobs, use_cache=not args.no_cache), line)
        if modes:
            review = eval_review.run_reviews(args, modes, report, line, line.close, err,
                                             stdin if stdin is not None else sys.stdin)
    finally:
        line.close()
    fit = None
    if args.fit:
        from reviewtui.app.fit_weights import fit_repository

        fit = fit_repository(report)
    if args.json:
        document = report_json(report, samples=args.samples)
        if fit is not None:
            document["fit"] = fit_json(fit)
        if review is not None:
            document["review"] = eval_review.review_json(review)
        out.write(json.dumps(document, indent=2) + "\n")
    else:
        out.write(render_report(report, markdown=args.markdown))
        if review is not None:
            out.write(eval_review.render_review(review, markdown=args.markdown))
        if fit is not None:
            out.write(render_fit(fit, markdown=args.markdown))
    out.flush()
    return 0


def fit_json(fit: FitReport) -> dict[str, object]:
    return {"proposal": str(fit.proposal) if fit.proposed else None,
            "proposed": fit.proposed, "trained_on": fit.trained_on,
            "evaluated_on": fit.evaluated_on, "weights": fit.weights.weights,
            "in_use": str(fit.in_use), "before": fit.before.model_dump(mode="json"),
            "after": fit.after.model_dump(mode="json"), "l2": fit.l2,
            "kept_weights_in_use": fit.l2 is None, "validated_on": fit.validated_on}


def render_fit(fit: FitReport, *, markdown: bool = False) -> str:
    window = time.strftime("%Y-%m-%d", time.gmtime(fit.window_start))
    lines = ["", ("## " if markdown else "") + f"fit: {fit.trained_on} older cases, reported "
             f"on the {fit.evaluated_on} cases since {window}", ""]
    header = ["weights", "cases", "R@1", "R@3", "R@5", "MRR", "effort"]
    rows = [header]
    for label, metrics in (("in use", fit.before), ("fitted", fit.after)):
        for group, title in ((metrics.all, ""), (metrics.large, f", {metrics.large_units}+ units")):
            m = group.orders["reviewtui"]
            rows.append([label + title, str(group.cases), _pct(m.recall[1]), _pct(m.recall[3]),
                         _pct(m.recall[5]), f"{m.mrr:.2f}", _pct(m.effort)])
    lines += _table(rows, markdown)
    if fit.l2 is None:
        lines += ["", f"the weights in use ranked the newest {fit.validated_on} training cases "
                  "better than any fit on the older ones: the fit keeps them"]
    elif fit.validated_on:
        lines += ["", f"the fit moves from the weights in use as far as the newest "
                  f"{fit.validated_on} training cases supported (penalty {fit.l2:g})"]
    lines += ["", f"in use: {fit.in_use}"]
    if fit.proposed:
        lines += [f"proposed: {fit.proposal}", "accept with 'reviewtui eval --accept-weights'"]
    else:
        used, fitted = fit.mrr
        lines += [f"nothing proposed: on the {fit.evaluated_on} newer cases the fit ranks no "
                  f"better than the weights in use (MRR {fitted:.2f} against {used:.2f}); "
                  "keep them"]
    return "\n".join(lines) + "\n"


def report_json(report: EvalReport, *, samples: bool = False) -> dict[str, object]:
    return {
        "repository": str(report.root),
        "commits_read": report.commits,
        "fixes_examined": report.fixes,
        "statuses": report.statuses,
        "reused_results": report.reused,
        "history_cut": report.history_cut,
        "metrics": report.metrics.model_dump(mode="json"),
        "cases": [r.model_dump(mode="json", exclude=None if samples else {"samples"})
                  for r in report.results],
    }


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


def render_report(report: EvalReport, *, markdown: bool = False) -> str:
    metrics = report.metrics
    skipped = ", ".join(f"{count} {status.replace('_', ' ')}"
                        for status, count in sorted(report.statuses.items()) if status != "ok")
    lines = [("# " if markdown else "") + f"eval: {report.root}", "",
             f"{len(report.results)} bug-introducing commits from {report.fixes} fixes in "
             f"{report.commits} commits; {metrics.all.cases} ranked"
             + (f" ({skipped})" if skipped else "")
             + (f"; {report.reused} results reused" if report.reused else "")
             + ("; the history was read up to an object git cannot read" if report.history_cut
                else ""), ""]
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
    return "\n".join(lines) + "\n"
