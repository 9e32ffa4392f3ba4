"""What the change is *for*: its commit messages, branch name and the person's description.

Every human reviewer starts from the stated purpose, and most review bugs are "it does not do
what it says" or "it does more than it says". ``gather_intent`` is the one entry point (the CLI
and the workbench both call it, through ``LoadedChange.with_intent``): the subjects and bodies of
the change's commits (``--commit``, ``--range``, ``--base``, or auto mode on a clean branch),
most recent first, trailers such as ``Fixes: #12``, ``Closes #3`` or ``Co-authored-by:`` parsed
out of the body and the linked issues gathered from them, the branch name, and a description
(``--description``, the workbench's ``i``, or ``[review] description``). A working-tree,
staged or patch change has no commits: its description is all there is.

Everything is redacted (``llm.redact``) as it is read, so no later stage can leak a key planted
in a commit body. At most ``MAX_COMMITS_READ`` messages are read; the count is always exact.
``git.intent_text`` renders it under a token budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reviewtui.git.model import ChangeSet, SideKind
from reviewtui.llm.redact import redact_secrets

if TYPE_CHECKING:  # GitPython: only once a repository is opened
    from reviewtui.git.runner import GitRepo

MAX_COMMITS_READ = 1_000  # messages read in full; a longer range is counted, not read
_TRAILER = re.compile(r"^([A-Za-z][A-Za-z0-9-]{0,40})\s*:\s+(\S.*)$")
_KEYWORD = re.compile(
    r"\b(?P<verb>(?i:fix(?:e[sd])?|close[sd]?|resolve[sd]?))\s*:?\s+"
    r"(?P<ref>(?:[\w.-]+/[\w.-]+)?#\d+|https?://\S+/(?:issues|pull|merge_requests)/\d+)")
_ISSUE_KEYS = frozenset({"fixes", "fix", "fixed", "closes", "close", "closed", "resolves",
                         "resolve", "resolved", "refs", "ref", "references", "see-also",
                         "related-to", "issue"})
_ISSUE_REF = re.compile(r"(?:[\w.-]+/[\w.-]+)?#\d+|https?://\S+/(?:issues|pull|merge_requests)/\d+")


@dataclass(frozen=True, slots=True)
class Trailer:
    key: str  # as written: "Fixes", "Co-authored-by"
    value: str


@dataclass(frozen=True, slots=True)
class CommitMessage:
    sha: str
    subject: str  # the first line ("" for an empty message)
    body: str  # the rest, trailers taken out
    trailers: tuple[Trailer, ...] = ()
    merge: bool = False  # more than one parent

    @property
    def short(self) -> str:
        return self.sha[:10]


@dataclass(frozen=True, slots=True)
class ChangeIntent:
    """The change's stated purpose, as gathered once per change (see the module docstring)."""

    commits: tuple[CommitMessage, ...] = ()  # most recent first, at most MAX_COMMITS_READ
    total_commits: int = 0  # every commit of the change, read or not
    branch: str | None = None
    description: str | None = None
    description_source: str | None = None  # "--description", "workbench" or "config"

    @property
    def is_empty(self) -> bool:
        return not self.commits and not self.description and not self.branch

    @property
    def issues(self) -> tuple[str, ...]:
        """Linked issues (``#12``, ``org/repo#3``, issue URLs), each once, in the order
        found: closing keywords anywhere in a message or the description, and the values of
        trailers such as ``Fixes``, ``Closes``, ``Refs``."""
        found: list[str] = []
        texts = [self.description or ""]
        for commit in self.commits:
            texts += [commit.subject, commit.body]
            for trailer in commit.trailers:
                if trailer.key.lower() in _ISSUE_KEYS:
                    found += _ISSUE_REF.findall(trailer.value)
        for text in texts:
            found += [m.group("ref") for m in _KEYWORD.finditer(text)]
        return tuple(dict.fromkeys(found))

    def headline(self) -> str:
        """One line: the description's first line, else the latest commit's subject; then the
        number of commits, the branch and the linked issues."""
        first = next((line.strip() for line in (self.description or "").splitlines()
                      if line.strip()), "")
        if not first and self.commits:
            first = self.commits[0].subject or "(empty commit message)"
        parts = [first] if first else []
        if self.total_commits > 1:
            parts.append(f"{self.total_commits} commits")
        if self.branch:
            parts.append(f"branch {self.branch}")
        issues = self.issues
        if issues:
            more = f" +{len(issues) - 3}" if len(issues) > 3 else ""
            parts.append("issues " + ", ".join(issues[:3]) + more)
        return " · ".join(parts) if parts else "no stated purpose (no commits, no description)"


def split_message(text: str) -> tuple[str, str, tuple[Trailer, ...]]:
    """(subject, body, trailers) of a commit message. Trailers are the last paragraph when
    every line of it is ``Key: value`` or a closing keyword (``Fixes #12``); continuation
    lines (indented) belong to the trailer above."""
    lines = text.replace("\r\n", "\n").strip("\n").split("\n")
    subject = lines[0].strip() if lines else ""
    rest = "\n".join(lines[1:]).strip("\n")
    paragraphs = re.split(r"\n\s*\n", rest) if rest.strip() else []
    trailers: list[Trailer] = []
    if paragraphs:
        last = paragraphs[-1].split("\n")
        parsed: list[Trailer] = []
        for line in last:
            if line[:1] in (" ", "\t") and parsed:
                parsed[-1] = Trailer(parsed[-1].key, f"{parsed[-1].value} {line.strip()}")
                continue
            trailer = _TRAILER.match(line.strip())
            keyword = _KEYWORD.fullmatch(line.strip())
            if trailer is not None:
                parsed.append(Trailer(trailer.group(1), trailer.group(2).strip()))
            elif keyword is not None:
                parsed.append(Trailer(keyword.group("verb").capitalize(), keyword.group("ref")))
            else:
                parsed = []
                break
        if parsed:
            trailers = parsed
            paragraphs = paragraphs[:-1]
    return subject, "\n\n".join(paragraphs).strip(), tuple(trailers)


def _commit_range(change_set: ChangeSet) -> list[str] | None:
    """The revisions ``git log`` walks for this change; None when it has no commits."""
    new, old = change_set.new_side, change_set.old_side
    if new.kind is not SideKind.COMMIT or not new.rev:
        return None
    if old.kind is SideKind.COMMIT and old.rev:
        return [f"^{old.rev}", new.rev]
    return [new.rev]  # against the empty tree: a root commit (and its ancestors, none)


def _branch(repo: GitRepo, change_set: ChangeSet) -> str | None:
    new = change_set.new_side
    label = new.label or ""
    if new.kind is SideKind.COMMIT and label and label != "HEAD":
        if label.startswith("-") or not repo.try_run(
                "rev-parse", "--verify", "--quiet", f"refs/heads/{label}"):
            return None
        return label
    if new.kind is SideKind.UNKNOWN:
        return None
    out = repo.try_run("symbolic-ref", "--quiet", "--short", "HEAD")
    return out.decode("utf-8", "replace").strip() or None if out else None


def _read_commits(repo: GitRepo, revs: list[str], limit: int) -> list[CommitMessage]:
    """The messages, most recent first; none when git cannot walk the range (a shallow
    clone's missing history): the stated purpose never stops a review."""
    raw = repo.try_run("-c", "log.showSignature=false", "log", "--no-color", "-z",
                       f"--max-count={limit}", "--format=%H %P%n%B", *revs, "--")
    if raw is None:
        return []
    commits: list[CommitMessage] = []
    for record in raw.split(b"\0"):
        if not record.strip():
            continue
        head, _, message = record.partition(b"\n")
        ids = head.decode("ascii", "replace").split()
        if not ids:
            continue
        text = redact_secrets(message.decode("utf-8", "replace"))
        subject, body, trailers = split_message(text)
        commits.append(CommitMessage(ids[0], subject, body, trailers, merge=len(ids) > 2))
    return commits


def gather_intent(repo: GitRepo | None, change_set: ChangeSet, *,
                  description: str | None = None, description_source: str | None = None,
                  max_commits: int = MAX_COMMITS_READ) -> ChangeIntent:
    """The stated purpose of ``change_set``: its commits' messages (most recent first, at
    most ``max_commits`` read, all counted), the branch, and ``description`` — every text
    redacted. ``repo`` None (a patch outside a repository): the description alone."""
    text = redact_secrets(description).strip() if description and description.strip() else None
    source = description_source if text else None
    if repo is None:
        return ChangeIntent(description=text, description_source=source)
    revs = _commit_range(change_set)
    commits: list[CommitMessage] = []
    total = 0
    if revs is not None:
        counted = repo.try_run("rev-list", "--count", *revs, "--")
        total = int(counted.strip() or 0) if counted else 0
        commits = _read_commits(repo, revs, max(1, max_commits)) if total else []
        total = max(total, len(commits))
    branch = _branch(repo, change_set)
    return ChangeIntent(tuple(commits), total, redact_secrets(branch) if branch else None,
                        text, source)
