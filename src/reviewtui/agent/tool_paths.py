"""Confinement for the review agent's tools: model-supplied paths and globs, checked first.

The model's text is untrusted. Every path a tool reads is turned into a normalised
repository-relative path here, before anything touches git or the disk, and refused when it is
absolute, climbs out of the root with ``..``, contains NUL or a line break, or points into
``.git``. On the working-tree side, ``worktree_target`` additionally resolves symbolic links and
refuses any that lead outside the root (or into ``.git``). Globs are matched in Python against
the listed files, so a glob never reaches git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from reviewtui.git.contents import path_within

__all__ = ["ToolError", "WorktreeTarget", "glob_regex", "repo_path", "worktree_target"]

MAX_PATH_CHARS = 4096
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


class ToolError(Exception):
    """A tool call the model can fix: ``str(err)`` is one line telling it what went wrong."""


def _is_git_dir(part: str) -> bool:
    return part.lower() == ".git"


def repo_path(text: str, *, what: str = "path") -> str:
    """``text`` as a normalised repository-relative path, or ``ToolError`` saying why not.

    ``a/./b`` and ``a/../b`` normalise to ``b``; a ``..`` that would leave the root is refused,
    as are absolute paths (``/x``, ``C:\\x``, ``\\\\server``), NUL bytes, line breaks and any
    component named ``.git``. Components starting with ``-`` are ordinary names: paths are never
    given to git as arguments.
    """
    if not text:
        raise ToolError(f"{what} is empty; give a repository-relative path like 'src/app.py'")
    if any(c in text for c in ("\0", "\n", "\r")):
        raise ToolError(f"{what} contains a NUL byte or a line break")
    if len(text) > MAX_PATH_CHARS:
        raise ToolError(f"{what} is too long ({len(text)} characters)")
    if text.startswith(("/", "\\")) or _DRIVE.match(text):
        raise ToolError(f"{what} {text!r} is absolute; paths are relative to the repository "
                        "root, e.g. 'src/app.py'")
    parts: list[str] = []
    for part in text.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise ToolError(f"{what} {text!r} leaves the repository root")
            parts.pop()
            continue
        if _is_git_dir(part):
            raise ToolError(f"{what} {text!r} is inside .git, which the tools do not read")
        parts.append(part)
    if not parts:
        raise ToolError(f"{what} {text!r} names the repository root, not a file")
    return "/".join(parts)


@dataclass(frozen=True, slots=True)
class WorktreeTarget:
    """Where a working-tree path leads: the file itself, or the link it is."""

    path: Path
    link_target: str | None = None  # for a symbolic link that stays inside: its target


def worktree_target(root: Path, relative: str) -> WorktreeTarget:
    """The disk location of ``relative`` (from ``repo_path``) under the resolved ``root``.

    Folders on the way are resolved (a symlinked folder that leaves the root is refused); a
    symbolic link as the last component is not followed: if it resolves inside the root (and not
    into ``.git``) its repository-relative target is returned, otherwise it is refused.
    """
    target = path_within(root, relative)
    if target is None:
        raise ToolError(f"path {relative!r} leads outside the repository through a symbolic "
                        "link; refused")
    _refuse_git_dir(root, target, relative)
    if not target.is_symlink():
        return WorktreeTarget(target)
    try:
        resolved = target.resolve()
    except (OSError, RuntimeError):  # a loop
        raise ToolError(f"path {relative!r} is a broken symbolic link") from None
    if resolved != root and root not in resolved.parents:
        raise ToolError(f"path {relative!r} is a symbolic link pointing outside the "
                        "repository; refused")
    _refuse_git_dir(root, resolved, relative)
    return WorktreeTarget(target, resolved.relative_to(root).as_posix())


def _refuse_git_dir(root: Path, target: Path, relative: str) -> None:
    try:
        parts = target.relative_to(root).parts
    except ValueError:
        raise ToolError(f"path {relative!r} leaves the repository root") from None
    if any(_is_git_dir(part) for part in parts):
        raise ToolError(f"path {relative!r} leads into .git, which the tools do not read")


def _segment(segment: str) -> str:
    """One path segment of a glob as a regex: ``*`` and ``?`` stay within the segment."""
    out: list[str] = []
    i, size = 0, len(segment)
    while i < size:
        char = segment[i]
        if char == "*":
            while i + 1 < size and segment[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", i + 2 if segment[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = segment[i + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                escaped = "".join("\\" + c if c in "\\]^[&~|" else c for c in body)
                out.append(f"[{'^/' if negate else ''}{escaped}]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def glob_regex(glob: str) -> re.Pattern[str]:
    """A compiled regex matching repository paths against ``glob`` (whole path, case-sensitive).

    ``*`` and ``?`` match within one folder, ``**`` as a whole segment matches any number of
    folders (``src/**/*.py`` includes ``src/a.py``), ``[abc]``/``[!abc]`` are classes. A glob
    without ``/`` matches the file name at any depth (``*.py``); a trailing ``/`` means
    everything below. Absolute globs, ``..``, NUL and line breaks are refused.
    """
    if any(c in glob for c in ("\0", "\n", "\r")):
        raise ToolError("glob contains a NUL byte or a line break")
    if len(glob) > MAX_PATH_CHARS:
        raise ToolError(f"glob is too long ({len(glob)} characters)")
    if glob.startswith(("/", "\\")) or _DRIVE.match(glob):
        raise ToolError(f"glob {glob!r} is absolute; globs are relative to the repository root, "
                        "e.g. 'src/**/*.py'")
    text = glob.strip()
    while text.startswith("./"):
        text = text[2:]
    if text.endswith("/"):
        text += "**"
    segments = [s for s in text.split("/") if s not in ("", ".")]
    if any(s == ".." for s in segments):
        raise ToolError(f"glob {glob!r} uses '..'; globs match inside the repository only")
    if not segments:
        return re.compile(r".+")
    if len(segments) == 1 and segments[0] != "**":
        return re.compile(r"(?:.*/)?" + _segment(segments[0]))
    pattern: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            pattern.append(".*" if last else "(?:[^/]+/)*")
        else:
            pattern.append(_segment(segment) + ("" if last else "/"))
    return re.compile("".join(pattern))
