"""Time ``reviewtui bundle`` on the large real diff, with the default settings a user gets.

Runs ``reviewtui bundle --no-llm --json --range old..new REPO`` (rules-only plan, the default
``[context]`` budgets: 6,000 tokens per unit, 120,000 for the review) and ``git -C REPO diff
old..new`` in turn, ``--runs`` times each after one warm-up (which fills the per-file cache, as
any second run on a change), and reports per pair: wall time, peak memory (RSS of the child, from
``wait4``) and the ratio of the two times; medians, min and max. Then, from the warm-up's JSON
(a ``BundleSet``), the allocation per risk class: units included (complete or not), their
tokens, and units deferred with the tokens they would need; and for the included bundles the
pieces clipped, dropped or not fetched.

Usage::

    python benchmarks/make_large_diff.py          # once
    python benchmarks/bench_bundle.py [--runs 7] [-- EXTRA BUNDLE ARGS]

Extra arguments after ``--`` go to ``reviewtui bundle`` (e.g. ``--review-budget 100000000``
builds every unit's bundle). Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from make_large_diff import DEFAULT_REPO

RISKS = ("critical", "high", "medium", "low", "unknown")


def run(command: list[str], out: Path | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one run of ``command``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with Path(out or os.devnull).open("wb") as sink:
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} exited with {proc.returncode}")
    return seconds, usage.ru_maxrss / 1024


def allocation_table(data: dict[str, object]) -> list[str]:
    allocation = data["allocation"]
    assert isinstance(allocation, dict)
    bundles = data["bundles"]
    assert isinstance(bundles, list)
    risk_of = {u["unit_id"]: u["risk"] for u in allocation["included"]}
    pieces: dict[str, Counter[str]] = {risk: Counter() for risk in RISKS}
    for bundle in bundles:
        for piece in bundle["budget"]["pieces"]:
            if piece["status"] in ("clipped", "dropped", "not_fetched"):
                kind = piece["name"].split("[")[0].split(" ")[0]
                pieces[risk_of[bundle["unit_id"]]][f"{kind} {piece['status']}"] += 1
    rows = ["| risk | included (complete) | tokens | deferred | tokens they would need |"
            " pieces clipped / dropped / not fetched |", "|---|---:|---:|---:|---:|---|"]
    for r in allocation["by_risk"]:
        left_out = ", ".join(f"{n} {what}" for what, n in sorted(pieces[r["risk"]].items()))
        rows.append(f"| {r['risk']} | {r['included_units']:,} ({r['complete_units']:,}) | "
                    f"{r['included_tokens']:,} | {r['deferred_units']:,} | "
                    f"~{r['deferred_tokens']:,} | {left_out or 'none'} |")
    rows.append(f"\n{len(bundles):,} bundles, {allocation['used']:,} of "
                f"{allocation['review_budget']:,} tokens ({allocation['counter']}); "
                f"{len(allocation['deferred']):,} units deferred.")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=str(DEFAULT_REPO))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--cmd", default="reviewtui", help="command prefix of the tool")
    parser.add_argument("extra", nargs="*", help="arguments for reviewtui bundle (after --)")
    args = parser.parse_args()
    repo = Path(args.repo)
    if not (repo / ".git").exists():
        raise SystemExit(f"{repo} is missing: run benchmarks/make_large_diff.py first")
    tool = [*shlex.split(args.cmd), "bundle", "--no-llm", "--json", "--range", "old..new",
            *args.extra, str(repo)]
    git = ["git", "-C", str(repo), "diff", "old..new"]
    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp) / "bundles.json"
        run(tool, output)  # warm-up: fills the per-file cache; its output is the table below
        data = json.loads(output.read_text(encoding="utf-8"))
        run(git)
        pairs = []
        for _ in range(args.runs):
            pairs.append((run(tool), run(git)))
    times = [t for (t, _), _ in pairs]
    peaks = [m for (_, m), _ in pairs]
    ratios = [t / g for (t, _), (g, _) in pairs]
    git_peak = statistics.median(m for _, (_, m) in pairs)

    def spread(values: list[float], unit: str, digits: int = 2) -> str:
        return (f"median {statistics.median(values):.{digits}f}{unit} (min {min(values):.{digits}f}"
                f", max {max(values):.{digits}f})")

    print(f"command: {shlex.join(tool)}")
    print(f"time:    {spread(times, ' s')}")
    print(f"memory:  {spread(peaks, ' MiB', 0)} peak RSS; git diff {git_peak:.0f} MiB")
    print(f"ratio:   {spread(ratios, 'x', 1)} the time of git diff, pair by pair "
          f"({len(pairs)} pairs)")
    print()
    print("\n".join(allocation_table(data)))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
