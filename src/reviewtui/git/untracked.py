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
from pathlib import Path

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
    if stat.S_ISDIR(info.st_mode):
        return _embedded_repository(repo, path, full) if (full / ".git").exists() else None
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


def _embedded_repository(repo: GitRepo, path: str, full: Path) -> FileChange:
    """An untracked folder holding a repository of its own: git lists the folder, not its
    files, and ``git add`` would record it as a gitlink (with a warning). It is shown as that
    submodule would be -- its HEAD commit as the one line -- so the reviewer sees it is part of
    the change and that its files are not reviewed here."""
    head = repo.try_run("-C", os.fsdecode(full), "rev-parse", "--verify", "--quiet", "HEAD")
    commit = head.decode("ascii", "replace").strip() if head else ""
    # the commit names the content, as a tracked gitlink's does (the cache's key reads it)
    return FileChange(ChangeStatus.ADD, None, path, new_mode="160000", untracked=True,
                      new_blob=commit or None,
                      hunks=addition_hunk(f"Subproject commit {commit}\n") if commit else ())


def untracked_names(listing: bytes) -> dict[str, str]:
    """The paths of ``ls-files --others -z`` output: each as shown (undecodable bytes replaced)
    to its name on disk (``os.fsdecode``: the same bytes). A folder git lists whole (a
    repository of its own: ``sub/``) is named without its slash."""
    return {raw.rstrip(b"/").decode("utf-8", "replace"): os.fsdecode(raw.rstrip(b"/"))
            for raw in listing.split(b"\0") if raw.rstrip(b"/")}


def untracked_changes(repo: GitRepo, max_bytes: int) -> list[FileChange]:
    """Every untracked, non-ignored file (recursing into untracked folders) as an addition."""
    out = repo.run("ls-files", "--others", "--exclude-standard", "-z")
    changes: list[FileChange] = []
    for path, name in untracked_names(out).items():
        change = untracked_change(repo, path, max_bytes, name=name)
        if change is not None:
            changes.append(change)
    return changes
