"""Stream the repository's history and pick the commits that fix a bug (the SZZ candidates).

``git log`` is read as it is written, newest first, so a 100k-commit history costs only as much
of it as the cases asked for (``--max-cases``) or the dates allowed (``--since``). A commit is a
candidate when its message says it fixes a bug (``history.fixes``) and it is small enough for
its blamed lines to point at one mistake: 1-3 changed source files that are not tests, docs,
generated or vendored, and between one and a few dozen removed lines in them (a fix that only
adds lines has nothing to blame).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from reviewtui.code.languages import is_code, language_for_path
from reviewtui.eval.szz import git_path
from reviewtui.git.model import ChangeStatus, FileChange
from reviewtui.git.runner import GitRepo
from reviewtui.history.fixes import FixMatcher

_QUIET_TAGS = frozenset({"test_file", "doc_file", "generated_or_vendored", "lockfile",
                         "translation_file", "asset_file", "type_stub", "tooling_file"})
_FORMAT = "%x1e%H%x1f%P%x1f%ct%x1f%aN%x1f%B%x1f"


@dataclass(frozen=True, slots=True)
class FileStat:
    path: str
    added: int
    removed: int
    binary: bool


@dataclass(frozen=True, slots=True)
class CommitRecord:
    sha: str
    parents: tuple[str, ...]
    time: int
    author: str
    message: str
    files: tuple[FileStat, ...]

    @property
    def subject(self) -> str:
        return self.message.strip().split("\n", 1)[0]


@lru_cache(maxsize=65536)
def is_source(path: str) -> bool:
    """Code: a programming language, not a test, doc, generated or vendored file."""
    from reviewtui.units.path_tags import path_tags
    from reviewtui.units.vocabulary import default_vocabulary

    if not is_code(language_for_path(path)):
        return False
    tags = path_tags(FileChange(ChangeStatus.MODIFY, path, path), default_vocabulary())
    return _QUIET_TAGS.isdisjoint(tags)


def _parse_record(raw: bytes) -> CommitRecord | None:
    fields = raw.split(b"\x1f", 5)
    if len(fields) < 6:
        return None
    sha, parents, time, author, message, stats = fields
    files = []
    for row in stats.splitlines():
        added, _, rest = row.partition(b"\t")
        removed, _, name = rest.partition(b"\t")
        path = git_path(name)  # as git is asked about it again: the name's own bytes
        if not path:
            continue
        binary = added == b"-"
        files.append(FileStat(path, 0 if binary else int(added or 0),
                              0 if binary else int(removed or 0), binary))
    return CommitRecord(sha.decode("ascii").strip(), tuple(parents.decode("ascii").split()),
                        int(time or 0), author.decode("utf-8", "replace"),
                        message.decode("utf-8", "replace"), tuple(files))


def stream_commits(repo: GitRepo, *, since: str | None = None, rev: str = "HEAD",
                   merges: bool = False, numstat: bool = True) -> Iterator[CommitRecord]:
    """Every commit reachable from ``rev``, newest first, with its files' line counts unless
    ``numstat`` is off (then ``files`` is empty: reading no blob, the log never fails on one
    a partial clone lacks, and costs a tenth)."""
    args = ["log", "--no-color", "--no-renames", f"--format={_FORMAT}"]
    if numstat:
        args.append("--numstat")
    if not merges:
        args.append("--no-merges")
    if since:
        args.append(f"--since={since}")
    args += ["--end-of-options", rev, "--"]
    pending = b""
    for chunk in repo.stream(*args):
        pending += chunk
        *complete, pending = pending.split(b"\x1e")
        for raw in complete:
            record = _parse_record(raw.strip(b"\n"))
            if record is not None:
                yield record
    record = _parse_record(pending.strip(b"\n"))
    if record is not None:
        yield record


@dataclass(frozen=True, slots=True)
class FixLimits:
    max_files: int = 3  # changed source files
    max_removed: int = 40  # removed lines in them


def file_stats(repo: GitRepo, commit: CommitRecord) -> CommitRecord:
    """``commit`` with its files' line counts (one ``diff-tree``)."""
    out = repo.run("diff-tree", "--numstat", "-r", "--no-renames", "--no-commit-id",
                   commit.parents[0], commit.sha)
    parsed = _parse_record(b"\x1f" * 5 + out)
    return CommitRecord(commit.sha, commit.parents, commit.time, commit.author, commit.message,
                        parsed.files if parsed is not None else ())


def is_fix_message(commit: CommitRecord, matcher: FixMatcher) -> bool:
    return len(commit.parents) == 1 and matcher.is_fix(commit.message)


def fix_sources(commit: CommitRecord, matcher: FixMatcher, limits: FixLimits
                ) -> tuple[str, ...] | None:
    """The source files a fix changed, or None: not a usable fix (``commit`` with its line
    counts). Its blame reads those it removed lines from; the others are there so that the
    diff pairs a file the fix moved with its new name."""
    if not is_fix_message(commit, matcher):
        return None
    sources = [f for f in commit.files if not f.binary and is_source(f.path)]
    removed = sum(f.removed for f in sources)
    if not 1 <= len(sources) <= limits.max_files or not 1 <= removed <= limits.max_removed:
        return None
    return tuple(f.path for f in sources)
