"""The self-learning loop: evidence (what the LLM planner and the person said, against the rules)
-> candidate rules -> accepted into ``.reviewtui/learned_rules.toml`` or rejected.

Entry points: ``learn(repo_root, git_dir, pack)`` reads the evidence log and returns a
``LearnReport``; ``accept`` writes a ready candidate as a learned rule (the next index, plan
or workbench uses it); ``reject`` remembers a candidate so it is not proposed again until its
evidence doubles. Evidence scored under another rule pack is stale and not used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from reviewtui.errors import LearningError
from reviewtui.plan.conflicts import conflict_log_path, read_evidence
from reviewtui.rules.learning.candidates import (
    Judged,
    judge,
    prune,
    with_paths,
    with_rejection,
)
from reviewtui.rules.learning.model import Candidate, EvidenceSummary, LearnReport, Rejection
from reviewtui.rules.learning.rejections import (
    read_rejections,
    rejections_path,
    remember_rejection,
)
from reviewtui.rules.learning.samples import Members, base_keys, select
from reviewtui.rules.learning.writer import (
    learned_rule,
    learned_rules_path,
    provenance_comment,
    write_learned_rule,
)
from reviewtui.rules.packs import pack_identity
from reviewtui.rules.schema import LearnedRule, RulePack

_ORDER = {"ready": 0, "not_yet": 1, "rejected": 2, "blocked": 3}


def learn(repo_root: Path, git_dir: Path, pack: RulePack) -> LearnReport:
    """Every candidate the evidence supports, ready ones first (most samples first)."""
    log = conflict_log_path(git_dir)
    read = read_evidence(log)
    problems = read.problems(log)
    rejected_file = rejections_path(git_dir)
    try:
        rejections = read_rejections(rejected_file).rejected
    except LearningError as error:
        problems.append(str(error))
        rejections = {}
    identity = pack_identity(pack)
    evidence = select(read.records, identity, pack.learned)
    samples, stale = evidence.samples, evidence.stale
    role_tags = {tag for role in pack.roles.values() for tag in role.tags}
    covered = Members([s.record for s in samples])
    stale_covered = Members(stale)
    judged: list[Judged] = []
    for key in base_keys(samples, role_tags):
        one = judge(key, covered.of(key), samples, stale_covered, pack.learning)
        if one is None:
            continue
        judged.append(one)
        if one.candidate.status == "not_yet":
            judged += with_paths(one, samples, stale_covered, pack.learning)
    candidates = [with_rejection(j.candidate, rejections) for j in prune(judged)]
    candidates.sort(key=lambda c: (_ORDER[c.status], -c.samples, -c.agreement, c.id))
    summary = EvidenceSummary(
        log=str(log), records=len(read.records), used=len(samples),
        llm=sum(1 for s in samples if s.record.source == "llm"),
        user=sum(1 for s in samples if s.record.source == "user"),
        stale=len(stale), unstamped=read.unstamped, consumed=evidence.consumed,
        unreadable=read.unreadable, pack=identity)
    return LearnReport(evidence=summary, min_samples=pack.learning.min_samples,
                       min_agreement=pack.learning.min_agreement,
                       learned_file=str(learned_rules_path(repo_root)),
                       rejected_file=str(rejected_file), candidates=candidates,
                       problems=problems)


def find_candidate(report: LearnReport, candidate_id: str,
                   learned: Sequence[LearnedRule] = ()) -> Candidate:
    """The candidate with this id (or the only one starting with it); ``learned``: the rules
    already accepted, named when the id is one of theirs (its evidence is no candidate now)."""
    matches = [c for c in report.candidates if c.id == candidate_id] or [
        c for c in report.candidates if c.id.startswith(candidate_id)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise LearningError(f"{len(matches)} candidates start with {candidate_id!r}; "
                            "give more of the id")
    for rule in learned:
        if rule.origin is not None and candidate_id and rule.origin.candidate.startswith(
                candidate_id):
            raise LearningError(
                f"candidate {rule.origin.candidate} is already a learned rule, accepted "
                f"{rule.origin.accepted[:10]} (in {report.learned_file})",
                hint="edit or delete it there; its evidence is not proposed again")
    known = ", ".join(c.id for c in report.candidates[:5]) or "none"
    raise LearningError(f"no candidate {candidate_id!r} in the evidence (candidates: {known})",
                        hint="run 'reviewtui rules learn' to list them")


@dataclass(frozen=True)
class Accepted:
    candidate: Candidate
    rule: LearnedRule
    path: Path
    replaced: bool


def accept(repo_root: Path, git_dir: Path, pack: RulePack, candidate_id: str) -> Accepted:
    """Write the ready candidate ``candidate_id`` into ``.reviewtui/learned_rules.toml``."""
    report = learn(repo_root, git_dir, pack)
    candidate = find_candidate(report, candidate_id, pack.learned)
    if candidate.status != "ready":
        why = "; ".join(candidate.reasons) or candidate.status
        raise LearningError(f"candidate {candidate.id} is not ready: {why}")
    now = datetime.now(UTC).isoformat(timespec="seconds")
    rule = learned_rule(candidate, report.evidence.pack, now)
    path = learned_rules_path(repo_root)
    replaced = write_learned_rule(path, rule, provenance_comment(candidate, now))
    return Accepted(candidate, rule, path, replaced)


def reject(repo_root: Path, git_dir: Path, pack: RulePack, candidate_id: str) -> Rejection:
    """Remember that ``candidate_id`` was rejected (with its samples now)."""
    candidate = find_candidate(learn(repo_root, git_dir, pack), candidate_id, pack.learned)
    return remember_rejection(rejections_path(git_dir), candidate)


__all__ = [
    "Accepted",
    "Candidate",
    "LearnReport",
    "Rejection",
    "accept",
    "find_candidate",
    "learn",
    "reject",
]
