"""Does the priority order put the unit that held a real bug first? ``reviewtui eval`` on the
full histories of public projects.

For each clone given (full history, not shallow), this runs the real command,
``reviewtui eval --json --no-cache --max-cases N PATH`` (cold: nothing reused), times it, keeps
every case in ``benchmarks/results/triage-<name>.json`` and prints, per project and pooled over
all of them, recall@1/3/5, MRR and effort for reviewtui's priority beside file order, largest
first and the random expectation -- overall and on changes of 10+ units.

    python benchmarks/bench_triage.py ~/src/requests ~/src/gin ...      # a table
    python benchmarks/bench_triage.py --markdown --max-cases 60 CLONES   # for the README
    python benchmarks/bench_triage.py --from-results                     # re-report kept runs

Run it with the project's virtualenv active (it imports reviewtui to pool the metrics).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from reviewtui.eval.metrics import EvalMetrics, GroupMetrics, eval_metrics
from reviewtui.eval.rank import CaseResult

BENCH_DIR = Path(__file__).resolve().parent
RESULTS = BENCH_DIR / "results"
ORDERS = ("reviewtui", "file", "largest", "random")


def run_eval(clone: Path, max_cases: int, jobs: int | None) -> tuple[dict[str, object], float]:
    exe = shutil.which("reviewtui")
    command = [exe] if exe else [sys.executable, "-m", "reviewtui"]
    command += ["eval", "--json", "--samples", "--no-cache", "--max-cases", str(max_cases),
                str(clone)]
    if jobs:
        command += ["--jobs", str(jobs)]
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{clone}: reviewtui eval failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout), seconds


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _row(name: str, group: GroupMetrics, order: str) -> list[str]:
    m = group.orders[order]
    return [name, order, str(group.cases), _pct(m.recall[1]), _pct(m.recall[3]),
            _pct(m.recall[5]), f"{m.mrr:.2f}", _pct(m.effort)]


def table(rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        out = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
        return "\n".join(out + ["| " + " | ".join(r) + " |" for r in rows[1:]])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)


def report(per_project: dict[str, list[CaseResult]], timings: dict[str, tuple[float, int, int]],
           markdown: bool) -> str:
    header = ["project", "order", "cases", "R@1", "R@3", "R@5", "MRR", "effort"]
    parts = []
    pooled: list[CaseResult] = [r for results in per_project.values() for r in results]
    everything: dict[str, EvalMetrics] = {n: eval_metrics(r) for n, r in per_project.items()}
    everything["all projects"] = eval_metrics(pooled)
    for title, pick in (("changes of 10+ units", "large"), ("all changes", "all")):
        rows = [header]
        for name, metrics in everything.items():
            group = getattr(metrics, pick)
            if group.cases:
                rows += [_row(name, group, o) for o in ORDERS]
        parts.append(("### " if markdown else "") + title + "\n\n" + table(rows, markdown))
    if timings:
        rows = [["project", "commits read", "cases", "seconds (cold)"]]
        rows += [[n, str(c), str(k), f"{s:.1f}"] for n, (s, c, k) in timings.items()]
        parts.append(("### " if markdown else "") + "time\n\n" + table(rows, markdown))
    return "\n\n".join(parts) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("clones", nargs="*", type=Path)
    parser.add_argument("--max-cases", type=int, default=60)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--from-results", action="store_true",
                        help="report the runs kept in benchmarks/results/ without running")
    args = parser.parse_args()
    per_project: dict[str, list[CaseResult]] = {}
    timings: dict[str, tuple[float, int, int]] = {}
    RESULTS.mkdir(exist_ok=True)
    if args.from_results:
        for path in sorted(RESULTS.glob("triage-*.json")):
            data = json.loads(path.read_text())
            per_project[path.stem.removeprefix("triage-")] = [
                CaseResult.model_validate(c) for c in data["cases"]]
    for clone in args.clones:
        data, seconds = run_eval(clone.resolve(), args.max_cases, args.jobs)
        name = clone.resolve().name
        (RESULTS / f"triage-{name}.json").write_text(json.dumps(data))
        per_project[name] = [CaseResult.model_validate(c) for c in data["cases"]]
        timings[name] = (seconds, int(str(data["commits_read"])), len(per_project[name]))
        print(f"{name}: {len(per_project[name])} cases in {seconds:.1f} s", file=sys.stderr)
    print(report(per_project, timings, args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
