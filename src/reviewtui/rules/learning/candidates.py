"""From samples to candidate rules: the level most samples of a kind said, and whether that is
strong enough to propose.

A kind is proposed ("ready") when it has at least ``learning.min_samples`` samples and at least
``learning.min_agreement`` of them said the same level, that level differs from what the rules
say for some of them, and not every unit it would change is high risk (a learned rule never
lowers one). Otherwise it is listed as ``not_yet`` (or ``blocked``, or ``rejected`` until its
samples double) with the reason. A kind that is mixed overall may still be consistent inside
one top directory: then the kind narrowed by that path glob is proposed. Among kinds with the
same samples the most specific one is kept; a more general kind that proposes the same level
from strictly more samples replaces the specific ones it covers.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reviewtui.models import ContextLevel
from reviewtui.plan.schema import ConflictRecord
from reviewtui.rules.learning.model import (
    Candidate,
    CandidateKey,
    CandidateStatus,
    Example,
    Rejection,
)
from reviewtui.rules.learning.samples import Key, Members, Sample, top_directory
from reviewtui.rules.schema import LearningSettings
from reviewtui.rules.scoring import PROTECTED_TAGS

EXAMPLES = 3
_HIGH_RISKS = frozenset({"high", "critical"})


@dataclass(frozen=True)
class Judged:
    key: Key
    members: frozenset[int]  # indexes of the samples it counts
    drivers: frozenset[int]  # the members that said its level where the rules say another
    candidate: Candidate


def candidate_id(key: Key, level: ContextLevel) -> str:
    text = json.dumps([list(key.tags), key.language, list(key.paths), level.value])
    return "c_" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def _protected(record: ConflictRecord) -> bool:
    return (record.risk or "") in _HIGH_RISKS or bool(PROTECTED_TAGS.intersection(record.tags))


def _said(sample: Sample) -> str:
    record = sample.record
    if record.source == "user":
        parts = [record.user_level.value] if record.user_level else []
        if record.user_skip is not None:
            parts.append("skip" if record.user_skip else "keep")
        parts += [f"+{r}" for r in record.user_requests]
    else:
        parts = [record.llm_context_level.value] if record.llm_context_level else []
        if record.llm_skip_review:
            parts.append("skip")
    return " ".join(parts) or "-"


def _example(sample: Sample) -> Example:
    record = sample.record
    where = f"{record.file_path}:{record.lines}" if record.lines else record.file_path
    return Example(unit_id=record.unit_id, location=where, source=record.source,
                   rule_level=record.rule_context_level, said_level=sample.level,
                   said=_said(sample), reason=record.llm_reason, change=record.change)


def _examples(samples: Sequence[Sample], level: ContextLevel) -> list[Example]:
    """Up to three, from different files where possible: agreeing ones (the person's first,
    newest first) and, when some sample said something else, one of those too."""
    newest = sorted(samples, key=lambda s: s.record.timestamp, reverse=True)
    agreeing = sorted((s for s in newest if s.level is level),
                      key=lambda s: s.record.source != "user")
    dissent = [s for s in newest if s.level is not level]
    chosen: list[Sample] = []
    for pool, room in ((agreeing, EXAMPLES - bool(dissent)), (dissent, EXAMPLES),
                       (agreeing, EXAMPLES)):
        files = {s.record.file_path for s in chosen}
        for sample in pool:
            if len(chosen) >= room:
                break
            if sample not in chosen and sample.record.file_path not in files:
                chosen.append(sample)
                files.add(sample.record.file_path)
    if len(chosen) < EXAMPLES:  # too few files: the same file twice is better than nothing
        chosen += [s for s in agreeing + dissent if s not in chosen][:EXAMPLES - len(chosen)]
    return [_example(s) for s in chosen]


def judge(key: Key, members: Sequence[int], samples: Sequence[Sample], stale: Members,
          settings: LearningSettings) -> Judged | None:
    """The candidate of ``key`` over the level samples ``members``; None when there is nothing
    to learn (no level said, or the rules already say it for every sample)."""
    chosen = [samples[i] for i in members]
    voting = [s for s in chosen if s.level is not None]
    if not voting or not key.tags:
        return None
    votes = Counter(s.level for s in voting if s.level is not None)
    level = max(votes, key=lambda lv: (votes[lv], lv.rank))  # a tie: the larger level
    changed = [s for s in voting if s.record.rule_context_level is not level]
    if not changed:
        return None
    agreeing = votes[level]
    count = len(voting)
    reasons: list[str] = []
    status: CandidateStatus = "ready"
    lowered = [s for s in changed if s.record.rule_context_level is not None
               and level.rank < s.record.rule_context_level.rank]
    if lowered and len(lowered) == len(changed) and all(_protected(s.record) for s in lowered):
        status = "blocked"
        reasons.append("a learned rule never lowers a high-risk unit, and every unit it would "
                       "change is high risk")
    if count < settings.min_samples:
        reasons.append(f"{count} sample{'s' if count != 1 else ''}, fewer than "
                       f"learning.min_samples ({settings.min_samples})")
    if agreeing / count < settings.min_agreement:
        reasons.append(f"agreement {agreeing / count:.2f} is below learning.min_agreement "
                       f"({settings.min_agreement:.2f})")
    if status == "ready" and reasons:
        status = "not_yet"
    requests: Counter[str] = Counter(r for s in chosen for r in s.record.user_requests)
    candidate = Candidate(
        id=candidate_id(key, level), status=status, reasons=reasons,
        key=CandidateKey(tags=list(key.tags), language=key.language, paths=list(key.paths)),
        level=level, samples=count, agreeing=agreeing, agreement=round(agreeing / count, 2),
        confidence=round((agreeing + 1) / (count + 2), 2),
        llm=sum(1 for s in voting if s.record.source == "llm"),
        user=sum(1 for s in voting if s.record.source == "user"),
        files=len({s.record.file_path for s in voting}),
        changes=len({s.record.change for s in voting if s.record.change}),
        stale=len(stale.of(key)),
        votes={lv.value: n for lv, n in votes.most_common()},
        rule_levels=dict(Counter(s.record.rule_context_level.value if
                                 s.record.rule_context_level else "-" for s in voting)),
        requests=dict(requests.most_common()), examples=_examples(voting, level))
    drivers = frozenset(i for i in members if samples[i].level is level
                        and samples[i].record.rule_context_level is not level)
    return Judged(key, frozenset(members), drivers, candidate)


def with_paths(judged: Judged, samples: Sequence[Sample], stale: Members,
               settings: LearningSettings) -> list[Judged]:
    """A kind that is not ready overall, narrowed to each top directory where it would be."""
    groups: dict[str, list[int]] = {}
    for index in judged.members:
        folder = top_directory(samples[index].record.file_path)
        if folder is not None:
            groups.setdefault(folder, []).append(index)
    found: list[Judged] = []
    for folder, members in sorted(groups.items()):
        if len(members) == len(judged.members):
            continue  # every sample is there: the glob would add nothing
        key = Key(judged.key.tags, judged.key.language, (folder,))
        narrowed = judge(key, sorted(members), samples, stale, settings)
        if narrowed is not None and narrowed.candidate.status == "ready":
            found.append(narrowed)
    return found


def _more_general(a: Key, b: Key) -> bool:
    """Does ``a`` match every unit ``b`` matches (and is it a different key)?"""
    return (a != b and set(a.tags) <= set(b.tags) and a.language in (None, b.language)
            and (not a.paths or a.paths == b.paths))


def _redundant(one: Judged, other: Judged) -> bool:
    """Does ``other`` make ``one`` unnecessary (both propose the same level)?"""
    if other is one or other.candidate.level is not one.candidate.level:
        return False
    if other.members == one.members and _more_general(one.key, other.key):
        return True  # ``other`` says the same about the same units, more exactly
    if (other.members > one.members and other.candidate.status == "ready"
            and _more_general(other.key, one.key)):
        return True  # ``other`` covers it, from more samples
    if other.candidate.status != "ready":
        return False
    # a path glob is the fallback: not needed where a kind of tags explains the same samples
    if one.key.paths and not other.key.paths and other.members >= one.members:
        return True
    # not ready, and what it would change is what a ready kind already proposes
    return one.candidate.status != "ready" and one.drivers <= other.members


def prune(judged: Sequence[Judged]) -> list[Judged]:
    """Keep the most specific kind among those with the same samples; drop a specific kind
    when a more general ready one proposes the same level from strictly more samples, a
    path-glob kind when a kind of tags alone proposes the same level for its samples, and a kind
    that is not ready when every change it would make is proposed by a ready kind already."""
    by_level: dict[ContextLevel, list[Judged]] = {}
    for one in judged:
        by_level.setdefault(one.candidate.level, []).append(one)
    return [one for one in judged
            if not any(_redundant(one, other) for other in by_level[one.candidate.level])]


def with_rejection(candidate: Candidate, rejections: Mapping[str, Rejection]) -> Candidate:
    """A rejected candidate stays rejected until its samples reach twice what they were."""
    rejected = rejections.get(candidate.id)
    if rejected is None or candidate.samples >= 2 * rejected.samples:
        return candidate
    why = (f"rejected on {rejected.rejected[:10]} at {rejected.samples} samples; proposed "
           f"again at {2 * rejected.samples}")
    return candidate.model_copy(update={"status": "rejected",
                                        "reasons": [why, *candidate.reasons]})
