"""SZZ: from a bug-fix commit to the commit that introduced the lines it fixed.

The lines a fix deleted or changed are blamed on the fix's parent with ``git blame -w -M -C``
(whitespace ignored, lines followed through moves within a file and copies from the files the
same commit changed, the commits the repository's ``.git-blame-ignore-revs`` lists at HEAD
looked through: a mass reformat is no bug commit); a fix that changed only whitespace is no
fix. Blank lines, comment-only lines and lines of punctuation alone (a closing brace) are not
blamed: they carry no behaviour. The commit owning most of the remaining lines is the
bug-introducing commit, unless it is a merge, the repository's root or a shallow boundary, or
is too large to review; its *target lines* are the blamed lines as numbered in that commit's
own version of the file -- the lines a reviewer of that commit should have questioned.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from reviewtui.errors import GitCommandError
from reviewtui.git.patch_file import unquote_path
from reviewtui.git.runner import DIFF_OPTIONS, GitRepo
from reviewtui.history.blame_run import run_blame

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")
_COMMENT_PREFIXES = ("#", "//", "/*", "*", "*/", "--", "<!--", '"""', "'''", ";")
_HAS_WORD = re.compile(r"[A-Za-z0-9_]")
_BLAME_TIMEOUT = 120.0


@dataclass(frozen=True, slots=True)
class BugOrigin:
    """The outcome of blaming one fix: a bug commit and its target lines, or why not."""

    fix: str
    bug: str | None = None
    targets: tuple[tuple[str, int], ...] = ()  # (path in the bug commit, line there)
    blamed_lines: int = 0  # lines blamed in all (on every commit)
    reason: str | None = None  # why there is no bug commit
    failed: bool = False  # git failed (diff, blame): the fix is not traced, not untraceable


def meaningful(text: str) -> bool:
    """A line worth blaming: not blank, not a comment alone, not punctuation alone."""
    stripped = text.strip()
    if not stripped or stripped.startswith(_COMMENT_PREFIXES):
        return False
    return _HAS_WORD.search(stripped) is not None


def git_path(raw: bytes) -> str:
    """A path as git printed it, to ask git about again: a name that is not UTF-8 keeps its
    bytes (``surrogateescape``, which the arguments of a git call are encoded back with); a
    quoted one (a quote, a backslash or a control character in it) is unquoted."""
    if raw.startswith(b'"'):
        return unquote_path(raw.decode("utf-8", "replace"))
    return raw.decode("utf-8", "surrogateescape")


def old_path(raw: bytes) -> str | None:
    """The path of a ``--- a/PATH`` line (after the marker), or None for ``/dev/null``.

    git quotes a name holding a quote, a backslash or a control character, and ends the line
    with a TAB when the name holds a space (``--- a/my file.py\t``): neither is the name.
    """
    if not raw.startswith(b'"') and raw.endswith(b"\t"):
        raw = raw[:-1]
    name = git_path(raw)
    return name[2:] if name.startswith("a/") else None


def _fix_diff(repo: GitRepo, parent: str, fix: str, paths: tuple[str, ...],
              *options: str) -> bytes:
    return repo.run("diff", *[o for o in DIFF_OPTIONS if not o.startswith("--unified")],
                    "--unified=0", *options, parent, fix, "--",
                    *[f":(literal){p}" for p in paths])


def _read_removed(out: bytes) -> tuple[dict[str, list[int]], bool]:
    """The old-side numbers of the meaningful removed lines per old path, and whether the
    diff changed any line at all."""
    found: dict[str, list[int]] = {}
    changed = False
    path: str | None = None
    header = False  # between ``diff --git`` and the first hunk: ``--- a/PATH`` is a header
    old_no = 0
    for line in out.split(b"\n"):
        if line.startswith(b"diff --git "):
            header, path = True, None
        elif line.startswith(b"@@"):
            header = False
            match = _HUNK.match(line)
            old_no = int(match.group(1)) if match else 0
        elif header:  # a removed ``-- comment`` line is ``--- comment`` too, in a hunk
            if line.startswith(b"--- "):
                path = old_path(line[4:])
        elif line.startswith((b"-", b"+")):
            changed = True
            if line.startswith(b"-") and path is not None:
                if meaningful(line[1:].decode("utf-8", "replace")):
                    found.setdefault(path, []).append(old_no)
                old_no += 1
    return found, changed


def removed_lines(repo: GitRepo, parent: str, fix: str, paths: tuple[str, ...]
                  ) -> dict[str, list[int]]:
    """For each path (as the fix's parent names it), the old-side numbers of the meaningful
    lines ``fix`` removed.

    Renames are followed (``-M``): a file the fix also moved lost only the lines it changed,
    not all. A fix that changed only whitespace (re-indented lines, added the newline missing
    at the end of a file: "fix cs") removed nothing: its diff with ``-w`` is empty, and the
    blame, which ignores whitespace, would name whoever wrote those lines. In any other fix a
    re-indented line counts: wrapping lines in a new ``if`` re-indents them, and they are
    where the fix went."""
    found = _read_removed(_fix_diff(repo, parent, fix, paths))[0]
    if found and not _read_removed(_fix_diff(repo, parent, fix, paths, "--ignore-all-space"))[1]:
        return {}
    return found


def _ranges(lines: list[int]) -> list[str]:
    """``-L`` arguments covering ``lines`` (consecutive lines in one range)."""
    spans: list[list[int]] = []
    for number in sorted(set(lines)):
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return [f"-L{a},{b}" for a, b in spans]


@dataclass(frozen=True, slots=True)
class BlamedLine:
    commit: str
    path: str  # the file's path in ``commit``
    line: int  # the line's number in ``commit``
    time: int
    boundary: bool


def blame(repo: GitRepo, rev: str, path: str, lines: list[int],
          ignore: tuple[str, ...] = ()) -> list[BlamedLine]:
    """``git blame -w -M -C --line-porcelain`` of ``lines`` of ``path`` at ``rev``, looking
    through the commits in ``ignore`` (the repository's ``.git-blame-ignore-revs``)."""
    out = run_blame(repo, "-w", "-M", "-C", "--line-porcelain", *_ranges(lines), rev, "--", path,
                    timeout=_BLAME_TIMEOUT, ignore=ignore)
    blamed: list[BlamedLine] = []
    header: list[bytes] = []
    for line in out.split(b"\n"):
        if line.startswith(b"\t"):
            if header:
                first = header[0].split()
                keys = {h.split(b" ", 1)[0]: h.partition(b" ")[2] for h in header[1:]}
                name = keys.get(b"filename", b"").decode("utf-8", "replace")
                blamed.append(BlamedLine(
                    first[0].decode("ascii"),
                    unquote_path(name) if name.startswith('"') else name, int(first[1]),
                    int(keys.get(b"committer-time", b"0") or 0), b"boundary" in keys))
            header = []
        elif line:
            header.append(line)
    return blamed


def find_origin(repo: GitRepo, fix: str, parent: str, paths: tuple[str, ...],
                ignore: tuple[str, ...] = ()) -> BugOrigin:
    """Blame the meaningful lines ``fix`` removed from ``paths`` and pick the bug commit
    (``ignore``: the commits blame looks through)."""
    try:
        removed = removed_lines(repo, parent, fix, paths)
    except GitCommandError as exc:
        return BugOrigin(fix, reason=f"cannot diff the fix: {exc}", failed=True)
    if not removed:
        return BugOrigin(fix, reason="the fix removed only blank or comment lines, or changed "
                                     "only whitespace")
    blamed: list[BlamedLine] = []
    for path, lines in removed.items():
        try:
            blamed += blame(repo, parent, path, lines, ignore)
        except GitCommandError as exc:
            return BugOrigin(fix, reason=f"cannot blame {path}: {exc}", failed=True)
    if not blamed:
        return BugOrigin(fix, reason="nothing to blame")
    votes = Counter(b.commit for b in blamed)
    newest = {b.commit: b.time for b in blamed}
    bug = max(votes, key=lambda c: (votes[c], newest[c]))
    owned = [b for b in blamed if b.commit == bug]
    if any(b.boundary for b in owned):
        return BugOrigin(fix, blamed_lines=len(blamed),
                         reason="blamed on the root commit or a shallow boundary")
    targets = tuple(sorted({(b.path, b.line) for b in owned}))
    return BugOrigin(fix, bug, targets, len(blamed))
