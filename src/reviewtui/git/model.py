"""The change model: what the git stage hands to every later stage.

Plain frozen dataclasses: a ``ChangeSet`` is a list of ``FileChange`` (one per changed path) with
their ``Hunk``s, plus where the two sides of the comparison come from so later stages can read
the "before" and "after" file contents without guessing (never the working tree for a commit).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path


class ChangeStatus(StrEnum):
    ADD = "add"
    MODIFY = "modify"
    DELETE = "delete"
    RENAME = "rename"
    COPY = "copy"


class EntryKind(StrEnum):
    FILE = "file"
    SYMLINK = "symlink"
    SUBMODULE = "submodule"


class SideKind(StrEnum):
    COMMIT = "commit"  # a commit's tree
    INDEX = "index"  # the staging area
    WORKTREE = "worktree"  # files on disk
    EMPTY = "empty"  # nothing (root commit's parent)
    UNKNOWN = "unknown"  # a foreign patch: we do not know where it came from


@dataclass(frozen=True, slots=True)
class Side:
    """One side of the comparison."""

    kind: SideKind
    rev: str | None = None  # full commit id for COMMIT
    label: str | None = None  # what the user called it (branch name, "HEAD", ...)

    def describe(self) -> str:
        if self.kind is SideKind.COMMIT:
            return self.label or (self.rev or "")[:12]
        return self.label or self.kind.value


@dataclass(frozen=True, slots=True)
class DiffLine:
    kind: str  # "+", "-" or " "
    text: str  # without the marker and without the line terminator
    old_no: int | None
    new_no: int | None


_new = object.__new__
_set_kind, _set_text, _set_old, _set_new = (  # the slots' descriptors
    getattr(DiffLine, name).__set__ for name in ("kind", "text", "old_no", "new_no"))


def diff_line(kind: str, text: str, old_no: int | None, new_no: int | None) -> DiffLine:
    """``DiffLine(kind, text, old_no, new_no)``, built through its slots' descriptors: about
    twice as fast as the frozen dataclass' constructor, for the quarter of a million lines of
    a large diff (parsed, or read back from a snapshot)."""
    line: DiffLine = _new(DiffLine)
    _set_kind(line, kind)
    _set_text(line, text)
    _set_old(line, old_no)
    _set_new(line, new_no)
    return line


@dataclass(frozen=True, slots=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    section: str  # git's function-context text after the second "@@"
    # a tuple, or read from a snapshot when first used (``analysis.stored_lines``)
    lines: Sequence[DiffLine]
    old_missing_newline: bool = False
    new_missing_newline: bool = False

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.kind == "+")

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.kind == "-")

    @property
    def new_end(self) -> int:
        return self.new_start + max(self.new_count, 1) - 1

    @property
    def old_end(self) -> int:
        return self.old_start + max(self.old_count, 1) - 1


@dataclass(frozen=True, slots=True)
class FileChange:
    status: ChangeStatus
    old_path: str | None  # None when the file is new
    new_path: str | None  # None when the file was deleted
    old_mode: str | None = None
    new_mode: str | None = None
    old_blob: str | None = None  # object id readable with cat-file; None for worktree/unknown
    new_blob: str | None = None
    similarity: int | None = None
    is_binary: bool = False
    non_utf8: bool = False
    too_large: bool = False
    untracked: bool = False  # an untracked file, or (deleted) one that stays on disk untracked
    hunks: tuple[Hunk, ...] = ()
    unreadable: bool = False  # an untracked file that could not be read: listed, not reviewed
    # binary because a gitattribute (``-diff``, ``binary``) says so, not by its content
    binary_by_attribute: bool = False

    @property
    def path(self) -> str:
        """The path a reviewer knows the file by: the new path unless deleted."""
        return self.new_path or self.old_path or ""

    @property
    def kept_on_disk(self) -> bool:
        """A deletion from the repository of a file that stays on disk, untracked (``git rm
        --cached``: see ``git.kept_on_disk``)."""
        return self.untracked and self.status is ChangeStatus.DELETE

    @property
    def kind(self) -> EntryKind:
        mode = self.new_mode or self.old_mode or ""
        if mode == "120000":
            return EntryKind.SYMLINK
        if mode == "160000":
            return EntryKind.SUBMODULE
        return EntryKind.FILE

    @property
    def mode_changed(self) -> bool:
        return bool(
            self.old_mode and self.new_mode and self.old_mode != self.new_mode
            and self.status in (ChangeStatus.MODIFY, ChangeStatus.RENAME)
        )


@dataclass(frozen=True, slots=True)
class ChangeSet:
    repo_root: Path
    mode: str  # staged | working | all | pr | commit | range | patch
    old_side: Side
    new_side: Side
    base_branch: str | None = None
    files: tuple[FileChange, ...] = field(default_factory=tuple)

    @property
    def is_empty(self) -> bool:
        return not self.files

    @property
    def key(self) -> str:
        """Which change this is: the mode and the two sides (commit ids when known). A patch's
        sides are only its name ("standard input"), so its content is part of its key: two
        different patches piped in were one session, the second continuing the first's
        conversation and findings."""
        old = self.old_side.rev or self.old_side.describe()
        new = self.new_side.rev or self.new_side.describe()
        key = f"{self.mode}:{old}..{new}"
        return f"{key}#{_content_digest(self.files)}" if self.mode == "patch" else key


def _content_digest(files: Sequence[FileChange]) -> str:
    """12 hex digits naming what ``files`` change: paths, modes and every hunk's lines."""
    digest = hashlib.sha256()
    for change in files:
        digest.update("\0".join((change.status.value, change.old_path or "",
                                  change.new_path or "", change.old_mode or "",
                                  change.new_mode or "", str(change.is_binary))).encode(
            "utf-8", "surrogateescape"))
        for hunk in change.hunks:
            digest.update(f"\n@{hunk.old_start},{hunk.old_count},{hunk.new_start},"
                          f"{hunk.new_count}\n".encode())
            digest.update("\n".join(line.kind + line.text for line in hunk.lines).encode(
                "utf-8", "surrogateescape"))
    return digest.hexdigest()[:12]
