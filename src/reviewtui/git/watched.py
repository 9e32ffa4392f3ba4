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
working-tree paths go through watchfiles' ``DefaultFilter`` as before. Git writes a file as
``X.lock`` then renames it to ``X``; the rename is the event that counts, the lock is dropped.

Filtering alone would still *watch* ``objects/``: a recursive watch of the working tree puts a
watch on every folder of ``.git`` too. So ``watch_repository`` runs two watchers:
a recursive one over the working tree's top-level folders (not ``.git``, not the folders
``DefaultFilter`` ignores) and the shared ``refs/``, and a shallow one over the working tree's
top level and the git directories themselves (``index``, ``HEAD``, ``packed-refs`` are files
directly in them). A top-level folder created or removed restarts the recursive watcher over
the new list. Each watcher debounces; batches of the two that arrive together (one ``git
commit`` touches the index and a branch) are folded into one.

No Textual here: the workbench's watcher thread iterates ``watch_repository`` and refreshes on
each batch.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from watchfiles import Change, DefaultFilter, watch

from reviewtui.git.selector import DEFAULT_BRANCH_CANDIDATES

__all__ = ["RepositoryWatch", "base_refs", "watch_repository"]

Batch = set[tuple[Change, str]]

WORKTREE_FILES = frozenset({"HEAD", "index"})  # in the worktree's own git directory
REF_ROOTS = ("refs/heads/", "refs/remotes/", "refs/tags/")
FOLD_SECONDS = 0.1  # batches of the two watchers this close together are one


def base_refs(*names: str | None) -> tuple[str, ...]:
    """The ref files a base named ``names`` (or the default branch) may live in."""
    wanted = [n for n in names if n] + [*DEFAULT_BRANCH_CANDIDATES, "origin/HEAD"]
    refs: list[str] = []
    for name in dict.fromkeys(wanted):
        refs += [name] if name.startswith("refs/") else [f"{root}{name}" for root in REF_ROOTS]
    return tuple(refs)


class RepositoryWatch:
    """The folders ``watch_repository`` watches, and the ``watch_filter`` for both of its
    watchers."""

    def __init__(self, root: Path, git_dir: Path, common_dir: Path,
                 refs: Iterable[str] = ()) -> None:
        self.root = root
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.refs = frozenset(refs)  # ref files besides HEAD's branch, relative to common_dir
        self._worktree = DefaultFilter()

    def tree_paths(self) -> list[Path]:
        """The recursive watch: the working tree's top-level folders (not ``.git``, not the
        ones ``DefaultFilter`` ignores) and the shared ``refs/``."""
        ignored = set(DefaultFilter.ignore_dirs)
        try:
            entries = sorted(self.root.iterdir())
        except OSError:
            entries = []
        folders = [p for p in entries if p.name not in ignored and p.is_dir()
                   and not p.is_symlink()]
        return [*folders, self.common_dir / "refs"]

    def shallow_paths(self) -> list[Path]:
        """The watch of folders without their subfolders: the working tree's top level (its
        files, folders coming and going) and the git directories (index, HEAD, packed-refs)."""
        return list(dict.fromkeys([self.root, self.git_dir, self.common_dir]))

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


class _Either:
    """A stop event for watchfiles that is set when any of its events is."""

    def __init__(self, *events: threading.Event) -> None:
        self.events = events

    def is_set(self) -> bool:
        return any(event.is_set() for event in self.events)


def _pump(name: str, paths: list[Path], recursive: bool, spec: RepositoryWatch,
          stop: _Either, debounce_ms: int, out: queue.Queue[tuple[str, Batch]]) -> None:
    try:
        for changes in watch(*paths, watch_filter=spec, recursive=recursive, stop_event=stop,
                             debounce=debounce_ms, raise_interrupt=False,
                             ignore_permission_denied=True):
            out.put((name, changes))
    except (OSError, RuntimeError):  # a folder went away before it was watched: start again
        if not stop.is_set():
            time.sleep(0.2)
            out.put((name + " failed", set()))


def _reshapes(spec: RepositoryWatch, changes: Batch, tree: list[Path]) -> bool:
    """Did a top-level folder of the working tree come or go (the tree watch must change)?"""
    for change, raw in changes:
        path = Path(raw)
        if path.parent != spec.root:
            continue
        if (change == Change.added and path.is_dir()) or (change == Change.deleted
                                                          and path in tree):
            return True
    return False


def watch_repository(spec: RepositoryWatch, stop: threading.Event, *,
                     debounce_ms: int) -> Iterator[Batch]:
    """Batches of changes that may move the change, until ``stop`` is set (see the module)."""
    out: queue.Queue[tuple[str, Batch]] = queue.Queue()
    done = threading.Event()

    def start(name: str, paths: list[Path], recursive: bool,
              own: threading.Event) -> threading.Thread:
        thread = threading.Thread(target=_pump, name=f"reviewtui-watch-{name}", daemon=True,
                                  args=(name, paths, recursive, spec, _Either(stop, done, own),
                                        debounce_ms, out))
        thread.start()
        return thread

    tree = spec.tree_paths()
    tree_stop = threading.Event()
    start("shallow", spec.shallow_paths(), False, threading.Event())
    start("tree", tree, True, tree_stop)
    try:
        while not stop.is_set():
            try:
                name, changes = out.get(timeout=0.1)
            except queue.Empty:
                continue
            batch: Batch = set()
            while True:
                if name == "tree failed" or (name == "shallow" and _reshapes(spec, changes,
                                                                             tree)):
                    tree_stop.set()
                    tree, tree_stop = spec.tree_paths(), threading.Event()
                    start("tree", tree, True, tree_stop)
                elif name == "shallow failed":
                    start("shallow", spec.shallow_paths(), False, threading.Event())
                batch |= changes
                try:
                    name, changes = out.get(timeout=FOLD_SECONDS)
                except queue.Empty:
                    break
            if batch and not stop.is_set():
                yield batch
    finally:
        done.set()
