"""Which language each file of a change is read as, in this repository: ``.h`` as C or C++.

A header is C++ in a C++ project and C in a C one, and its suffix cannot tell. The change's own
paths decide when they can (a ``.cpp`` among them, or no header at all); otherwise one ``git
ls-files`` asks whether the repository tracks C++ sources (a bare repository: the tree of the
change's "after" commit), once per repository and process.
"""

from __future__ import annotations

import logging

from reviewtui.code.languages import CPP_SUFFIXES, PathLanguages, headers_decided, is_cpp_source
from reviewtui.errors import GitCommandError
from reviewtui.git.model import ChangeSet, SideKind
from reviewtui.git.runner import GitRepo

_log = logging.getLogger(__name__)
_TIMEOUT = 30.0
_KNOWN: dict[tuple[str, str | None], bool] = {}  # (repository root, bare tree) -> C++ sources


def repository_languages(repo: GitRepo | None, change_set: ChangeSet) -> PathLanguages:
    """The path -> language mapping for ``change_set`` in ``repo``."""
    paths = [p for change in change_set.files for p in (change.old_path, change.new_path) if p]
    decided = headers_decided(paths)
    if decided is not None:
        return decided
    if repo is None:
        return PathLanguages()
    rev = change_set.new_side.rev if change_set.new_side.kind is SideKind.COMMIT else None
    key = (str(repo.root), rev if repo.is_bare else None)
    if key not in _KNOWN:
        _KNOWN[key] = _tracks_cpp(repo, key[1])
    return PathLanguages(cpp_headers=_KNOWN[key])


def _tracks_cpp(repo: GitRepo, rev: str | None) -> bool:
    """Does the repository hold a C++ source? (``rev``: a bare repository's tree)"""
    try:
        if rev is None:
            out = repo.run("ls-files", "-z", "--", *(f"*{s}" for s in CPP_SUFFIXES),
                           timeout=_TIMEOUT)
            return bool(out.strip(b"\0"))
        out = repo.run("ls-tree", "-r", "-z", "--name-only", rev, timeout=_TIMEOUT)
    except GitCommandError as exc:
        _log.warning("cannot list the repository's files: %s", exc)
        return False
    return any(is_cpp_source(name.decode("utf-8", "replace")) for name in out.split(b"\0"))
