"""How far the analysis of a change has got, for whoever shows it (a terminal line, the TUI).

A large cold change takes seconds to parse and score; without a sign of life a person cannot
tell work from a hang. ``analyse_change`` reports through an optional callback after every
file (or batch of files from a worker); the callback must be quick and must not raise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewtui.rules.suggestion import RuleSuggestion
    from reviewtui.units.model import ReviewUnit

LARGEST_SHOWN = 3


@dataclass(frozen=True, slots=True)
class FinishedUnit:
    """A finished unit as a report names it: what the loading view's row shows. The units
    themselves stay where they were made: the workbench's analysis process sent them whole
    (hunks, diff lines, suggestions), and pickling then unpickling 8,000 of them took the two
    processes seconds of the cores the analysis needed."""

    unit_id: str
    location: str  # its file and lines
    language: str | None
    risk: str

    @classmethod
    def of(cls, unit: ReviewUnit, suggestion: RuleSuggestion) -> FinishedUnit:
        return cls(unit.unit_id, unit.location, unit.language, suggestion.risk.value)


@dataclass(frozen=True)
class AnalysisProgress:
    done: int  # files analysed so far, those the cache answered included
    total: int  # files in the change
    elapsed: float  # seconds since the analysis started
    largest_left: tuple[str, ...]  # paths of the largest files not analysed yet, largest first
    # the units of the files finished since the previous report
    finished: tuple[FinishedUnit, ...] = ()
    # once every file is analysed: the priority order's history of the changed lines, read
    # for so many files of so many (``LoadedChange.with_reach``)
    ordering: tuple[int, int] | None = None

    @property
    def complete(self) -> bool:
        return self.done >= self.total


ProgressCallback = Callable[[AnalysisProgress], None]


class ProgressTracker:
    """Counts finished files and reports to ``callback`` (nothing to do without one).

    ``costs``: the files still to compute (by index, with their size); the other files of the
    ``total`` are done from the start (answered by the cache, or kept)."""

    def __init__(self, callback: ProgressCallback | None, total: int,
                 costs: Mapping[int, int], paths: Sequence[str]) -> None:
        self._callback = callback
        self._total = total
        self._start = time.perf_counter()
        self._paths = paths
        self._left = sorted(costs, key=lambda index: (-costs[index], index))  # largest first
        self._next = 0  # the files before it in ``_left`` are all done
        self._done: set[int] = set()
        self._count = total - len(costs)

    def finished(self, indices: Sequence[int],
                 units: Sequence[tuple[ReviewUnit, RuleSuggestion]] = ()) -> None:
        """Report the files at ``indices`` done, with their units."""
        fresh = [index for index in indices if index not in self._done]
        self._done.update(fresh)
        self._count += len(fresh)
        if self._callback is None:
            return
        while self._next < len(self._left) and self._left[self._next] in self._done:
            self._next += 1
        largest: list[str] = []
        for index in self._left[self._next:]:
            if len(largest) == LARGEST_SHOWN:
                break
            if index not in self._done:
                largest.append(self._paths[index])
        self._callback(AnalysisProgress(
            done=self._count, total=self._total, elapsed=time.perf_counter() - self._start,
            largest_left=tuple(largest),
            finished=tuple(FinishedUnit.of(unit, suggestion) for unit, suggestion in units)))
