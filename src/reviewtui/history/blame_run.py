"""``git blame`` that the person's ``blame.ignoreRevsFile`` can neither stop nor steer.

Projects ask their contributors to set ``blame.ignoreRevsFile = .git-blame-ignore-revs``, and
many set it globally. git reads the name relative to the folder it runs in and stops with
"could not open object name list" where there is no such file, so every blame in those
repositories failed: ``eval`` found no case and the priority order silently lost its history.
Where the file exists it moves the blame off the commits it lists, which ``eval``'s cached
cases and the history's cached features do not account for. The setting is a list that no
command-line option can empty (git opens every file it names before an empty name clears them),
so blame runs, when the setting is there, from a private empty folder with ``GIT_DIR`` pointing
at the repository: each relative name it lists is an empty file there. (An absolute name is
read as given: it exists or blame fails as git's own would.)

A unit names a file whose name is not UTF-8 with a replacement character for each such byte;
``tree_path`` finds the name's own bytes in the tree, which is what blame must be asked about.
"""

from __future__ import annotations

import tempfile
import weakref
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from reviewtui.git.runner import GitRepo

# Asked once per opened repository (a run blames up to a hundred files; a git call each).
_LISTS: weakref.WeakKeyDictionary[GitRepo, list[str]] = weakref.WeakKeyDictionary()


def _ignore_lists(repo: GitRepo) -> list[str]:
    found = _LISTS.get(repo)
    if found is None:
        out = repo.try_run("config", "--get-all", "blame.ignoreRevsFile")
        found = _LISTS[repo] = [name for name in (out or b"").decode(
            "utf-8", "replace").splitlines() if name]
    return found


def tree_path(repo: GitRepo, rev: str, path: str) -> str:
    """``path`` as ``rev``'s tree spells it (``surrogateescape``: subprocess encodes it back to
    those bytes) when the name shown has replacement characters; else ``path`` itself."""
    if "\ufffd" not in path:
        return path
    listed = repo.try_run("ls-tree", "-r", "-z", "--name-only", "--full-tree", rev)
    for raw in (listed or b"").split(b"\0"):
        if raw and raw.decode("utf-8", "replace") == path:
            return raw.decode("utf-8", "surrogateescape")
    return path


def run_blame(repo: GitRepo, *args: str, timeout: float | None = None,
              env: Mapping[str, str] | None = None) -> bytes:
    """``git blame <args>`` (paths as the repository names them), raising like ``GitRepo.run``."""
    names = _ignore_lists(repo)
    if not names:
        return repo.run("blame", *args, timeout=timeout, env=env)
    with tempfile.TemporaryDirectory(prefix="reviewtui-blame-") as folder:
        for name in names:
            relative = PurePosixPath(name)
            if relative.is_absolute() or name.startswith("~") or ".." in relative.parts:
                continue
            path = Path(folder, relative)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        elsewhere = GitRepo(Path(folder), repo.git_dir, repo.common_dir, bare=True)
        return elsewhere.run("blame", *args, timeout=timeout,
                             env={**(env or {}), "GIT_DIR": str(repo.git_dir)})
