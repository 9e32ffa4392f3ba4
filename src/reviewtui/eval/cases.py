"""Mine the evaluation's cases: bug-introducing commits with their target lines, cached.

Each fix examined leaves one record in ``.git/reviewtui/eval/mined-<key>.jsonl`` (its bug commit
and targets, or why it gave none), so a second run blames nothing it has blamed before: it
streams ``git log`` again (cheap) and blames only fixes it has not seen. The key covers every
setting that changes what is mined. Fixes blaming the same commit make one case, with the union
of their target lines. The blame runs in threads (git does the work, in its own processes).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from reviewtui.errors import GitCommandError
from reviewtui.eval.journal import Journal
from reviewtui.eval.mining import (
    CommitRecord,
    FixLimits,
    file_stats,
    fix_sources,
    is_fix_message,
    stream_commits,
)
from reviewtui.eval.szz import BugOrigin, find_origin
from reviewtui.git.runner import GitRepo
from reviewtui.history.blame_run import ignored_revisions
from reviewtui.history.fixes import FixMatcher

SZZ_VERSION = 5  # bump when mining or blaming changes what a record says (2: "Closes #N",
# 3: paths with a space are blamed, 4: a fix of whitespace alone is none, names that are
# not UTF-8 are blamed, and a file the fix moved lost only the lines it changed, 5: a revert
# is no fix whatever the patterns)
NOT_A_CANDIDATE = "not 1-3 source files with a few dozen removed lines"


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class FixRef(_Model):
    sha: str
    subject: str
    time: int


class MinedRecord(_Model):
    """One examined fix, as cached: its bug commit and targets, or the reason it gave none."""

    fix: FixRef
    bug: str | None = None
    bug_subject: str = ""
    bug_time: int = 0
    targets: list[tuple[str, int]] = []
    reason: str | None = None
    failed: bool = False  # git failed on it (not kept: examined again next time)


class EvalCase(_Model):
    """A bug-introducing commit, the fixes that blamed it and the lines they blamed."""

    bug: str
    subject: str
    time: int
    fixes: list[FixRef]
    targets: list[tuple[str, int]]  # (path in the bug commit, line there)

    @property
    def case_id(self) -> str:
        return self.bug[:12]


@dataclass(frozen=True, slots=True)
class MiningSettings:
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    limits: FixLimits
    max_bug_files: int = 100
    max_bug_lines: int = 3_000
    ignore_revs: tuple[str, ...] = ()  # the commits blame looks through (set by mine_cases)

    def key(self) -> str:
        text = json.dumps([SZZ_VERSION, self.include, self.exclude, self.limits.max_files,
                           self.limits.max_removed, self.max_bug_files, self.max_bug_lines,
                           *([self.ignore_revs] if self.ignore_revs else [])])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class MiningProgress:
    commits: int  # commits read from the log
    fixes: int  # fixes examined
    cases: int  # distinct bug commits found
    cut: bool = False  # git could not read further back (an object missing from the clone)
    failed: int = 0  # fixes git failed to diff or blame


def _bug_facts(repo: GitRepo, origin: BugOrigin, settings: MiningSettings
               ) -> tuple[str, int, str | None]:
    """The bug commit's subject and time, or why it cannot be a case (merge, root, size)."""
    assert origin.bug is not None
    info = repo.run("log", "-1", "--format=%P%x1f%ct%x1f%s", "--end-of-options",
                    origin.bug).decode("utf-8", "replace").strip()
    parents, _, rest = info.partition("\x1f")
    time, _, subject = rest.partition("\x1f")
    parent_list = parents.split()
    if not parent_list:
        return subject, int(time or 0), "blamed on the root commit"
    if len(parent_list) > 1:
        return subject, int(time or 0), "blamed on a merge commit"
    stats = repo.run("diff-tree", "--numstat", "-r", "--no-renames", "--no-commit-id",
                     parent_list[0], origin.bug)
    files = lines = 0
    for row in stats.decode("utf-8", "replace").splitlines():
        added, _, rest = row.partition("\t")
        removed = rest.partition("\t")[0]
        files += 1
        lines += (int(added) if added.isdigit() else 0) + (
            int(removed) if removed.isdigit() else 0)
    if files > settings.max_bug_files or lines > settings.max_bug_lines:
        return subject, int(time or 0), (
            f"the bug commit is too large to review ({files} files, {lines} lines)")
    return subject, int(time or 0), None


def examine(repo: GitRepo, commit: CommitRecord, settings: MiningSettings) -> MinedRecord:
    """Check a fix's files, blame its removed lines and check its bug commit."""
    fix = FixRef(sha=commit.sha, subject=commit.subject, time=commit.time)
    if repo.try_run("cat-file", "-e", f"{commit.parents[0]}^{{commit}}") is None:
        return MinedRecord(fix=fix, reason="the fix's parent is missing (a shallow clone?)")
    try:
        counted = file_stats(repo, commit) if not commit.files else commit
    except GitCommandError as exc:
        return MinedRecord(fix=fix, reason=f"cannot read the fix's files: {exc}", failed=True)
    paths = fix_sources(counted, FixMatcher.build(settings.include, settings.exclude),
                        settings.limits)
    if not paths:
        return MinedRecord(fix=fix, reason=NOT_A_CANDIDATE)
    origin = find_origin(repo, commit.sha, commit.parents[0], paths, settings.ignore_revs)
    if origin.bug is None:
        return MinedRecord(fix=fix, reason=origin.reason, failed=origin.failed)
    subject, time, reason = _bug_facts(repo, origin, settings)
    return MinedRecord(fix=fix, bug=origin.bug, bug_subject=subject, bug_time=time,
                       targets=list(origin.targets), reason=reason)


def mined_journal(folder: Path | None, key: str) -> Journal[MinedRecord]:
    """The examined fixes of one mining key, appended as they are blamed."""
    return Journal(folder / f"mined-{key}.jsonl" if folder is not None else None,
                   MinedRecord, lambda record: record.fix.sha)


def _candidates(repo: GitRepo, settings: MiningSettings, since: str | None,
                counter: list[int]) -> Iterator[tuple[CommitRecord, int]]:
    """The fix-like commits, each with how many commits had been read when it was."""
    matcher = FixMatcher.build(settings.include, settings.exclude)
    commits = stream_commits(repo, since=since, numstat=False)
    while True:
        try:
            commit = next(commits, None)
        except GitCommandError:
            if counter[0] == 0:
                raise
            # An object git cannot read further back (a clone without its largest blobs, a
            # broken pack): the history read so far still makes cases.
            counter[1] = 1
            return
        if commit is None:
            return
        counter[0] += 1
        if is_fix_message(commit, matcher):
            yield commit, counter[0]


def mine_cases(repo: GitRepo, settings: MiningSettings, *, since: str | None = None,
               max_cases: int | None = None, jobs: int | None = None,
               cache_dir: Path | None = None,
               on_progress: Callable[[MiningProgress], None] | None = None) -> list[EvalCase]:
    """The cases of ``repo``'s history, newest fix first, at most ``max_cases``; every blame
    looks through the commits HEAD's ``.git-blame-ignore-revs`` lists (a change to the list
    mines again)."""
    settings = replace(settings, ignore_revs=ignored_revisions(repo))
    store = mined_journal(cache_dir, settings.key())
    cases: dict[str, EvalCase] = {}
    counter = [0, 0]  # commits read, whether the history was cut by an unreadable object
    fixes = failed = 0
    workers = max(1, jobs or os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        window: list[tuple[CommitRecord, int, Future[MinedRecord] | MinedRecord]] = []
        stream = _candidates(repo, settings, since, counter)
        done = False
        read = 0  # commits read up to the last fix taken: not the workers' look-ahead
        while not done:
            while len(window) < workers * 4:
                item = next(stream, None)
                if item is None:
                    break
                commit, position = item
                known = store.items.get(commit.sha)
                window.append((commit, position, known if known is not None else pool.submit(
                    examine, repo, commit, settings)))
            if not window:
                break
            commit, read, pending = window.pop(0)
            record = pending if isinstance(pending, MinedRecord) else pending.result()
            if isinstance(pending, Future) and not record.failed:
                store.add(record)
            if record.reason != NOT_A_CANDIDATE:
                fixes += 1
            failed += record.failed
            if record.bug is not None and record.reason is None:
                _merge(cases, record)
            if on_progress is not None:
                on_progress(MiningProgress(read, fixes, len(cases), bool(counter[1]), failed))
            done = max_cases is not None and len(cases) >= max_cases
        for _, _, pending in window:
            if isinstance(pending, Future):
                pending.cancel()
    if on_progress is not None:  # the last word: to the end of the history when it was read
        on_progress(MiningProgress(read if done else counter[0], fixes, len(cases),
                                   bool(counter[1]), failed))
    return list(cases.values())[:max_cases]


def _merge(cases: dict[str, EvalCase], record: MinedRecord) -> None:
    assert record.bug is not None
    known = cases.get(record.bug)
    if known is None:
        cases[record.bug] = EvalCase(bug=record.bug, subject=record.bug_subject,
                                     time=record.bug_time, fixes=[record.fix],
                                     targets=sorted(set(record.targets)))
        return
    cases[record.bug] = known.model_copy(update={
        "fixes": [*known.fixes, record.fix],
        "targets": sorted(set(known.targets) | set(record.targets))})
