"""Files untracked in place (``git rm --cached f``): one deletion, kept on disk.

The next commit deletes such a file from the repository while it stays on disk, untracked (or
ignored: the usual way to stop tracking a ``.env`` committed by mistake). Against the working
tree git shows it twice -- ``git diff HEAD`` as deleted (HEAD has it, the index does not) and
``ls-files --others`` as a new file -- which read as "f replaced by a new f" of the very same
lines; against the index (``--working``) only as a new file, which it is not. Here every view
shows the deletion the commit makes, once, flagged ``untracked`` (``FileChange.kept_on_disk``),
and the untracked addition of the same path is left out.

Only deletions are looked at on disk (one ``lstat`` each); ``--working`` asks git for HEAD's
deletions only when there are untracked files.
"""

from __future__ import annotations

import dataclasses
import stat
from collections.abc import Callable

from reviewtui.git.model import ChangeStatus, EntryKind, FileChange
from reviewtui.git.runner import GitRepo


def _on_disk(repo: GitRepo, change: FileChange) -> bool:
    """Whether the deleted ``change``'s path is still on disk as what it was: a folder for a
    submodule, a file or a symlink otherwise."""
    try:
        info = (repo.root / (change.old_path or "")).lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) == (change.kind is EntryKind.SUBMODULE)


def listed_untracked(change: FileChange) -> bool:
    """Whether ``change`` is an untracked file's addition (listed after the tracked files)."""
    return change.untracked and not change.kept_on_disk


def _staged_deletions(repo: GitRepo, paths: set[str],
                      diff: Callable[..., list[FileChange]]) -> list[FileChange]:
    """HEAD's deletions in the index among ``paths``, each kept on disk (none before the
    first commit; ``diff``: ``collect.diff_files``, which calls this module)."""
    out = repo.try_run("diff-index", "--cached", "-z", "--name-only", "--no-renames",
                       "--diff-filter=D", "HEAD", "--")
    names = sorted({raw.decode("utf-8", "replace") for raw in (out or b"").split(b"\0")
                    if raw} & paths)
    if not names:
        return []
    return [dataclasses.replace(change, untracked=True)
            for change in diff(repo, "HEAD", cached=True,
                               paths=[f":(literal){p}" for p in names])
            if change.status is ChangeStatus.DELETE]


def fold_kept_on_disk(repo: GitRepo, files: list[FileChange],
                      diff: Callable[..., list[FileChange]], *,
                      against_index: bool = False) -> list[FileChange]:
    """``files`` with each deletion of a file still on disk flagged ``untracked`` and the
    untracked addition of its path left out. ``against_index`` (``--working``: git shows no
    deletion there), HEAD's deletions in the index of untracked files are added first."""
    adds = {c.path for c in files if listed_untracked(c)}
    kept: list[FileChange] = []
    if against_index and adds:
        kept = _staged_deletions(repo, adds, diff)
    marked = {i: dataclasses.replace(c, untracked=True) for i, c in enumerate(files)
              if c.status is ChangeStatus.DELETE and not c.untracked and _on_disk(repo, c)}
    if not kept and not marked:
        return files
    gone = {c.path for c in kept} | {c.path for c in marked.values()}
    tracked = [marked.get(i, c) for i, c in enumerate(files) if not listed_untracked(c)]
    if kept:  # among the tracked files, in path order (as a refresh lists them)
        tracked = sorted([*tracked, *kept], key=lambda c: c.path)
    return tracked + [c for c in files if listed_untracked(c) and c.path not in gone]
