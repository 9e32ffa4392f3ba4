"""Time the context bundles of every unit on the large real diff (Django 5.0.6 -> 5.1).

Every unit at ``function`` level with a ``search_callers`` request (call sites of the changed
definitions, via ``git grep`` plus the structural check), with no token budget in the way
(``--unit-budget``/``--review-budget`` large), against the full-file alternative: every unit's
whole file, counted with the same tiktoken encoding. Reports the time of the bundle stage, the
tokens per unit, and the ratio of the stage's time to ``git diff`` itself.

Usage::

    python benchmarks/make_large_diff.py          # once
    python benchmarks/bench_bundle.py [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from make_large_diff import DEFAULT_REPO
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.llm import token_counter
from reviewtui.models import ContextLevel, SymbolSearchRequest
from reviewtui.pipeline import load_change
from reviewtui.plan import FusedItem, FusedPlan, PlannerReport, Provenance

DIFF = ["git", "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff",
        "--no-textconv", "-M", "old..new"]


def _git_diff_seconds(repo: str, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(DIFF, cwd=repo, capture_output=True, check=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=str(DEFAULT_REPO))
    parser.add_argument("--limit", type=int, default=0, help="only the first N units")
    args = parser.parse_args()
    loaded = load_change(args.repo, ChangeSelector(SelectorMode.RANGE, ref="old..new"))
    units = loaded.units[: args.limit] if args.limit else loaded.units
    request = SymbolSearchRequest(type="search_callers")
    plan = FusedPlan(plan=[FusedItem(
        unit_id=u.unit_id, file_path=u.file_path, location=u.location, risk=None,
        rule_context_level=None, rule_confidence=None, llm_context_level=None,
        final_context_level=ContextLevel.FUNCTION, extra_requests=[request], skip_review=False,
        reason="benchmark", provenance=Provenance(level="user", skip="user",
                                                  extra_requests=["user"]),
    ) for u in units], planner=PlannerReport(status="skipped"))
    start = time.perf_counter()
    bundles = loaded.bundles(plan, unit_budget=10**7, review_budget=10**9)
    seconds = time.perf_counter() - start
    counter = token_counter(None)
    full_tokens: dict[str, int] = {}
    for change in loaded.change_set.files:
        data = loaded.reader.new(change) or loaded.reader.old(change)
        if data is not None and not change.is_binary:
            full_tokens[change.path] = counter.count(data.decode("utf-8", "replace"))
    full = sum(full_tokens.get(u.file_path, 0) for u in units)
    used = [b.budget.used for b in bundles]
    with_callers = sum(1 for b in bundles if b.callers)
    diff_s = _git_diff_seconds(args.repo)
    print(f"units: {len(bundles)} bundles at function level + search_callers")
    print(f"bundle stage: {seconds:.2f} s ({seconds / len(bundles) * 1000:.2f} ms per unit); "
          f"git diff {diff_s:.3f} s -> {seconds / diff_s:.1f}x git diff")
    print(f"units with call sites found: {with_callers}; call-site snippets: "
          f"{sum(len(b.callers) for b in bundles)}")
    print(f"tokens ({counter.name}): bundles {sum(used):,} (median {statistics.median(used):.0f}"
          f" per unit); full files {full:,} -> bundles are {sum(used) / full:.1%} of full-file")


if __name__ == "__main__":
    main()
