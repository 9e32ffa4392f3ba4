"""Which files a new round inherits from the earlier rounds (seed 004's relevance and threshold).

The scoring rules of inheritance — the weights, the decay, the dynamic threshold and the ranking
of what is inherited — live here as pure functions, apart from ``rounds``, which keeps the round
history and the caches that feed them. Everything here is a function of its arguments, so the
seed's numbers can be read (and tested) in one place.

Relevance of an earlier round ``r`` to a new message (seed v2.25 weights)::

    relevance = 0.5 × similarity + 0.3 × overlap + 0.2 × decay
    similarity = keywords.similarity(message keywords, r.keywords)   (see keywords.py)
    overlap    = Jaccard of the message's files A and r.files B, where a file of A matching a
                 file of B exactly counts 1 and by basename only counts 0.5; 0 when A is empty
    decay      = 0.5 ** ((rounds_ago - 1) / half_life_rounds)        (previous round: 1.0)

Decay counts rounds, not wall time: a session resumed the next day is still the same
conversation, and the result must be a function of (message, history) for the cache to be
right. The default half-life is 4 rounds.

Dynamic threshold (seed v2.26: "when recent rounds are highly relevant, lower the threshold to
inherit more"): with ``signal`` the highest relevance among the last 3 rounds,
``threshold = clamp(base - (signal - 0.3), base - 0.1, base + 0.1)`` — base 0.4, so a follow-up
to the last rounds (signal ≥ 0.4) inherits down to 0.3, while a change of topic (signal ≈ 0.2,
recency alone) raises the bar to 0.5 so stale context stays out. Every round at or above the
threshold contributes its files; a file keeps its best score (ties: the more recent round); the
20 best are inherited — by score, then the more recent round, then, within a round, the files its
question or answer names before those only its tools read, in the round's order.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from reviewtui.sessions.records import RoundRecord

__all__ = ["InheritedFile", "ScoredRound", "decay", "file_overlap", "inherit", "relevance",
           "threshold"]

WEIGHT_SIMILARITY = 0.5
WEIGHT_OVERLAP = 0.3
WEIGHT_DECAY = 0.2
RECENT_ROUNDS = 3  # the rounds whose relevance steers the threshold
THRESHOLD_PIVOT = 0.3  # the recent relevance at which the threshold stays at its base
THRESHOLD_SWING = 0.1  # the threshold moves at most this far from its base

# an earlier round with its relevance to the new message: (record, score, similarity, overlap,
# decay)
ScoredRound = tuple[RoundRecord, float, float, float, float]


@dataclass(frozen=True)
class InheritedFile:
    path: str
    score: float  # the relevance of the round it came from
    similarity: float
    overlap: float
    decay: float
    from_round: int  # that round's index


def file_overlap(a: Collection[str], b: Collection[str]) -> float:
    """Jaccard of two file sets where a basename-only match counts half a match."""
    set_a, set_b = set(a), set(b)
    if not set_a or not set_b:
        return 0.0
    bases = {posixpath.basename(path) for path in set_b}
    matched = 0.0
    for path in set_a:
        if path in set_b:
            matched += 1.0
        elif posixpath.basename(path) in bases:
            matched += 0.5
    return matched / (len(set_a) + len(set_b) - matched)


def decay(rounds_ago: int, half_life_rounds: float) -> float:
    return float(0.5 ** (max(0, rounds_ago - 1) / half_life_rounds))


def relevance(similarity: float, overlap: float, decay: float) -> float:
    return WEIGHT_SIMILARITY * similarity + WEIGHT_OVERLAP * overlap + WEIGHT_DECAY * decay


def threshold(recent: Sequence[float], base: float) -> float:
    """The dynamic threshold for the relevances of the most recent rounds."""
    if not recent:
        return base
    moved = base - (max(recent) - THRESHOLD_PIVOT)
    return min(base + THRESHOLD_SWING, max(base - THRESHOLD_SWING, moved))


def inherit(scored: Sequence[ScoredRound], *, base_threshold: float, max_inherited: int,
            cited: Callable[[RoundRecord], Collection[str]],
            ) -> tuple[tuple[InheritedFile, ...], float]:
    """The files a new round inherits from the earlier rounds ``scored`` (oldest first), and the
    threshold they had to reach; ``cited``: the files a round's question or answer names."""
    bar = round(threshold([item[1] for item in scored[-RECENT_ROUNDS:]], base_threshold), 4)
    best: dict[str, InheritedFile] = {}
    order: dict[str, tuple[int, int]] = {}  # within a round: cited files first, in order
    for record, score, sim, overlap, faded in scored:  # oldest first: ties go to the newest
        rounded = round(score, 4)
        if rounded < bar:
            continue
        named = cited(record)
        for position, path in enumerate(record.files):
            known = best.get(path)
            if known is None or rounded >= known.score:
                best[path] = InheritedFile(path=path, score=rounded,
                                           similarity=round(sim, 4),
                                           overlap=round(overlap, 4), decay=round(faded, 4),
                                           from_round=record.index)
                order[path] = (0 if path in named else 1, position)
    ranked = sorted(best.values(), key=lambda f: (-f.score, -f.from_round, order[f.path]))
    return tuple(ranked[:max_inherited]), bar
