"""What ``reviewtui --watch`` watches: the working tree, and the few git files the change reads.

Edits in the working tree are not the only thing that moves a change: ``git add`` rewrites the
index (a ``--staged`` review), ``git commit`` moves ``HEAD``'s branch (``--all``, ``--base``, the
automatic choice), ``git checkout`` and ``git stash`` rewrite ``HEAD``, the index and files. A
filter that drops everything under ``.git/`` misses all of them; one that keeps everything there
refreshes on every object git writes (``objects/``, ``logs/``, lock files, ``COMMIT_EDITMSG``).

So the filter keeps, from the git directories, exactly: ``index`` and ``HEAD`` of this worktree's
git directory, ``packed-refs``, the branch ``HEAD`` points at (read from ``HEAD`` on each event:
after a checkout it is another one), and — for the automatic choice and ``--base`` — the refs the
base may be (``main``, ``master``, ``origin/HEAD``, the named base, under ``refs/heads``,
``refs/remotes`` and ``refs/tags``). Everything else in them, ``objects/`` first, is dropped, and
working-tree paths go through watchfiles' ``DefaultFilter`` as before. A linked worktree's git
directory and the shared ``refs/`` lie outside the working tree: they are watched as extra paths
(not the shared directory itself, whose ``objects/`` would be watched with it). Git writes a file
as ``X.lock`` then renames it to ``X``; the rename is the event that counts, the lock is dropped.

No Textual here: the workbench's watcher thread hands ``paths()`` and this filter to
``watchfiles.watch``, whose debounce folds the files of one git command into one refresh.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from watchfiles import Change, DefaultFilter

from reviewtui.git.selector import DEFAULT_BRANCH_CANDIDATES

__all__ = ["RepositoryWatch", "base_refs"]

WORKTREE_FILES = frozenset({"HEAD", "index"})  # in the worktree's own git directory
REF_ROOTS = ("refs/heads/", "refs/remotes/", "refs/tags/")


def base_refs(*names: str | None) -> tuple[str, ...]:
    """The ref files a base named ``names`` (or the default branch) may live in."""
    wanted = [n for n in names if n] + [*DEFAULT_BRANCH_CANDIDATES, "origin/HEAD"]
    refs: list[str] = []
    for name in dict.fromkeys(wanted):
        refs += [name] if name.startswith("refs/") else [f"{root}{name}" for root in REF_ROOTS]
    return tuple(refs)


class RepositoryWatch:
    """A ``watch_filter`` for ``watchfiles.watch`` over ``paths()``."""

    def __init__(self, root: Path, git_dir: Path, common_dir: Path,
                 refs: Iterable[str] = ()) -> None:
        self.root = root
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.refs = frozenset(refs)  # ref files besides HEAD's branch, relative to common_dir
        self._worktree = DefaultFilter()

    def paths(self) -> list[Path]:
        """What to hand ``watchfiles.watch``: the working tree, and the git directories that
        are not inside it (a linked worktree's)."""
        paths = [self.root]
        for extra in (self.git_dir, self.common_dir / "refs"):
            if not extra.is_relative_to(self.root) and extra.is_dir() and extra not in paths:
                paths.append(extra)
        return paths

    def head_ref(self) -> str | None:
        """The ref ``HEAD`` points at now (``refs/heads/main``), None when detached."""
        try:
            text = (self.git_dir / "HEAD").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        return text[5:].strip() if text.startswith("ref: ") else None

    def wanted(self, path: Path) -> bool | None:
        """Does a change of ``path`` in a git directory move the change? None: ``path`` is not
        in one."""
        in_git, in_common = path.is_relative_to(self.git_dir), path.is_relative_to(
            self.common_dir)
        if not (in_git or in_common):
            return None
        if in_git and path.relative_to(self.git_dir).as_posix() in WORKTREE_FILES:
            return True
        if not in_common:
            return False
        name = path.relative_to(self.common_dir).as_posix()
        return name == "packed-refs" or name in self.refs or name == self.head_ref()

    def __call__(self, change: Change, path: str) -> bool:
        verdict = self.wanted(Path(path))
        return self._worktree(change, path) if verdict is None else verdict
