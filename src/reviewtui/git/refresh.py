"""Collect a working-tree change again, diffing only the files that changed since.

The workbench's ``r`` (and ``--watch``) re-collects the change after the person edits a file.
Running the whole ``git diff`` again costs as much as the first time (about 0.2 s for 900
files), so instead:

* every file of the change is *stamped* when it is collected (``lstat``: mtime, ctime, size,
  inode, mode), the way git's own index works;
* on refresh, the cheap listings (``git diff-index --name-only`` or ``git diff-files``, and
  ``ls-files --others`` for untracked files) say which paths differ from the base now;
* a path is diffed again when it joined or left that list, or its stamp changed, or its stamp
  was *racy* (modified within ``RACY_NS`` of the collection that stamped it: an edit in the
  same instant would not have changed the stamp);
* everything else keeps the ``FileChange`` it had.

Only a working-tree side against ``HEAD`` (``all``) or the index (``working``) is refreshed this
way, and only while ``HEAD`` (or the index file) is what it was; anything else, and a change
touching more than ``MAX_PATHS`` paths, returns ``None``: collect it whole.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from reviewtui.git.collect import diff_files
from reviewtui.git.kept_on_disk import fold_kept_on_disk, listed_untracked
from reviewtui.git.model import ChangeSet, FileChange, SideKind
from reviewtui.git.runner import GitRepo
from reviewtui.git.untracked import untracked_change, untracked_names

RACY_NS = 2_000_000_000  # coarse file systems keep mtimes in whole seconds (FAT: two)
MAX_PATHS = 256  # beyond this one whole diff is as cheap as many pathspecs

Stamp = tuple[int, int, int, int, int] | None  # mtime_ns, ctime_ns, size, inode, mode


def stamp(path: Path | str) -> Stamp:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino, info.st_mode)


@dataclass(frozen=True)
class WorktreeStamps:
    """What the files of a collected change looked like on disk when they were read."""

    taken_ns: int  # the wall clock before git was asked (an edit after it may be missed)
    files: Mapping[str, Stamp]
    base: Stamp = None  # the index file, for a change against the index

    def dirty(self, root: Path, path: str) -> bool:
        if path not in self.files:
            return True
        old = self.files[path]  # None: it was missing (deleted) then
        if stamp(f"{root}/{path}") != old:
            return True
        return old is not None and old[0] >= self.taken_ns - RACY_NS


def _paths(change: FileChange) -> set[str]:
    return {p for p in (change.old_path, change.new_path) if p}


def _index_path(repo: GitRepo) -> Path:
    return repo.git_dir / "index"


def stamp_change(repo: GitRepo, change_set: ChangeSet, taken_ns: int,
                 extra: Iterable[str] = ()) -> WorktreeStamps | None:
    """Stamps for a working-tree change collected after ``taken_ns`` (None: not one)."""
    if change_set.new_side.kind is not SideKind.WORKTREE or change_set.mode not in (
            "all", "working"):
        return None
    paths = {p for change in change_set.files for p in _paths(change)} | set(extra)
    base = stamp(_index_path(repo)) if change_set.mode == "working" else None
    return WorktreeStamps(taken_ns, {p: stamp(repo.root / p) for p in paths}, base)


@dataclass(frozen=True)
class Recollected:
    change_set: ChangeSet
    stamps: WorktreeStamps
    changed: frozenset[str]  # the paths diffed again (possibly now out of the change)


def _listed(repo: GitRepo, change_set: ChangeSet,
            untracked: bool) -> tuple[set[str], dict[str, str]]:
    """Paths that differ from the base now (a superset: stat-dirty files too), and the
    untracked ones (each to its name on disk: ``untracked_names``)."""
    with ThreadPoolExecutor(max_workers=1) as pool:  # both listings at once
        listing = pool.submit(repo.run, "ls-files", "--others", "--exclude-standard",
                              "-z") if untracked else None
        if change_set.mode == "working":
            out = repo.run("diff-files", "-z", "--name-only", "--ignore-submodules=none")
        else:
            assert change_set.old_side.rev is not None
            out = repo.run("diff-index", "-z", "--name-only", "--ignore-submodules=none",
                           change_set.old_side.rev, "--")
        tracked = {raw.decode("utf-8", "replace") for raw in out.split(b"\0") if raw}
        others = untracked_names(listing.result()) if listing is not None else {}
    return tracked, others


def recollect(repo: GitRepo, previous: ChangeSet, stamps: WorktreeStamps, *,
              include_untracked: bool, max_file_bytes: int) -> Recollected | None:
    """``previous`` collected again, diffing only what changed; None: collect it whole."""
    if previous.new_side.kind is not SideKind.WORKTREE:
        return None
    taken_ns = time.time_ns()
    if previous.mode == "all":
        if previous.old_side.rev is None or repo.try_resolve("HEAD") != previous.old_side.rev:
            return None
    elif previous.mode != "working" or stamp(_index_path(repo)) != stamps.base:
        return None
    tracked, others = _listed(repo, previous, include_untracked)
    if not tracked and not others:
        return None  # a clean tree: the automatic mode would pick another change
    before = {p for change in previous.files for p in _paths(change)}
    before_tracked = {p for change in previous.files if not listed_untracked(change)
                      for p in _paths(change)}
    now = tracked | others.keys()
    changed = (now ^ before) | {p for p in now & before if stamps.dirty(repo.root, p)}
    for change in previous.files:  # a rename is diffed with both of its paths or not at all
        if len(_paths(change)) > 1 and _paths(change) & changed:
            changed |= _paths(change)
    if len(changed) > MAX_PATHS:
        return None
    kept = [change for change in previous.files if not _paths(change) & changed]
    fresh: list[FileChange] = []
    pathspecs = sorted(changed & (tracked | before_tracked))
    if pathspecs:
        revs = () if previous.mode == "working" else (previous.old_side.rev or "",)
        fresh = diff_files(repo, *revs, paths=[f":(literal){p}" for p in pathspecs])
    new_untracked = [c for c in (untracked_change(repo, p, max_file_bytes, name=others[p])
                                 for p in sorted(changed & others.keys())) if c is not None]
    files = sorted([c for c in kept if not listed_untracked(c)] + fresh,
                   key=lambda c: c.path) + sorted(
        [c for c in kept if listed_untracked(c)] + new_untracked, key=lambda c: c.path)
    files = fold_kept_on_disk(repo, files, diff_files,
                              against_index=previous.mode == "working" and bool(new_untracked))
    change_set = ChangeSet(previous.repo_root, previous.mode, previous.old_side,
                           previous.new_side, previous.base_branch, tuple(files))
    listed = {p for change in files for p in _paths(change)}
    restamped = {p: s for p, s in stamps.files.items() if p in listed and p not in changed}
    restamped.update((p, stamp(repo.root / p)) for p in changed if p in listed)
    base = stamp(_index_path(repo)) if previous.mode == "working" else None
    return Recollected(change_set, WorktreeStamps(taken_ns, restamped, base),
                       frozenset(changed))

