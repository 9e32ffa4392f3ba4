"""How close the allocation's cheap estimates come to the real token counts, on the large diff.

For ``--sample`` random units of the Django diff (seeded), compares ``context.estimate`` -- the
sizes the review budget is shared out with, computed before anything is parsed or counted --
with the tiktoken count of the text the context levels really produce: the diff, each level
(function, file context, full file) and the previous version. Prints, per piece, the median,
10th and 90th percentile of estimate / actual, and the ratio of the totals.

Usage::

    python benchmarks/bench_estimates.py [--sample 400] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics

from make_large_diff import DEFAULT_REPO
from reviewtui.context.estimate import Estimator, diff_tokens
from reviewtui.context.excerpt import parse_structure
from reviewtui.context.levels import diff_excerpt, level_context, previous_version
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.llm import token_counter
from reviewtui.models import ContextLevel, PreviousVersionRequest
from reviewtui.pipeline import load_change
from reviewtui.units import ReviewUnit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=str(DEFAULT_REPO))
    parser.add_argument("--sample", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    loaded = load_change(args.repo, ChangeSelector(SelectorMode.RANGE, ref="old..new"))
    count = token_counter(None).count
    settings = loaded.settings.context
    changes = {c.path: c for c in loaded.change_set.files}
    loaded.reader.prefetch_sizes(loaded.change_set.files)

    def size_of(unit: ReviewUnit, side: str) -> int | None:
        change = changes.get(unit.file_path)
        return loaded.reader.size(change, side) if change is not None else None

    estimator = Estimator(settings, size_of, lambda unit, request: 1)
    units = [u for u in loaded.units if u.hunks and "binary" not in u.tags]
    random.seed(args.seed)
    pairs: dict[str, list[tuple[int, int]]] = {}
    for unit in random.sample(units, min(args.sample, len(units))):
        change = changes.get(unit.file_path)
        new = loaded.reader.new(change) if change else None
        old = loaded.reader.old(change) if change else None
        new_tree = parse_structure(unit.language, new) if new else None
        old_tree = parse_structure(unit.language, old) if old else None
        pairs.setdefault("diff", []).append((diff_tokens(unit), count(diff_excerpt(unit))))
        for level in (ContextLevel.FUNCTION, ContextLevel.FILE_CONTEXT, ContextLevel.FULL_FILE):
            text = level_context(level, unit, new, new_tree, settings, old_text=old,
                                 old_structure=old_tree)
            if text:
                estimate = estimator.unit(unit, level, []).level
                pairs.setdefault(level.value, []).append((estimate, count(text)))
        text = previous_version(unit, old, old_tree, settings)
        if text:
            estimate = estimator.unit(unit, ContextLevel.DIFF_ONLY,
                                      [PreviousVersionRequest()]).previous_version
            pairs.setdefault("previous_version", []).append((estimate, count(text)))
    print("piece             n   median   p10   p90   totals")
    for piece, found in pairs.items():
        ratios = sorted(e / a for e, a in found if a)
        total = sum(e for e, _ in found) / sum(a for _, a in found)
        print(f"{piece:16} {len(found):>3}   {statistics.median(ratios):6.2f} "
              f"{ratios[len(ratios) // 10]:5.2f} {ratios[9 * len(ratios) // 10]:5.2f}   "
              f"{total:6.2f}")


if __name__ == "__main__":
    main()
