"""The last parts of a change's priority order: each unit's reach and its learned part.

Both need the whole change -- reach is one project-wide search for the changed definitions'
users, the learned part (``rules.triage_model``) reads what the changed lines do, where each
unit stands in its change and the history of its lines (``history.line_history``) -- so they
are counted once per change, after the per-file rules. ``pipeline.LoadedChange`` calls these;
the caches (reach per tree, history per base commit) live in ``.git/reviewtui`` unless ``keep``
is off (``eval`` ranks hundreds of old trees nobody will see again).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewtui.git.model import ChangeSet
    from reviewtui.git.runner import GitRepo
    from reviewtui.history.fixes import FixMatcher
    from reviewtui.rules.suggestion import RuleSuggestion
    from reviewtui.units import ReviewUnit

Progress = Callable[[int, int], None]  # (files blamed, files to blame)
Features = dict[str, dict[str, float]]
Evidence = dict[str, dict[str, str]]


@dataclass(frozen=True)
class PriorityOrder:
    suggestions: dict[str, RuleSuggestion]  # with reach and the learned part counted
    features: Features  # the learned part's features per unit, rule parts included
    evidence: Evidence  # what gave each unit its history features


def triage_features(repo: GitRepo | None, change_set: ChangeSet, units: Sequence[ReviewUnit],
                    suggestions: Mapping[str, RuleSuggestion], *, keep: bool = True,
                    progress: Progress | None = None, matcher: FixMatcher | None = None
                    ) -> tuple[Features, Evidence]:
    """The learned part's features of every unit, without the rule parts, and the evidence
    of its history features (``matcher``: what a fix is, from ``[eval] fix_patterns``)."""
    from reviewtui.history.line_history import LineHistory
    from reviewtui.rules.change_standing import change_features
    from reviewtui.rules.triage_features import LINE_FEATURES, unit_features

    standing = change_features(units)
    history: Features = {}
    evidence: Evidence = {}
    if repo is not None:
        folder = repo.common_dir / "reviewtui" / "history"
        # without ``keep`` (an evaluation: hundreds of bases) no per-base results are kept,
        # but the commit graph, one for every base, is
        reader = LineHistory(repo, change_set, folder if keep else None, progress, folder,
                             matcher)
        history = reader.features(units)
        evidence = reader.evidence
    lines = {uid: dict(zip(LINE_FEATURES, s.line_signals, strict=True))
             for uid, s in suggestions.items() if s.line_signals}
    return {u.unit_id: unit_features(u, standing[u.unit_id], lines.get(u.unit_id))
            | history.get(u.unit_id, {}) for u in units}, evidence


def priority_order(repo: GitRepo, change_set: ChangeSet, units: Sequence[ReviewUnit],
                   suggestions: Mapping[str, RuleSuggestion], root: Path, *,
                   keep: bool = True, progress: Progress | None = None,
                   matcher: FixMatcher | None = None) -> PriorityOrder:
    """Every unit's suggestion with its reach (the files that use a changed public
    definition) and its learned part counted."""
    from reviewtui.context.search.reach import ReachCounter
    from reviewtui.rules.priority import SHARED_RISK, reach_points, with_reach
    from reviewtui.rules.triage_model import load_weights, rule_features
    from reviewtui.rules.unit_tokens import unit_tokens

    names = {u.unit_id: [s.name for s in u.scopes if s.role != "outer"]
             + list(u.symbols) for u in units}
    cache = repo.common_dir / "reviewtui" / "reach" if keep else None
    counter = ReachCounter(repo, change_set, cache)
    # The reach (the tree's files read and split into words, here) and the line history (git
    # blame, in git's processes) do not depend on each other: counted side by side, the
    # second core works while this one reads (1.4 s and 0.8 s, one after the other, on a
    # cold 8,000-unit change).
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reviewtui-reach")
    reach = pool.submit(counter.counts, [n for group in names.values() for n in group])
    try:
        weights, _ = load_weights(root)
        features, evidence = triage_features(repo, change_set, units, suggestions, keep=keep,
                                             progress=progress, matcher=matcher)
        files = reach.result()
    finally:
        # Its thread joined when its work is done: a thread still alive would keep the next
        # workbench load from forking its analysis. Not waited for when ``progress`` raised
        # (the workbench quit) with the count still running.
        pool.shutdown(wait=reach.done())
    counted = dict(suggestions)
    high = sum(1 for u in units if (s := suggestions.get(u.unit_id)) is not None
               and s.risk in SHARED_RISK)
    high_share = high / len(units) if units else 0.0
    for unit in units:
        suggestion = counted.get(unit.unit_id)
        if suggestion is None:
            continue
        users = {f for n in names[unit.unit_id]
                 for f in files.get(n.rsplit(".", 1)[-1], ())} - {unit.file_path}
        reached = reach_points(len(users))
        features[unit.unit_id] |= rule_features(suggestion, reached)
        tokens = (suggestion.tokens.split() if suggestion.line_signals
                  else unit_tokens(unit)) if weights.tokens else ()
        counted[unit.unit_id] = with_reach(
            suggestion, len(users), weights.points(features[unit.unit_id], tokens), high_share)
    return PriorityOrder(counted, features, evidence)


def priority_reasons(unit: ReviewUnit, suggestion: RuleSuggestion,
                     features: Mapping[str, float] | None, evidence: Mapping[str, str] | None,
                     root: Path) -> tuple[str, ...]:
    """Why a unit stands where it does in the priority order: its parts, then the learned
    part feature by feature with the line (or the commits) that gave it."""
    from reviewtui.rules.explain import learned_lines, shared_risk_line
    from reviewtui.rules.triage_model import load_weights
    from reviewtui.rules.unit_tokens import unit_tokens

    parts = " + ".join(f"{name} {points:g}" for name, points in suggestion.priority_parts)
    reasons = [f"{suggestion.priority_score:g} = {parts}"]
    shared = shared_risk_line(suggestion)
    if shared:
        reasons.append(shared)
    if features:
        weights, path = load_weights(root)
        reasons += [line.strip() for line in learned_lines(
            unit, weights.contributions(features, unit_tokens(unit)), features, path,
            evidence)[1:]]
    return tuple(reasons)
