"""The ranking metrics of an evaluation: recall@k, mean reciprocal rank and effort.

* **recall@k** -- the share of cases whose bug-holding unit is among the first k units;
* **MRR** -- the mean of 1 / (rank of the first unit holding the bug);
* **effort** -- the mean share of the change's changed lines in the units read before the first
  unit holding the bug (lower is better: the effort-aware view of defect prediction, where a
  large unit first costs more reading than a small one).

Each order is reported overall and for the changes of at least ``LARGE`` units, where an order
matters most (a 3-unit change is read whole anyway). The random order is its exact
expectation, averaged over the same cases.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from reviewtui.eval.rank import ORDERS, CaseResult

KS = (1, 3, 5)
LARGE = 10  # units: "large" changes
RANDOM = "random"


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class OrderMetrics(_Model):
    recall: dict[int, float]  # k -> share of cases
    mrr: float
    effort: float


class GroupMetrics(_Model):
    cases: int
    orders: dict[str, OrderMetrics]  # reviewtui, file, largest, random


class EvalMetrics(_Model):
    all: GroupMetrics
    large: GroupMetrics  # changes of at least LARGE units
    large_units: int = LARGE


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def group_metrics(results: Sequence[CaseResult]) -> GroupMetrics:
    ranked = [r for r in results if r.status == "ok"]
    orders: dict[str, OrderMetrics] = {}
    for name in ORDERS:
        rankings = [r.rankings[name] for r in ranked]
        orders[name] = OrderMetrics(
            recall={k: _mean([1.0 if x.rank <= k else 0.0 for x in rankings]) for k in KS},
            mrr=_mean([1.0 / x.rank for x in rankings]),
            effort=_mean([x.effort for x in rankings]))
    randoms = [r.random for r in ranked if r.random is not None]
    orders[RANDOM] = OrderMetrics(
        recall={k: _mean([x.recall[k] for x in randoms]) for k in KS},
        mrr=_mean([x.reciprocal_rank for x in randoms]),
        effort=_mean([x.effort for x in randoms]))
    return GroupMetrics(cases=len(ranked), orders=orders)


def eval_metrics(results: Sequence[CaseResult], large: int = LARGE) -> EvalMetrics:
    return EvalMetrics(all=group_metrics(results),
                       large=group_metrics([r for r in results if r.units >= large]),
                       large_units=large)
