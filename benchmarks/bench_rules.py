"""Time the rule stage per unit on the large real diff (Django 5.0.6 -> 5.1).

Loads the change once through the real pipeline (``load_change``, range ``old..new``), then
evaluates every unit ``--runs`` times with ``RuleEngine.evaluate`` and reports the per-unit
median and p95 (of each unit's best run) in milliseconds, plus the whole stage's time and the
level/risk distribution. ``bench_index.py`` gives the end-to-end ratio to ``git diff``.

Usage::

    python benchmarks/make_large_diff.py          # once
    python benchmarks/bench_rules.py --runs 5
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from make_large_diff import DEFAULT_REPO
from reviewtui.analysis.run import rule_context
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=str(DEFAULT_REPO))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    loaded = load_change(args.repo, ChangeSelector(SelectorMode.RANGE, ref="old..new"))
    context = rule_context(loaded.change_set.files, loaded.reader)
    engine = loaded.rules
    best: list[float] = []
    for unit in loaded.units:
        times = []
        for _ in range(args.runs):
            start = time.perf_counter_ns()
            engine.evaluate(unit, context)
            times.append((time.perf_counter_ns() - start) / 1e6)
        best.append(min(times))
    start = time.perf_counter()
    suggestions = engine.evaluate_all(loaded.units, context)
    whole = time.perf_counter() - start
    ordered = sorted(best)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    print(f"units: {len(best)}")
    print(f"per unit: median {statistics.median(best):.3f} ms, p95 {p95:.3f} ms, "
          f"max {ordered[-1]:.3f} ms")
    print(f"whole rule stage: {whole:.3f} s")
    print("levels:", dict(Counter(s.context_level.value for s in suggestions.values())))
    print("risks:", dict(Counter(s.risk.value for s in suggestions.values())))


if __name__ == "__main__":
    main()
