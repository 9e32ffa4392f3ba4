"""Read the "before" and "after" contents of changed files from the right place.

Blobs named in the diff are fetched in one ``git cat-file --batch`` call; files with no blob id
on a working-tree side are read from disk, confined to the repository root. A commit's "after"
side therefore always comes from the commit, never from the working tree.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from reviewtui.git.batch import batch_records
from reviewtui.git.model import ChangeSet, FileChange, SideKind

if TYPE_CHECKING:  # GitPython: only once a repository is opened
    from reviewtui.git.runner import GitRepo


def path_within(root: Path, relative: str) -> Path | None:
    """``root / relative`` with its folders resolved, or None if that leaves ``root``.

    ``root`` must be resolved. The last component is not resolved, so a symlink inside the
    repository is returned as itself (the caller decides whether to follow it).
    """
    candidate = root / relative
    try:
        parent = candidate.parent.resolve()
    except OSError:
        return None
    if parent != root and root not in parent.parents:
        return None
    return parent / candidate.name


_REPLACED = "\ufffd"


def _added_text(change: FileChange) -> bytes | None:
    """An untracked file's contents as its lines hold them: the file cannot be opened by its
    shown name when its real name is not UTF-8 (the bytes git listed were read at collection)."""
    lines = [line.text for hunk in change.hunks for line in hunk.lines]
    if not change.hunks:
        return None
    ending = "" if change.hunks[-1].new_missing_newline else "\n"
    return ("\n".join(lines) + ending).encode("utf-8", "surrogateescape")


class ContentReader:
    """Fetches file versions for a ``ChangeSet``; each version is read at most once."""

    def __init__(self, repo: GitRepo | None, change_set: ChangeSet, max_bytes: int) -> None:
        self._repo = repo
        self._set = change_set
        self._max = max_bytes
        self._blobs: dict[str, bytes | None] = {}
        self._sizes: dict[str, int | None] = {}

    @property
    def max_bytes(self) -> int:
        """Blobs larger than this (``git.max_file_bytes``) are not read."""
        return self._max

    def prefetch(self, changes: Iterable[FileChange], *, old: bool = True,
                 new: bool = True) -> None:
        """Load every blob the given changes will need (both sides, or one), in one git
        process."""
        wanted: list[str] = []
        for change in changes:
            if change.is_binary or change.kind.value != "file":
                continue
            for oid in (change.old_blob if old else None, change.new_blob if new else None):
                if oid and oid not in self._blobs:
                    wanted.append(oid)
                    self._blobs[oid] = None
        if wanted and self._repo is not None:
            self._blobs.update(self._cat_file(wanted))

    def _cat_file(self, oids: list[str]) -> dict[str, bytes | None]:
        assert self._repo is not None
        out = self._repo.run("cat-file", "--batch", stdin=("\n".join(oids) + "\n").encode())
        found: dict[str, bytes | None] = {}
        for oid, record in zip(oids, batch_records(out, len(oids)), strict=False):
            if record is None:
                found[oid] = None
                continue
            _, start, size = record
            found[oid] = out[start:start + size] if size <= self._max else None
        return found

    def old(self, change: FileChange) -> bytes | None:
        if change.old_path is None:
            return None
        return self._read(change.old_blob, change.old_path, self._set.old_side.kind)

    def new(self, change: FileChange) -> bytes | None:
        if change.new_path is None:
            return None
        data = self._read(change.new_blob, change.new_path, self._set.new_side.kind)
        if data is None and change.untracked and _REPLACED in change.new_path:
            data = _added_text(change)
        return data

    def _read(self, oid: str | None, path: str, side: SideKind) -> bytes | None:
        if oid:
            if oid not in self._blobs:
                self.prefetch_oids([oid])
            return self._blobs.get(oid)
        if side is SideKind.WORKTREE:
            return self._read_worktree(path)
        return None

    def prefetch_sizes(self, changes: Iterable[FileChange]) -> None:
        """Learn the byte sizes of the given changes' blobs in one ``cat-file --batch-check``.

        Cheap (no content is read): the context stage sizes a unit's bundle with it before
        deciding whether to read, parse and search anything for that unit.
        """
        wanted = [oid for change in changes if not change.is_binary
                  for oid in (change.old_blob, change.new_blob)
                  if oid and oid not in self._sizes and self._blobs.get(oid) is None]
        wanted = list(dict.fromkeys(wanted))
        if not wanted or self._repo is None:
            return
        out = self._repo.run("cat-file", "--batch-check",
                             stdin=("\n".join(wanted) + "\n").encode(), check=False)
        lines = out.decode("ascii", "replace").split("\n")
        for oid, line in zip(wanted, lines, strict=False):
            parts = line.split(" ")
            self._sizes[oid] = int(parts[2]) if len(parts) == 3 and parts[2].isdigit() else None

    def size(self, change: FileChange, side: str) -> int | None:
        """Bytes of the ``"old"`` or ``"new"`` version of ``change`` (None if unknown)."""
        if change.is_binary or change.kind.value != "file":
            return None
        path = change.new_path if side == "new" else change.old_path
        if path is None:
            return None
        oid = change.new_blob if side == "new" else change.old_blob
        if oid:
            data = self._blobs.get(oid)
            if data is not None:
                return len(data)
            if oid not in self._sizes:
                self.prefetch_sizes([change])
            return self._sizes.get(oid)
        kind = (self._set.new_side if side == "new" else self._set.old_side).kind
        if kind is not SideKind.WORKTREE:
            return None
        target = path_within(self._set.repo_root, path)
        try:
            return target.stat().st_size if target is not None and target.is_file() else None
        except OSError:
            return None

    def prefetch_oids(self, oids: list[str]) -> None:
        missing = [oid for oid in oids if oid not in self._blobs]
        if missing and self._repo is not None:
            self._blobs.update(self._cat_file(missing))

    def _read_worktree(self, path: str) -> bytes | None:
        target = path_within(self._set.repo_root, path)
        if target is None:
            return None
        try:
            if target.is_symlink():
                return str(target.readlink()).encode("utf-8", "surrogateescape")
            if target.stat().st_size > self._max:
                return None
            return target.read_bytes()
        except OSError:
            return None


class SideLines:
    """Lines of the change's files on either side, read once per file and side.

    ``line(path, "new", n)``: the after side (a deleted file's is its before side); ``"old"``:
    the before side. None past the end, or for a file the change does not hold.
    """

    def __init__(self, change_set: ChangeSet, reader: ContentReader) -> None:
        self._reader = reader
        self._by_path: dict[str, FileChange] = {}
        for change in change_set.files:
            for path in (change.old_path, change.new_path):
                if path:
                    self._by_path.setdefault(path, change)
        self._lines: dict[tuple[str, str], list[str]] = {}

    def data(self, path: str) -> bytes | None:
        """The bytes of ``path`` on the after side (None: deleted, binary, too large, or not
        part of the change)."""
        change = self._by_path.get(path)
        if change is None or change.new_path != path or change.is_binary:
            return None
        return self._reader.new(change)

    def line(self, path: str, side: str, number: int) -> str | None:
        lines = self._lines.get((side, path))
        if lines is None:
            change = self._by_path.get(path)
            data = None
            if change is not None:
                use_new = side == "new" and change.new_path == path
                data = self._reader.new(change) if use_new else self._reader.old(change)
            lines = data.decode("utf-8", "replace").split("\n") if data is not None else []
            self._lines[(side, path)] = lines
        return lines[number - 1] if 0 < number <= len(lines) else None

    def after(self, path: str, number: int) -> str | None:
        return self.line(path, "new", number)
