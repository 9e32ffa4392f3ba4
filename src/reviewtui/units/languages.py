"""Which language each file of a change is read as, in this repository: ``.h`` as C or C++.

A header is C++ in a C++ project and C in a C one, and its suffix cannot tell. The change's own
paths decide when they can (a ``.cpp`` among them, or no header at all); otherwise ``git
ls-files`` asks whether the repository tracks C++ sources, or headers that read as C++
(``template <``, ``namespace x {``, ``class X {``, ``std::``... in a sample of them: a
header-only library has no ``.cpp``), once per repository and process (for a commit or a
range: the tree of the change's "after" commit, never what the repository holds today).
"""

from __future__ import annotations

import logging
import re

from reviewtui.code.languages import CPP_SUFFIXES, PathLanguages, headers_decided, is_cpp_source
from reviewtui.errors import GitCommandError
from reviewtui.git.batch import batch_records
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
    # A commit's headers are read as that commit's tree says (an older commit reviewed, or
    # evaluated, must not see what the repository holds today); the index otherwise.
    rev = change_set.new_side.rev if change_set.new_side.kind is SideKind.COMMIT else None
    key = (str(repo.root), rev)
    if key not in _KNOWN:
        _KNOWN[key] = _tracks_cpp(repo, key[1])
    return PathLanguages(cpp_headers=_KNOWN[key])


def _tracks_cpp(repo: GitRepo, rev: str | None) -> bool:
    """Does the repository hold C++? A C++ source, or headers written in C++ (a header-only
    library has no ``.cpp``). ``rev``: the tree to read instead of the index."""
    try:
        if rev is None:
            out = repo.run("ls-files", "-z", "--", *(f"*{s}" for s in CPP_SUFFIXES),
                           timeout=_TIMEOUT)
            if out.strip(b"\0"):
                return True
            listing = repo.run("ls-files", "-s", "-z", "--", "*.h", timeout=_TIMEOUT)
        else:
            listing = repo.run("ls-tree", "-r", "-z", rev, timeout=_TIMEOUT)
            names = (entry.partition(b"\t")[2] for entry in listing.split(b"\0"))
            if any(is_cpp_source(name.decode("utf-8", "replace")) for name in names):
                return True
        return _headers_look_cpp(repo, _header_blobs(listing, staged=rev is None))
    except GitCommandError as exc:
        _log.warning("cannot list the repository's files: %s", exc)
        return False


# What only C++ headers say (a C header's ``extern "C"`` guard says none of it).
_CPP_MARKERS = re.compile(
    rb"^[ \t]*(?:template\s*<|namespace\s+[\w:]*\s*\{|using\s+namespace\b"
    rb"|(?:class|struct)\s+\w+\s*(?:final\s*)?:\s*(?:public|private|protected)\b"
    rb"|class\s+\w+\s*\{|(?:public|private|protected)\s*:)"
    rb"|\bstd::\w|^[ \t]*#\s*include\s*<(?:iostream|vector|string|memory|map|utility"
    rb"|functional|type_traits|cstdint|cstddef|cstring|algorithm|array|tuple)>", re.M)
_SAMPLE = 16  # headers read, spread over the repository's
_READ = 32 * 1024  # bytes of each


def _header_blobs(listing: bytes, *, staged: bool) -> list[bytes]:
    """The blob ids of the ``.h`` files in ``ls-files -s`` (``staged``) or ``ls-tree -r``
    output."""
    blobs = []
    for entry in listing.split(b"\0"):
        meta, _, path = entry.partition(b"\t")
        fields = meta.split()
        if not path.lower().endswith(b".h") or len(fields) < 3 or fields[0] == b"160000":
            continue
        if staged or fields[1] == b"blob":
            blobs.append(fields[1] if staged else fields[2])
    return blobs


def _headers_look_cpp(repo: GitRepo, blobs: list[bytes]) -> bool:
    """Do a quarter (at least one) of a sample of these headers read as C++?"""
    if not blobs:
        return False
    sample = blobs[::max(1, len(blobs) // _SAMPLE)][:_SAMPLE]
    out = repo.run("cat-file", "--batch", stdin=b"\n".join(sample) + b"\n", timeout=_TIMEOUT)
    hits = 0
    for record in batch_records(out, len(sample)):
        if record is None or record[0] != b"blob":
            continue
        _, start, size = record
        if _CPP_MARKERS.search(out[start:start + min(size, _READ)]):
            hits += 1
    return hits >= max(1, len(sample) // 4)
