"""The files the agent's tools may read: the after side's listing and either side's bytes.

Every read goes to the side of the change the agent is reviewing: the "after" side is the commit,
the index or the working tree the change produces (``AfterSide``), never whatever happens to be
on disk for a commit range; the "before" side is the change's base. Files are only those git
lists for that side (so ignored files such as ``.env`` stay out of reach). Kept apart from what
each tool does (``tool_impl``) because several tools read files, and each kind of miss -- a
deleted or renamed file, a folder, a submodule, a symbolic link, a near-miss of a name, a change
from a patch file -- must be told to the model the same way, as a ``ToolError`` it can act on.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath

from reviewtui.agent.tool_context import ToolContext
from reviewtui.agent.tool_paths import ToolError
from reviewtui.context.search.side import AfterSide
from reviewtui.git.model import ChangeStatus, EntryKind, FileChange, Side, SideKind

__all__ = ["SideFiles", "is_binary", "side_label"]

_BINARY_PROBE = 8192


def side_label(side: Side) -> str:
    """How the tools name a side to the model: ``commit 1a2b3c4d5e6f (main)``, ``the index``."""
    if side.kind is SideKind.COMMIT:
        rev = (side.rev or "")[:12]
        return f"commit {rev} ({side.label})" if side.label and side.label != rev else \
            f"commit {rev}"
    return {
        SideKind.INDEX: "the index (staged)",
        SideKind.WORKTREE: "the working tree",
        SideKind.EMPTY: "the empty tree",
        SideKind.UNKNOWN: "a patch file",
    }[side.kind]


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:_BINARY_PROBE]


class SideFiles:
    """Both sides of one change, read for the tools; share one instance for a conversation."""

    def __init__(self, ctx: ToolContext, *, timeout: float, max_file_bytes: int) -> None:
        self._ctx = ctx
        self._max_file_bytes = max_file_bytes
        change_set = ctx.change_set
        self.new_side = change_set.new_side
        self.old_side = change_set.old_side
        self.after = AfterSide(ctx.repo, change_set, ctx.reader, timeout=timeout,
                               max_file_bytes=max_file_bytes)
        # The base side of files the change does not touch: the same reader on the old side.
        self._before = AfterSide(ctx.repo, replace(change_set, new_side=change_set.old_side,
                                                   files=()),
                                 ctx.reader, timeout=timeout, max_file_bytes=max_file_bytes)
        self._by_new: dict[str, FileChange] = {}
        self._by_old: dict[str, FileChange] = {}
        for change in change_set.files:
            if change.new_path is not None and change.status is not ChangeStatus.DELETE:
                self._by_new[change.new_path] = change
            if change.old_path is not None:
                self._by_old.setdefault(change.old_path, change)
        self._listing: list[str] | None = None
        self._listing_set: frozenset[str] = frozenset()

    @property
    def from_patch(self) -> bool:
        """The change comes from a patch file: only its diff is known, no file contents."""
        return self._ctx.repo is None or self.new_side.kind is SideKind.UNKNOWN

    def _require_contents(self) -> None:
        if self.from_patch:
            raise ToolError("file contents are not available: this change comes from a patch "
                            "file, not from the repository")

    def files(self) -> list[str] | None:
        """The after side's files (listed once per instance), None when unavailable."""
        if self._listing is None:
            listing = self.after.files()
            if listing is not None:
                self._listing_set = frozenset(listing)
                self._listing = listing
        return self._listing

    def require_listing(self) -> list[str]:
        """The after side's files, or a ``ToolError`` saying why they cannot be listed."""
        if self.from_patch:
            raise ToolError("this change comes from a patch file: the project's files are not "
                            "available, only the diff")
        listing = self.files()
        if listing is None:
            raise ToolError("could not list the files of the after side (git failed or timed "
                            "out); try again or read a changed file")
        return listing

    def _not_found(self, path: str, listing: list[str]) -> ToolError:
        prefix = path + "/"
        if any(name.startswith(prefix) for name in listing):
            return ToolError(f"{path!r} is a folder; list it with list_project_files "
                             f"(glob {prefix + '**'!r})")
        name = PurePosixPath(path).name
        similar = [f for f in listing if PurePosixPath(f).name == name][:3]
        hint = f"; did you mean {', '.join(repr(s) for s in similar)}?" if similar else \
            "; use list_project_files or search_in_project to find it"
        return ToolError(f"no file {path!r} on the after side ({side_label(self.new_side)})"
                         f"{hint}")

    def after_bytes(self, path: str) -> bytes:
        """``path`` as the change leaves it."""
        self._require_contents()
        change = self._by_new.get(path)
        if change is None:
            gone = self._by_old.get(path)
            if gone is not None and gone.status is ChangeStatus.DELETE:
                raise ToolError(f"{path!r} is deleted by this change; read its previous version "
                                "with side=\"before\"")
            if gone is not None and gone.status is ChangeStatus.RENAME:
                raise ToolError(f"{path!r} was renamed to {gone.new_path!r} by this change; read "
                                "that path, or side=\"before\" for the old version")
            listing = self.require_listing()
            if path not in self._listing_set:
                raise self._not_found(path, listing)
            data = self.after.content(path)
        else:
            if change.kind is EntryKind.SUBMODULE:
                raise ToolError(f"{path!r} is a submodule, not a file")
            data = self._ctx.reader.new(change)
            if change.kind is EntryKind.SYMLINK and data is not None:
                link = data.decode("utf-8", "replace")
                raise ToolError(f"{path!r} is a symbolic link to {link!r}; read the target "
                                "path instead (if it is inside the repository)")
        if data is None:
            raise ToolError(f"{path!r} cannot be read: larger than the "
                            f"{self._max_file_bytes:,}-byte limit, a submodule, or unreadable")
        return data

    def before_bytes(self, path: str) -> bytes:
        """``path`` as it was before the change (a renamed file under its old name too)."""
        self._require_contents()
        change = self._by_old.get(path)
        if change is None:
            renamed = self._by_new.get(path)
            if renamed is not None and renamed.old_path is not None and \
                    renamed.status is not ChangeStatus.COPY:
                change = renamed
            elif renamed is not None:
                raise ToolError(f"{path!r} is added by this change; it has no previous version")
        if change is not None:
            data = self._ctx.reader.old(change)
        elif self.old_side.kind in (SideKind.COMMIT, SideKind.INDEX):
            data = self._before.content(path)  # not changed: the base side's copy
        else:
            raise ToolError(f"no previous version of {path!r}: the change starts from "
                            f"{side_label(self.old_side)}")
        if data is None:
            raise ToolError(f"no file {path!r} on the before side "
                            f"({side_label(self.old_side)}), or it is too large to read")
        return data
