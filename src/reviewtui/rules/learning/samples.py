"""From the evidence log to samples: which records count, and the kinds they are grouped by.

A record counts when it was scored under the rule pack in use (else it is stale: the rules may
say something else now), it is the latest of its unit from its source (a person who changed
their mind counts once, with the last word; a decision taken back not at all), and it is newer
than the learned rule that now covers its unit (older evidence is already in that rule).
"""

from __future__ import annotations

import glob
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from fnmatch import fnmatchcase

from reviewtui.models import ContextLevel
from reviewtui.plan.schema import ConflictRecord
from reviewtui.rules.engine import best_learned
from reviewtui.rules.schema import LearnedRule


@dataclass(frozen=True)
class Sample:
    record: ConflictRecord
    level: ContextLevel | None  # the level said (None: only requests were added)

    @property
    def tags(self) -> frozenset[str]:
        return frozenset(self.record.tags)


@dataclass(frozen=True)
class Evidence:
    samples: list[Sample]
    stale: list[ConflictRecord]
    consumed: int


@dataclass(frozen=True, order=True)
class Key:
    """A kind of unit: all of ``tags``, ``language`` (None: any), a path glob (empty: any)."""

    tags: tuple[str, ...]
    language: str | None
    paths: tuple[str, ...] = ()

    def matches(self, tags: Collection[str], language: str | None, path: str) -> bool:
        if self.language is not None and language != self.language:
            return False
        if not set(tags).issuperset(self.tags):
            return False
        return not self.paths or any(fnmatchcase(path, glob) for glob in self.paths)

    def covers(self, record: ConflictRecord) -> bool:
        return self.matches(record.tags, record.language, record.file_path)


def _taken_back(record: ConflictRecord) -> bool:
    return (record.source == "user" and record.user_level is None and record.user_skip is None
            and not record.user_requests)


def _latest(records: Iterable[ConflictRecord]) -> list[ConflictRecord]:
    latest: dict[tuple[str, str], ConflictRecord] = {}
    for record in records:  # the log is in time order: later lines win
        latest[(record.source, record.unit_id)] = record
    return list(latest.values())


def _consumed(record: ConflictRecord, learned: Sequence[LearnedRule]) -> bool:
    """Was the record there when the learned rule now covering its unit was accepted? (Times
    have whole seconds: a record of the second of acceptance counts as used.)"""
    rule = best_learned(learned, record.tags, record.language, record.file_path)
    if rule is None or rule.origin is None:
        return False
    try:
        return datetime.fromisoformat(record.timestamp) <= datetime.fromisoformat(
            rule.origin.accepted)
    except ValueError:  # a hand-edited time: keep the evidence
        return False


def select(records: Sequence[ConflictRecord], pack: str,
           learned: Sequence[LearnedRule]) -> Evidence:
    fresh = _latest(r for r in records if r.pack == pack)
    counted = {(r.source, r.unit_id) for r in fresh}
    stale = [r for r in _latest(r for r in records if r.pack != pack)
             if (r.source, r.unit_id) not in counted]
    samples: list[Sample] = []
    consumed = 0
    for record in fresh:
        if _taken_back(record):
            continue
        if _consumed(record, learned):
            consumed += 1
            continue
        samples.append(Sample(record, record.said_level()))
    return Evidence(samples, stale, consumed)


def base_keys(samples: Iterable[Sample], role_tags: Collection[str]) -> list[Key]:
    """For each sample: its exact kind (all its tags, its language) and, when it has role tags
    (test_file, doc_file, ...), the kind made of those alone -- the generalisation a learned rule
    may make when the evidence spans several shapes of change in that kind of file."""
    keys: dict[Key, None] = {}
    roles = frozenset(role_tags)
    for sample in samples:
        if sample.level is None or not sample.tags:
            continue
        language = sample.record.language
        keys.setdefault(Key(tuple(sorted(sample.tags)), language))
        role = sample.tags & roles
        if role and role != sample.tags:
            keys.setdefault(Key(tuple(sorted(role)), language))
    return list(keys)


def top_directory(path: str) -> str | None:
    """``tests/**`` for ``tests/unit/test_a.py``; None for a file at the root. A folder name
    with ``*``, ``?`` or ``[`` (``[slug]/``) is escaped: the glob matches that folder only."""
    head, sep, _rest = path.partition("/")
    return f"{glob.escape(head)}/**" if sep else None


class Members:
    """Which records a kind covers, by set intersection over an index of tags and languages
    (a kind's tags are all required: the samples having each, intersected)."""

    def __init__(self, records: Sequence[ConflictRecord]) -> None:
        self._all = frozenset(range(len(records)))  # a kind with no tags: every record
        self._by_tag: dict[str, set[int]] = {}
        self._by_language: dict[str | None, set[int]] = {}
        for index, record in enumerate(records):
            for tag in record.tags:
                self._by_tag.setdefault(tag, set()).add(index)
            self._by_language.setdefault(record.language, set()).add(index)
        self._records = records

    def of(self, key: Key) -> list[int]:
        tags = sorted(key.tags, key=lambda t: len(self._by_tag.get(t, ())))
        found: set[int] | frozenset[int] = (set(self._by_tag.get(tags[0], ())) if tags
                                            else self._all)
        for tag in tags[1:]:
            found &= self._by_tag.get(tag, set())
            if not found:
                return []
        if key.language is not None:
            found = found & self._by_language.get(key.language, set())
        if key.paths:
            found = {i for i in found if key.covers(self._records[i])}
        return sorted(found)
