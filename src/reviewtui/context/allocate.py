"""Share the review budget among units by priority, whole units at a time, lazily (issue 16).

The review budget used to be split max-min fairly over every unit, so on a large change every
unit got a clipped diff and no context, and all the searching and parsing for the rest was done
and thrown away. Now:

1. every unit is sized from cheap data (``Estimator``) and the units are sorted by
   ``priority.allocation_key`` (noise last, then risk, the person's marks, confidence, size);
2. in that order, units whose estimate fits what is left are chosen (first fit: a small unit
   may use what a bigger one before it left; noise only once every other unit is in); only
   those are read and searched (one batched ``git grep`` for their names), then built one by
   one within their unit budget and counted exactly;
3. a unit whose real bundle does not fit what is left after all is not clipped to fit -- it waits,
   whole, and step 2 repeats with what is really left until nothing more fits;
4. what never fits is deferred: to the next review budget (``batches``, for ``review``), or
   listed with the reason and the tokens it would need.

Bundles are yielded as they are built, so a caller can write each one out and forget it; the
``Allocation`` summary is ready once the stream is exhausted.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass

from reviewtui.context.estimate import UnitEstimate
from reviewtui.context.priority import RISK_CLASSES, allocation_key
from reviewtui.context.scheduler import BundleRequest, ContextScheduler
from reviewtui.models import (
    AllocatedUnit,
    Allocation,
    BundleSet,
    ContextBundle,
    DeferredUnit,
    RiskAllocation,
)


@dataclass
class _Candidate:
    request: BundleRequest
    estimate: UnitEstimate
    need: int  # tokens: the estimate (at most the unit limit) until built, then the real count
    measured: bool = False
    bundle: ContextBundle | None = None  # built, but did not fit what was left: kept for later
    left_when_tried: int = 0  # what was left of the last review budget it was tried for


def is_complete(bundle: ContextBundle) -> bool:
    return all(p.status in ("included", "empty") for p in bundle.budget.pieces)


class BundleStream:
    """Iterate for the bundles, in the order they are built; then read ``allocation``.

    ``batches``: how many review budgets to fill (None: until every unit is in). Unknown unit
    ids are ignored.
    """

    def __init__(self, scheduler: ContextScheduler, requests: Sequence[BundleRequest], *,
                 unit_budget: int | None = None, review_budget: int | None = None,
                 batches: int | None = 1) -> None:
        settings = scheduler.settings
        self._scheduler = scheduler
        self._requests = [r for r in requests if scheduler.unit(r.unit_id) is not None]
        self.unit_budget = unit_budget or settings.unit_budget
        self.review_budget = review_budget or settings.review_budget
        self.batches = batches
        self._included: list[AllocatedUnit] = []
        self._deferred: list[_Candidate] = []
        self._batches_used = 0
        self._done = False

    @property
    def limit(self) -> int:
        """One unit's budget: never more than a whole review budget."""
        return min(self.unit_budget, self.review_budget)

    def __iter__(self) -> Iterator[ContextBundle]:
        if self._done:
            raise RuntimeError("a bundle stream can be iterated once")
        scheduler = self._scheduler
        scheduler.prefetch_sizes(self._requests)
        candidates: list[_Candidate] = []
        for request in self._requests:
            estimate = scheduler.estimate(request)
            candidates.append(_Candidate(request, estimate, min(estimate.total, self.limit)))
        candidates.sort(key=lambda c: allocation_key(c.request.priority, c.need))
        pending = candidates
        while pending and (self.batches is None or self._batches_used < self.batches):
            self._batches_used += 1
            pending = yield from self._fill(pending, self._batches_used)
        for candidate in pending:
            candidate.bundle = None  # kept only for a next review budget
        self._deferred = pending
        self._done = True

    def _fill(self, pending: list[_Candidate],
              batch: int) -> Generator[ContextBundle, None, list[_Candidate]]:
        """Fill one review budget; yields what it builds, returns the units still left."""
        remaining = self.review_budget
        left = pending
        while True:
            room = remaining
            chosen: list[_Candidate] = []
            waiting = any(not c.request.priority.noise for c in left)  # noise only comes last
            for candidate in left:
                if candidate.request.priority.noise and waiting:
                    break
                if candidate.need <= room:
                    chosen.append(candidate)
                    room -= candidate.need
            if not chosen:
                break
            self._scheduler.prefetch([(c.request, c.estimate) for c in chosen
                                      if c.bundle is None], self.limit)
            taken: set[int] = set()
            for candidate in chosen:
                if candidate.need > remaining:  # an earlier one took more than estimated
                    continue
                bundle = candidate.bundle
                if bundle is None:
                    bundle = self._scheduler.build_one(candidate.request, candidate.estimate,
                                                       self.limit)
                candidate.bundle = None
                used = bundle.budget.used
                if used > remaining:  # bigger than its estimate: wait, whole
                    candidate.need, candidate.measured, candidate.bundle = used, True, bundle
                    continue
                remaining -= used
                taken.add(id(candidate))
                self._included.append(AllocatedUnit(
                    unit_id=bundle.unit_id, risk=candidate.request.priority.risk, tokens=used,
                    complete=is_complete(bundle), batch=batch))
                yield bundle
            left = [c for c in left if id(c) not in taken]
        for candidate in left:
            candidate.left_when_tried = remaining
        return left

    # --- the summary ----------------------------------------------------------------------

    def _reason(self, candidate: _Candidate) -> str:
        need = f"{candidate.need}" if candidate.measured else f"~{candidate.need}"
        how = "counted" if candidate.measured else "estimated"
        where = (f"{candidate.left_when_tried} left in review budget {self._batches_used}"
                 if self._batches_used > 1 else f"{candidate.left_when_tried} left")
        if candidate.request.priority.noise and candidate.need <= candidate.left_when_tried:
            return (f"noise (docs, lockfiles, generated, comments or whitespace only) comes "
                    f"after the units still waiting: needs {need} tokens ({how}), {where}")
        return f"over the review budget: needs {need} tokens ({how}), {where}"

    @property
    def allocation(self) -> Allocation:
        if not self._done:
            raise RuntimeError("the allocation is known once every bundle has been built")
        risks = {risk: RiskAllocation(risk=risk) for risk in RISK_CLASSES}
        for allocated in self._included:
            totals = risks[allocated.risk]
            totals.included_units += 1
            totals.included_tokens += allocated.tokens
            totals.complete_units += allocated.complete
        deferred: list[DeferredUnit] = []
        for candidate in self._deferred:
            request = candidate.request
            unit = self._scheduler.unit(request.unit_id)
            assert unit is not None
            totals = risks[request.priority.risk]
            totals.deferred_units += 1
            totals.deferred_tokens += candidate.need
            deferred.append(DeferredUnit(
                unit_id=unit.unit_id, file_path=unit.file_path, location=unit.location,
                risk=request.priority.risk,
                final_context_level=request.level, tokens=candidate.need,
                measured=candidate.measured, reason=self._reason(candidate)))
        return Allocation(
            review_budget=self.review_budget, unit_budget=self.unit_budget,
            batches=self._batches_used, counter=self._scheduler.counter_name,
            used=sum(u.tokens for u in self._included), included=list(self._included),
            deferred=deferred,
            by_risk=[r for r in risks.values() if r.included_units or r.deferred_units])

    def collect(self) -> BundleSet:
        """Every bundle and the allocation (holds them all: for small sets and the review)."""
        bundles = list(self)
        return BundleSet(bundles=bundles, allocation=self.allocation)
