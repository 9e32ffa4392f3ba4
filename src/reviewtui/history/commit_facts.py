"""What reviewtui knows about each commit of the repository: time, author, and whether it fixed
a bug -- read once per commit, from its whole message, and kept.

The line history (``history.line_history``) learns from ``git blame`` which commits last
touched a unit's lines; whether each of them was a *fix* decides the "fixed before" signals.
Blame's porcelain gives only a commit's subject, so a fix that says so in a trailer (``Fixes
#12``) below a plain subject would be missed. This index reads the full messages of the commits
it has not seen yet -- one ``git log --no-walk`` over them, nothing else -- and appends them to
``.git/reviewtui/history/commits.tsv``. It grows with the commits that blame names (new commits
only, never a walk of the whole history), and it can see nothing later than the change's base:
every commit it is asked about came out of a blame at that base.

A line is ``sha<TAB>time<TAB>author<TAB>fix``. A torn last line (a killed process) is skipped
and read again. The file names the fix patterns it was classified with; other patterns start a
new file.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from reviewtui.errors import GitCommandError
from reviewtui.git.runner import GitRepo
from reviewtui.history.fixes import FixMatcher

_log = logging.getLogger(__name__)
FILE_NAME = "commits.tsv"
_VERSION = "reviewtui commit facts 3"  # 2: "Closes #N" alone is no fix, 3: nor a revert
_BATCH = 400  # commits per git call: an argument list stays far below any OS limit
_FIELD, _RECORD = "\x1f", "\x1e"
Progress = Callable[[int, int], None]  # (commits read, commits to read)


@dataclass(frozen=True, slots=True)
class CommitFact:
    time: int
    author: str
    fix: bool


class CommitFacts:
    """Per-commit facts, read from git on first sight and kept in ``cache_dir`` (None: kept in
    memory only, as ``eval`` wants for the hundreds of old trees it ranks)."""

    def __init__(self, repo: GitRepo, cache_dir: Path | None,
                 matcher: FixMatcher | None = None) -> None:
        self._repo = repo
        self._matcher = matcher or FixMatcher.build()
        self._path = cache_dir / FILE_NAME if cache_dir is not None else None
        self._header = f"# {_VERSION} {self._matcher.stamp}\n"
        self._known: dict[str, CommitFact] | None = None

    def lookup(self, commits: Collection[str], progress: Progress | None = None
               ) -> dict[str, CommitFact]:
        """The facts of ``commits`` (full ids) that git knows; the unseen ones are read now."""
        known = self._load()
        missing = sorted({c for c in commits if c not in known})
        if missing:
            fresh = self._read(missing, progress)
            known.update(fresh)
            self._append(fresh)
        return {c: known[c] for c in commits if c in known}

    def __len__(self) -> int:
        return len(self._load())

    def _load(self) -> dict[str, CommitFact]:
        if self._known is not None:
            return self._known
        self._known = {}
        if self._path is None or not self._path.is_file():
            return self._known
        try:
            text = self._path.read_text("utf-8", errors="replace")
        except OSError as exc:
            _log.info("commit facts unreadable (%s): reading them again", exc)
            return self._known
        if not text.startswith(self._header):
            return self._known  # other fix patterns, or an older format: start afresh
        for line in text[len(self._header):].split("\n"):
            parts = line.split("\t")
            if len(parts) == 4 and len(parts[0]) >= 40 and parts[1].isdigit() and (
                    parts[3] in ("0", "1")):
                self._known[parts[0]] = CommitFact(int(parts[1]), parts[2], parts[3] == "1")
        return self._known

    def _read(self, commits: list[str], progress: Progress | None) -> dict[str, CommitFact]:
        out: dict[str, CommitFact] = {}
        fmt = f"--format=%H{_FIELD}%ct{_FIELD}%ae{_FIELD}%B{_RECORD}"
        for start in range(0, len(commits), _BATCH):
            batch = commits[start:start + _BATCH]
            try:
                raw = self._repo.run("log", "--no-walk=unsorted", "--no-color", fmt,
                                     "--end-of-options", *batch)
            except GitCommandError as exc:  # a missing object in a partial clone
                _log.info("commit facts: %s", exc)
                continue
            for record in raw.decode("utf-8", "replace").split(_RECORD):
                fields = record.strip("\n").split(_FIELD)
                if len(fields) != 4 or not fields[1].strip().isdigit():
                    continue
                sha, stamp, author, message = fields
                out[sha.strip()] = CommitFact(int(stamp), _clean(author),
                                              self._matcher.is_fix(message))
            if progress is not None:
                progress(min(start + _BATCH, len(commits)), len(commits))
        return out

    def _append(self, fresh: dict[str, CommitFact]) -> None:
        if self._path is None or not fresh:
            return
        body = "".join(f"{sha}\t{f.time}\t{f.author}\t{int(f.fix)}\n"
                       for sha, f in sorted(fresh.items()))
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            current = self._path.read_text("utf-8", errors="replace")[:len(self._header)] if (
                self._path.is_file()) else ""
            if current != self._header:
                tmp = self._path.with_name(f".{FILE_NAME}.{os.getpid()}")
                tmp.write_text(self._header + body, "utf-8")
                tmp.replace(self._path)
                return
            with self._path.open("rb") as tail:
                tail.seek(-1, os.SEEK_END)
                torn = tail.read(1) != b"\n"  # a killed writer's half line stays apart
            with self._path.open("a", encoding="utf-8") as handle:
                handle.write(("\n" if torn else "") + body)  # one write: whole lines or none
        except OSError as exc:
            _log.info("commit facts not kept (%s)", exc)


def _clean(author: str) -> str:
    return author.replace("\t", " ").replace("\n", " ").strip().lower()
