"""Untracked files as additions.

``git diff`` never shows untracked files (nor files inside untracked folders), yet they are part
of "what I am about to commit". They are listed with ``git ls-files --others --exclude-standard``
and turned into new-file changes here, with the same binary heuristic git uses (a NUL byte in the
first 8000 bytes) and the same size limit as every other file. A file that cannot be read (no
permission, a special file mounted over it) is still listed, flagged ``unreadable`` and without
lines: the reviewer learns it is part of the change and was not reviewed.
"""

from __future__ import annotations

import os
import stat

from reviewtui.git.model import ChangeStatus, FileChange, Hunk, diff_line
from reviewtui.git.runner import GitRepo

_BINARY_PROBE = 8000


def addition_hunk(text: str) -> tuple[Hunk, ...]:
    """A single hunk adding every line of ``text`` (empty text: no hunk)."""
    if text == "":
        return ()
    lines = text.split("\n")
    missing_newline = lines[-1] != ""
    if not missing_newline:
        lines.pop()
    body = tuple(
        diff_line("+", line[:-1] if line.endswith("\r") else line, None, number)
        for number, line in enumerate(lines, start=1)
    )
    return (Hunk(0, 0, 1, len(body), "", body, False, missing_newline),)


def untracked_change(repo: GitRepo, path: str, max_bytes: int, *,
                     name: str | None = None) -> FileChange | None:
    """``path`` as a new file; ``name``: its name on disk when ``path`` is not it (a name that
    is not UTF-8 is shown with replacement characters but read by its own bytes). ``non_utf8``
    is about the content alone: an odd name over ASCII content is not flagged."""
    full = repo.root / (name if name is not None else path)
    try:
        info = full.lstat()
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        try:
            target = str(full.readlink())
        except OSError:
            return FileChange(ChangeStatus.ADD, None, path, new_mode="120000", untracked=True,
                              unreadable=True)
        return FileChange(ChangeStatus.ADD, None, path, new_mode="120000", untracked=True,
                          hunks=addition_hunk(target))
    if not stat.S_ISREG(info.st_mode):
        return None
    mode = "100755" if info.st_mode & stat.S_IXUSR else "100644"
    if info.st_size > max_bytes:
        return FileChange(ChangeStatus.ADD, None, path, new_mode=mode, untracked=True,
                          too_large=True)
    try:
        data = full.read_bytes()
    except OSError:
        return FileChange(ChangeStatus.ADD, None, path, new_mode=mode, untracked=True,
                          unreadable=True)
    if b"\0" in data[:_BINARY_PROBE]:
        return FileChange(ChangeStatus.ADD, None, path, new_mode=mode, untracked=True,
                          is_binary=True)
    try:
        text, non_utf8 = data.decode("utf-8"), False
    except UnicodeDecodeError:
        text, non_utf8 = data.decode("utf-8", "replace"), True
    return FileChange(ChangeStatus.ADD, None, path, new_mode=mode, untracked=True,
                      non_utf8=non_utf8, hunks=addition_hunk(text))


def untracked_names(listing: bytes) -> dict[str, str]:
    """The paths of ``ls-files --others -z`` output: each as shown (undecodable bytes replaced)
    to its name on disk (``os.fsdecode``: the same bytes)."""
    return {raw.decode("utf-8", "replace"): os.fsdecode(raw) for raw in listing.split(b"\0")
            if raw and not raw.endswith(b"/")}


def untracked_changes(repo: GitRepo, max_bytes: int) -> list[FileChange]:
    """Every untracked, non-ignored file (recursing into untracked folders) as an addition."""
    out = repo.run("ls-files", "--others", "--exclude-standard", "-z")
    changes: list[FileChange] = []
    for path, name in untracked_names(out).items():
        change = untracked_change(repo, path, max_bytes, name=name)
        if change is not None:
            changes.append(change)
    return changes
