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

The repository's own list is another matter: ``eval`` blames a fix's lines to find the commit
that planted the bug, and a mass reformat the project lists in its committed
``.git-blame-ignore-revs`` would otherwise be that commit. ``ignored_revisions`` reads the list
as a commit has it: ``eval`` reads HEAD's -- the project's latest word on which commits are
noise; mining may read the future -- and the priority's line history reads the base's of the
change it ranks, which may not. ``run_blame`` gives it to git as a file of its own, whatever
the person's setting says. git dies on a line it cannot read as a commit
(a short id, one this clone lacks, junk), so only full ids of commits git has are kept. The
list of a commit named by its full id is read once per opened repository (two git calls):
the line history asks for its base's at every look, its features mostly read from its cache
(a listed commit fetched later counts from the repository's next opening).

A unit names a file whose name is not UTF-8 with a replacement character for each such byte;
``tree_path`` finds the name's own bytes in the tree, which is what blame must be asked about.
"""

from __future__ import annotations

import logging
import re
import tempfile
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

from reviewtui.errors import GitCommandError
from reviewtui.git.runner import GitRepo

_log = logging.getLogger(__name__)
IGNORE_FILE = ".git-blame-ignore-revs"  # the name GitHub's blame and most projects use
_FULL_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")

# Asked once per opened repository (a run blames up to a hundred files; a git call each).
_LISTS: weakref.WeakKeyDictionary[GitRepo, list[str]] = weakref.WeakKeyDictionary()
# The list a commit has, by the commit's full id (a name such as HEAD may move: read each time).
_REVISIONS: weakref.WeakKeyDictionary[GitRepo, dict[str, tuple[str, ...]]] = (
    weakref.WeakKeyDictionary())


def _ignore_lists(repo: GitRepo) -> list[str]:
    found = _LISTS.get(repo)
    if found is None:
        out = repo.try_run("config", "--get-all", "blame.ignoreRevsFile")
        found = _LISTS[repo] = [name for name in (out or b"").decode(
            "utf-8", "replace").splitlines() if name]
    return found


def ignored_revisions(repo: GitRepo, rev: str = "HEAD") -> tuple[str, ...]:
    """The commits ``rev``'s ``.git-blame-ignore-revs`` lists, as full ids git can peel to a
    commit, sorted; () without such a file. Comments (``#`` to the end of the line) and lines
    git would stop on are left out."""
    if not _FULL_ID.fullmatch(rev):
        return _read_ignored(repo, rev)
    known = _REVISIONS.setdefault(repo, {})
    found = known.get(rev)
    if found is None:
        found = known[rev] = _read_ignored(repo, rev)
    return found


def _read_ignored(repo: GitRepo, rev: str) -> tuple[str, ...]:
    raw = repo.try_run("cat-file", "blob", f"{rev}:{IGNORE_FILE}")
    if not raw:
        return ()
    listed: list[str] = []
    for line in raw.decode("utf-8", "replace").splitlines():
        word = line.split("#", 1)[0].strip().lower()
        if _FULL_ID.fullmatch(word):
            listed.append(word)
        elif word:
            _log.info("%s: %r is no full commit id; not ignored", IGNORE_FILE, word)
    if not listed:
        return ()
    query = "".join(f"{oid}^{{commit}}\n" for oid in listed).encode()
    try:
        answer = repo.run("cat-file", "--batch-check=%(objectname) %(objecttype)", stdin=query)
    except GitCommandError as exc:  # a list that cannot be checked is not applied
        _log.info("%s not applied: %s", IGNORE_FILE, exc)
        return ()
    found = {row.split()[0] for row in answer.decode("ascii", "replace").splitlines()
             if row.endswith(" commit")}
    return tuple(sorted(found))


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
              env: Mapping[str, str] | None = None, ignore: Sequence[str] = ()) -> bytes:
    """``git blame <args>`` (paths as the repository names them), raising like ``GitRepo.run``;
    ``ignore``: commits to look through (``ignored_revisions``), whatever the person's
    ``blame.ignoreRevsFile`` says."""
    names = _ignore_lists(repo)
    if not names and not ignore:
        return repo.run("blame", *args, timeout=timeout, env=env)
    with tempfile.TemporaryDirectory(prefix="reviewtui-blame-") as folder:
        options: list[str] = []
        if ignore:
            listed = Path(folder, "reviewtui-ignored-revisions")
            listed.write_text("".join(f"{oid}\n" for oid in ignore), "ascii")
            options.append(f"--ignore-revs-file={listed}")
        if not names:
            return repo.run("blame", *options, *args, timeout=timeout, env=env)
        for name in names:
            relative = PurePosixPath(name)
            if relative.is_absolute() or name.startswith("~") or ".." in relative.parts:
                continue
            path = Path(folder, relative)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()  # (an existing file, our own list, is kept as it is)
        elsewhere = GitRepo(Path(folder), repo.git_dir, repo.common_dir, bare=True)
        return elsewhere.run("blame", *options, *args, timeout=timeout,
                             env={**(env or {}), "GIT_DIR": str(repo.git_dir)})
