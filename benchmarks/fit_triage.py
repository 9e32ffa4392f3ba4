"""Fit the learned priority on the kept ``bench_triage.py`` runs, and report it honestly.

Reads ``benchmarks/results/triage-<project>.json`` (``bench_triage.py`` keeps every unit's
features there) and reports, on changes of 10+ units and on all changes:

* **today** -- the hand-set priority alone (what the runs ranked, no learned part);
* **leave one project out** -- for each development project, weights fitted on the *other*
  development projects, scored on it; pooled;
* **newer cases, own fit** -- per project, weights fitted on its older 70 % of cases
  (``reviewtui eval --fit``'s time-ordered split) scored on its newer 30 %;
* **projects added later** -- five more projects (``FRESH``) cloned after the features, the
  fit and its settings were settled, scored with the shipped weights: never fitted on;
* **held-out projects** -- projects never looked at while the features were designed, scored
  with the weights fitted on all development projects (the ones shipped);
* **a C project added later** -- curl (``LATER``), the first C history, added in session 10,
  with the shipped weights and with its own fit.

    python benchmarks/fit_triage.py                    # the report
    python benchmarks/fit_triage.py --refit            # held-out rows with a refit, not the file
    python benchmarks/fit_triage.py --write            # and write that refit as the shipped one
    python benchmarks/fit_triage.py --markdown
    python benchmarks/fit_triage.py --refit --without novel_tokens   # an ablation

Run it with the project's virtualenv active.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from bench_triage import table
from reviewtui.app.fit_weights import REPOSITORY_TOKENS
from reviewtui.eval.fit import (
    L2,
    evaluate,
    fit_own,
    fit_weights,
    rescored,
    time_split,
    usable,
)
from reviewtui.eval.metrics import EvalMetrics, GroupMetrics
from reviewtui.eval.rank import CaseResult
from reviewtui.rules.triage_model import (
    ALL_FEATURES,
    TriageWeights,
    load_weights,
    write_weights,
)
from reviewtui.rules.weights_files import shipped_weights_path

RESULTS = Path(__file__).resolve().parent / "results"
HELD_OUT = ("gson", "sinatra")  # never looked at while designing the features
# added in session 8, after the features and the fit were settled: never fitted on or tuned to
FRESH = ("commander.js", "marshmallow", "rack", "starlette", "viper")
# added in session 10: the first C project (and a 39k-commit history), never fitted on
LATER = ("curl",)


def load(without: Sequence[str] = ()) -> dict[str, list[CaseResult]]:
    """The kept runs by project; ``without``: features whose values are set to 0 in every
    unit (the fit then cannot use them: an ablation, with every other part of the fit and
    the data the same)."""
    zeroed = {ALL_FEATURES.index(name) for name in without}
    projects = {p.stem.removeprefix("triage-"): [CaseResult.model_validate(c)
                                                 for c in json.loads(p.read_text())["cases"]]
                for p in sorted(RESULTS.glob("triage-*.json"))}
    if not zeroed:
        return projects
    return {name: [_without(case, zeroed) for case in cases] for name, cases in projects.items()}


def _without(case: CaseResult, zeroed: set[int]) -> CaseResult:
    if not case.samples:
        return case
    return case.model_copy(update={"samples": [s.model_copy(update={"features": [
        0.0 if i in zeroed else value for i, value in enumerate(s.features)]})
        for s in case.samples]})


def _row(name: str, group: GroupMetrics) -> list[str]:
    m = group.orders["reviewtui"]
    r = group.orders["random"]
    return [name, str(group.cases), f"{100 * m.recall[1]:.0f}%", f"{100 * m.recall[3]:.0f}%",
            f"{100 * m.recall[5]:.0f}%", f"{m.mrr:.2f}", f"{100 * m.effort:.0f}%",
            f"{100 * r.recall[3]:.0f}%", f"{r.mrr:.2f}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--refit", action="store_true",
                        help="score the held-out and later projects with weights fitted on all "
                             "development projects of these runs, not the shipped file")
    parser.add_argument("--l2", type=float, default=L2)
    parser.add_argument("--tokens", type=int, default=0,
                        help="the token model's vocabulary (0: no token model)")
    parser.add_argument("--l2-tokens", type=float, default=5.0)
    parser.add_argument("--own-l2", type=float, default=None,
                        help="the penalty towards the weights in use of a repository's own fit "
                             "(default: chosen per repository as `reviewtui eval --fit` does)")
    parser.add_argument("--without", action="append", default=[], choices=ALL_FEATURES,
                        metavar="FEATURE",
                        help="leave this feature out (its value 0 in every unit); repeatable; "
                             "with --refit, an ablation")
    args = parser.parse_args()
    projects = load(args.without)
    dev = {n: c for n, c in projects.items()
           if n not in HELD_OUT and n not in FRESH and n not in LATER}
    held = {n: c for n, c in projects.items() if n in HELD_OUT}
    later = {n: c for n, c in projects.items() if n in LATER}
    fresh = {n: c for n, c in projects.items() if n in FRESH}
    zero = TriageWeights()

    def own_fit(train: list[CaseResult], prior: TriageWeights) -> TriageWeights:
        if args.own_l2 is not None:
            return fit_weights(train, l2=args.own_l2, tokens=REPOSITORY_TOKENS,
                               l2_tokens=args.l2_tokens, prior=prior)
        return fit_own(train, prior, tokens=REPOSITORY_TOKENS).weights
    rows: dict[str, list[tuple[str, EvalMetrics]]] = {}

    def add(label: str, metrics: EvalMetrics) -> None:
        rows.setdefault(label, []).append(("", metrics))

    dev_cases = [c for cases in dev.values() for c in usable(cases)]
    add("development projects, today", evaluate(dev_cases, zero))
    lopo: list[CaseResult] = []
    others_fit: dict[str, TriageWeights] = {}
    for name, cases in dev.items():
        others = [c for n, cs in dev.items() if n != name for c in cs]
        weights = fit_weights(others, l2=args.l2, tokens=args.tokens, l2_tokens=args.l2_tokens)
        others_fit[name] = weights
        lopo += [rescored(c, weights) for c in usable(cases)]
    from reviewtui.eval.metrics import eval_metrics

    add("development projects, leave one project out", eval_metrics(lopo))
    newer_today: list[CaseResult] = []
    newer_shipped: list[CaseResult] = []
    newer_own: list[CaseResult] = []
    for name, cases in dev.items():
        train, test = time_split(cases)
        if len(usable(train)) < 8:
            continue
        # what a user gets: weights fitted on other projects, then --fit on their own older
        # cases (tokens included), starting from those weights
        weights = own_fit(train, others_fit[name])
        newer_today += [rescored(c, zero) for c in test]
        newer_shipped += [rescored(c, others_fit[name]) for c in test]
        newer_own += [rescored(c, weights) for c in test]
    add("newer 30% of each project, today", eval_metrics(newer_today))
    add("newer 30% of each project, other projects' weights", eval_metrics(newer_shipped))
    add("newer 30% of each project, + own older 70% fit", eval_metrics(newer_own))
    refit = fit_weights([c for cs in dev.values() for c in cs], l2=args.l2,
                        tokens=args.tokens, l2_tokens=args.l2_tokens,
                        fitted_on="bug-introducing commits of " + ", ".join(sorted(dev)))
    # "shipped weights": the file the package ships, unless a refit on these runs is asked
    # for (--refit, or --write, which ships it)
    shipped = refit if args.refit or args.write else load_weights(None)[0]
    held_cases = [c for cs in held.values() for c in usable(cs)]
    if held_cases:
        add(f"held-out projects ({', '.join(sorted(held))}), today", evaluate(held_cases, zero))
        add(f"held-out projects ({', '.join(sorted(held))}), shipped weights",
            evaluate(held_cases, shipped))
        held_newer: list[CaseResult] = []
        held_own: list[CaseResult] = []
        for cases in held.values():
            train, test = time_split(cases)
            if len(usable(train)) < 8:
                continue
            own = own_fit(train, shipped)
            held_newer += [rescored(c, shipped) for c in test]
            held_own += [rescored(c, own) for c in test]
        add("held-out projects' newer 30%, shipped weights", eval_metrics(held_newer))
        add("held-out projects' newer 30%, + own older 70% fit", eval_metrics(held_own))
    fresh_cases = [c for cs in fresh.values() for c in usable(cs)]
    if fresh_cases:
        add("projects added later (5), today", evaluate(fresh_cases, zero))
        add("projects added later (5), shipped weights", evaluate(fresh_cases, shipped))
        fresh_newer: list[CaseResult] = []
        fresh_own: list[CaseResult] = []
        for name in fresh:
            train, test = time_split(fresh[name])
            if len(usable(train)) < 8:
                continue
            fresh_newer += [rescored(c, shipped) for c in test]
            fresh_own += [rescored(c, own_fit(train, shipped)) for c in test]
        add("projects added later, newer 30%, shipped weights", eval_metrics(fresh_newer))
        add("projects added later, newer 30%, + own older 70% fit", eval_metrics(fresh_own))
        if held_cases:
            add("every project's newer 30%, + own older 70% fit",
                eval_metrics(newer_own + held_own + fresh_own))
    later_own: list[CaseResult] = []
    for name, cases in later.items():
        add(f"{name} (C, added in session 10), today", evaluate(usable(cases), zero))
        add(f"{name} (C, added in session 10), shipped weights", evaluate(usable(cases), shipped))
        train, test = time_split(cases)
        if len(usable(train)) >= 8:
            add(f"{name}'s newer 30%, shipped weights",
                eval_metrics([rescored(c, shipped) for c in test]))
            own_later = [rescored(c, own_fit(train, shipped)) for c in test]
            later_own += own_later
            add(f"{name}'s newer 30%, + own older 70% fit", eval_metrics(own_later))
    if later_own and held_cases and fresh_cases:
        add("every project's newer 30%, curl's too, + own older 70% fit",
            eval_metrics(newer_own + held_own + fresh_own + later_own))
    per_project = [["project", "cases (10+ units)", "today R@1", "R@3", "MRR",
                    "learned R@1", "R@3", "MRR"]]
    for name, cases in projects.items():
        weights = others_fit[name] if name in dev else shipped
        before = evaluate(usable(cases), zero).large
        after = evaluate(usable(cases), weights).large
        a, b = before.orders["reviewtui"], after.orders["reviewtui"]
        per_project.append([name + ("" if name in dev else " (added later)" if name in fresh
                                    else " (added in session 10)" if name in later
                                    else " (held out)"), str(before.cases),
                            f"{100 * a.recall[1]:.0f}%", f"{100 * a.recall[3]:.0f}%",
                            f"{a.mrr:.2f}", f"{100 * b.recall[1]:.0f}%",
                            f"{100 * b.recall[3]:.0f}%", f"{b.mrr:.2f}"])
    header = ["", "cases", "R@1", "R@3", "R@5", "MRR", "effort", "random R@3", "random MRR"]
    for title, pick in (("changes of 10+ units", "large"), ("all changes", "all")):
        body = [_row(label, getattr(m, pick)) for label, ms in rows.items() for _, m in ms]
        print(("### " if args.markdown else "") + title + "\n")
        print(table([header, *body], args.markdown) + "\n")
    print(("### " if args.markdown else "") + "per project, changes of 10+ units (learned: "
          "weights fitted on the other development projects; held out: the shipped weights)\n")
    print(table(per_project, args.markdown) + "\n")
    print(("refitted" if shipped is refit else "shipped") + " weights: "
          + ", ".join(f"{k} {v:+.2f}" for k, v in shipped.weights.items()))
    if args.write:
        write_weights(shipped_weights_path(), refit, [
            "The learned part of the priority (src/reviewtui/rules/triage_model.py), fitted by",
            "benchmarks/fit_triage.py on the bench_triage.py runs. A repository's own fit",
            "(reviewtui eval --fit) goes to .reviewtui/triage_weights.toml and wins over this."])
        print(f"wrote {shipped_weights_path()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
