"""Where reviewtui's priority order puts the unit that held a real bug, beside the baselines.

A case's bug-introducing commit is indexed exactly as ``reviewtui index --commit REV --sort
priority`` would (the same pipeline, reach included), without the per-file and reach caches:
hundreds of old trees would push out what the person's own reviews keep there. A unit *holds
the bug* when one of its added lines is a target line. Three orders are ranked -- reviewtui's
priority, file order (as the index is built) and largest unit first -- and the random order's
expectation is computed exactly, not sampled.
"""

from __future__ import annotations

import time
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from reviewtui.eval.cases import EvalCase
from reviewtui.git import ChangeSelector, SelectorMode

if TYPE_CHECKING:
    from reviewtui.pipeline import LoadedChange

ORDERS = ("reviewtui", "file", "largest")
MIN_UNITS = 2  # a one-unit change: the whole diff is the answer


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Ranking(_Model):
    rank: int  # position of the first unit holding the bug, from 1
    effort: float  # share of the change's changed lines in the units read before it


class RandomExpectation(_Model):
    recall: dict[int, float]  # k -> probability that a holder is within the first k
    reciprocal_rank: float
    effort: float


class Holder(_Model):
    unit_id: str
    location: str
    lines: int  # changed lines of the unit
    targets: int  # target lines in it
    priority: float | None
    rank: int  # in reviewtui's order


class UnitSample(_Model):
    """One unit as the learned priority sees it: what ``eval --fit`` trains on."""

    base: float  # the priority without its learned part
    lines: int = 0  # changed lines
    features: list[float]  # rules.triage_model.ALL_FEATURES, in that order
    holds: bool
    tokens: list[str] = []  # rules.unit_tokens.unit_tokens


class CaseResult(_Model):
    case: EvalCase
    status: Literal["ok", "too_small", "no_holder", "failed"]
    reason: str | None = None
    units: int = 0
    changed_lines: int = 0
    holders: list[Holder] = []
    rankings: dict[str, Ranking] = {}
    random: RandomExpectation | None = None
    top: list[str] = []  # the first units of reviewtui's order (locations)
    seconds: float = 0.0
    samples: list[UnitSample] = []  # every unit, in file order


def random_expectation(sizes: list[int], holding: set[int], ks: tuple[int, ...] = (1, 3, 5)
                       ) -> RandomExpectation:
    """What a uniformly random order scores, exactly: ``sizes`` are the units' changed lines,
    ``holding`` the indexes of the units holding the bug."""
    n, h = len(sizes), len(holding)
    total = sum(sizes) or 1
    recall = {k: 1.0 - comb(n - h, k) / comb(n, k) if k <= n else 1.0 for k in ks}
    rr = sum(comb(n - r, h - 1) / comb(n, h) / r for r in range(1, n - h + 2))
    others = sum(size for i, size in enumerate(sizes) if i not in holding)
    return RandomExpectation(recall=recall, reciprocal_rank=rr, effort=others / (h + 1) / total)


def first_holder(order: list[int], sizes: list[int], holding: set[int]) -> Ranking:
    total = sum(sizes) or 1
    read = 0
    for position, index in enumerate(order, 1):
        if index in holding:
            return Ranking(rank=position, effort=read / total)
        read += sizes[index]
    raise ValueError("no unit holds the bug")


def rank_case(root: Path, case: EvalCase) -> CaseResult:
    """Index the case's bug commit and rank its units; a failure is a result, not an error."""
    from reviewtui.errors import ReviewTuiError

    started = time.perf_counter()
    try:
        result = _rank(root, case)
    except ReviewTuiError as exc:
        result = CaseResult(case=case, status="failed", reason=str(exc))
    return result.model_copy(update={"seconds": round(time.perf_counter() - started, 3)})


def _rank(root: Path, case: EvalCase) -> CaseResult:
    from reviewtui.pipeline import load_change
    from reviewtui.units.order import sort_units

    loaded = load_change(root, ChangeSelector(SelectorMode.COMMIT, ref=case.bug),
                         use_cache=False).with_reach(keep=False)
    index = loaded.review_index()
    units = loaded.units
    samples = _samples(loaded)
    position = {unit.unit_id: i for i, unit in enumerate(units)}
    sizes = [unit.added_lines + unit.removed_lines for unit in units]
    base = CaseResult(case=case, status="ok", units=len(units), changed_lines=sum(sizes))
    if len(units) < MIN_UNITS:
        return base.model_copy(update={"status": "too_small",
                                       "reason": f"{len(units)} unit: the diff is the answer"})
    targets = {(path, line) for path, line in case.targets}
    hits = [sum(1 for hunk in unit.hunks for ln in hunk.lines
                if ln.kind == "+" and (unit.file_path, ln.new_no) in targets) for unit in units]
    holding = {i for i, count in enumerate(hits) if count}
    samples = [s.model_copy(update={"holds": i in holding}) for i, s in enumerate(samples)]
    if not holding:
        return base.model_copy(update={
            "status": "no_holder", "reason": "no unit's added lines hold a target line"})
    prioritised = [position[u.unit_id] for u in sort_units(index, "priority").units]
    orders = {
        "reviewtui": prioritised,
        "file": list(range(len(units))),
        "largest": sorted(range(len(units)), key=lambda i: -sizes[i]),
    }
    rankings = {name: first_holder(order, sizes, holding) for name, order in orders.items()}
    scores = {u.unit_id: u.priority_score for u in index.units}
    ranks = {index_: r for r, index_ in enumerate(prioritised, 1)}
    holders = [Holder(unit_id=units[i].unit_id, location=units[i].location, lines=sizes[i],
                      targets=hits[i], priority=scores.get(units[i].unit_id), rank=ranks[i])
               for i in sorted(holding, key=lambda i: ranks[i])]
    return base.model_copy(update={
        "holders": holders, "rankings": rankings,
        "random": random_expectation(sizes, holding),
        "top": [units[i].location for i in prioritised[:3]], "samples": samples})


def _samples(loaded: LoadedChange) -> list[UnitSample]:
    from reviewtui.rules.triage_model import ALL_FEATURES, rule_features
    from reviewtui.rules.unit_tokens import unit_tokens

    # The history and line features ``with_reach`` already counted (its rule parts are
    # replaced below by the reach-counted suggestion's): blaming every file again would
    # double a case's time.
    features = loaded.learned_features
    out = []
    for unit in loaded.units:
        suggestion = loaded.suggestions.get(unit.unit_id)
        if suggestion is None:
            out.append(UnitSample(base=0.0, lines=unit.added_lines + unit.removed_lines,
                                  features=[0.0] * len(ALL_FEATURES), holds=False))
            continue
        values = features[unit.unit_id] | rule_features(suggestion)
        base = sum(p for name, p in suggestion.priority_parts if name != "learned")
        out.append(UnitSample(base=round(base, 2), lines=unit.added_lines + unit.removed_lines,
                              features=[round(values[n], 4) for n in ALL_FEATURES],
                              holds=False,
                              tokens=unit_tokens(unit)))
    return out
