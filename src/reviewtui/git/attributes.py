"""Which binary files git calls binary because of a gitattribute, not their content.

A ``.gitattributes`` line such as ``*.py -diff`` (or ``binary``, which unsets ``diff``, or
``diff=DRIVER`` with ``diff.DRIVER.binary = true`` configured) makes ``git diff`` print "Binary
files differ" for a text file: reviewtui honours it (the repository
asked for it) but must say so, or a reviewer would take real code for an image. Only the files
git reported as binary are asked about, all of them in one ``git check-attr`` call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from reviewtui.git.model import FileChange
from reviewtui.git.runner import GitRepo

UNSET = "unset"  # check-attr's word for ``-diff`` (and for ``binary``, which implies it)


def parse_check_attr(output: bytes) -> dict[str, str]:
    """``git check-attr -z`` output (path NUL attribute NUL value NUL, repeated) as path ->
    value, for a single attribute."""
    fields = output.split(b"\0")
    return {fields[i].decode("utf-8", "replace"): fields[i + 2].decode("utf-8", "replace")
            for i in range(0, len(fields) - 2, 3)}


def _paths(change: FileChange) -> list[str]:
    return list(dict.fromkeys(p for p in (change.old_path, change.new_path) if p))


def mark_binary_by_attribute(repo: GitRepo, files: Sequence[FileChange]) -> list[FileChange]:
    """``files`` with ``binary_by_attribute`` set on each binary one whose path (old or new)
    has the ``diff`` attribute unset; one ``git check-attr`` call, and none without a binary
    file. A git that cannot answer leaves the files as they are."""
    binary = [change for change in files if change.is_binary]
    if not binary:
        return list(files)
    asked = list(dict.fromkeys(path for change in binary for path in _paths(change)))
    stdin = b"".join(path.encode("utf-8", "surrogateescape") + b"\0" for path in asked)
    proc = repo.run_status("check-attr", "-z", "--stdin", "diff", stdin=stdin)
    if proc.returncode != 0:
        return list(files)
    values = parse_check_attr(proc.stdout)
    binary_values = {UNSET} | _binary_drivers(repo, set(values.values()))
    return [dataclasses.replace(change, binary_by_attribute=True)
            if change.is_binary and any(values.get(p) in binary_values for p in _paths(change))
            else change for change in files]


def _binary_drivers(repo: GitRepo, values: set[str]) -> set[str]:
    """The diff drivers among ``values`` (``*.py diff=gen``) configured ``binary = true``:
    git calls their files binary as it does with ``-diff``. One ``git config`` call each."""
    drivers = {v for v in values if v not in (UNSET, "set", "unspecified")}
    return {driver for driver in drivers if (repo.try_run(
        "config", "--type=bool", "--get", f"diff.{driver}.binary") or b"").strip() == b"true"}
