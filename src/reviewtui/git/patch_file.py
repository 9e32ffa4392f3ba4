"""Read a patch file (or stdin) into ``FileChange`` records with ``unidiff``.

Foreign patches come in many dialects (git format-patch, ``diff -u``, hg), so the tolerant
``unidiff`` parser reads them. Blob ids from ``index a..b`` lines are kept: when the repository
holds those objects, later stages can still read both file versions.
"""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from reviewtui.errors import PatchError
from reviewtui.git.model import ChangeStatus, DiffLine, FileChange, Hunk
from reviewtui.git.patch_prefix import add_git_prefixes

_MBOX_FROM = re.compile(r"^From [0-9a-f]{40} ", re.MULTILINE)  # a format-patch message
_INDEX = re.compile(r"^index ([0-9a-f]+)\.\.([0-9a-f]+)")
_RENAME_FROM = re.compile(r"^(rename|copy) from (.+)$")
_RENAME_TO = re.compile(r"^(?:rename|copy) to (.+)$")
_PREFIX = re.compile(r"^[abciow12]/")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f",
            "r": "\r", "v": "\v"}


def unquote_path(raw: str) -> str:
    """Undo git's C-style quoting of a path ("a/\\303\\251.txt" -> "a/é.txt")."""
    raw = raw.strip()
    if not (len(raw) >= 2 and raw.startswith('"') and raw.endswith('"')):
        return raw
    body = raw[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body):
                out += bytes([int(body[i + 1 : i + 4], 8)])
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt).encode()
            i += 2
            continue
        out += ch.encode("utf-8")
        i += 1
    return out.decode("utf-8", "replace")


def _clean(path: str | None) -> str | None:
    if path is None:
        return None
    path = unquote_path(_replaced(path))
    if path == "/dev/null":
        return None
    return _PREFIX.sub("", path, count=1)


def read_patch_bytes(source: str) -> bytes:
    if source == "-":
        return sys.stdin.buffer.read()
    path = Path(source)
    if not path.is_file():
        raise PatchError(f"patch file not found: {source}")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise PatchError(f"cannot read patch file {source}: {exc.strerror}") from None


def parse_patch(data: bytes, *, name: str = "patch") -> list[FileChange]:
    """Parse a unified diff; raises ``PatchError`` if it is not one."""
    # A byte that does not decode stays a lone surrogate until each file's lines are read
    # (``_replaced``), so a file is tagged non_utf8 by its own lines, not by another file's.
    text = add_git_prefixes(_lf_lines(data.decode("utf-8", "surrogateescape")))
    if _COLOURED.search(text) is not None:
        raise PatchError(f"{name} is a coloured diff (it holds the terminal's colour codes)",
                         hint="write it without colours: 'git diff --no-color'")
    # (a git patch never has one: a commit message's line that reads like it is left alone)
    only = _ONLY_IN.findall(text) if _GIT_HEADER.search(text) is None else []
    if only:
        raise PatchError(f"{name} leaves out {len(only)} file(s) that are on one side only "
                         f"({only[0]!r}: diff -r without -N)",
                         hint="make it with 'diff -ruN', which writes them as added or deleted")
    try:
        patch = PatchSet(text)
    except UnidiffParseError as exc:
        raise PatchError(f"{name} is not a valid diff: {exc}") from None
    if not len(patch):
        if text.strip():
            raise PatchError(f"{name} contains no diff (expected 'diff --git' or '---/+++' lines)")
        return []
    _one_change_per_file(text, name)
    trees: set[tuple[str, str]] = set()
    changes = [_convert(patched, trees) for patched in patch]
    return _type_changes(_under_trees(changes, trees))


def _under_trees(changes: list[FileChange], trees: set[tuple[str, str]]) -> list[FileChange]:
    """The added and deleted files of a diff of two trees (``git diff --no-index v1 v2``:
    ``v2/n.py`` added) under the same paths as its changed ones (``pkg/f.py``, read from
    ``v1/pkg/f.py`` and ``v2/pkg/f.py``), when every changed one had the same two folders."""
    if len(trees) != 1:
        return changes
    [(old_tree, new_tree)] = trees
    out: list[FileChange] = []
    for change in changes:
        if change.status is ChangeStatus.ADD and change.new_path \
                and change.new_path.startswith(new_tree + "/"):
            change = replace(change, new_path=change.new_path[len(new_tree) + 1:])
        elif change.status is ChangeStatus.DELETE and change.old_path \
                and change.old_path.startswith(old_tree + "/"):
            change = replace(change, old_path=change.old_path[len(old_tree) + 1:])
        out.append(change)
    return out


def _type_changes(changes: list[FileChange]) -> list[FileChange]:
    """A file that became a symlink (or a symlink a file...) as one modified file: git patches
    a type change as the path's deletion followed by its addition, and ``--commit`` reads the
    same change as one file holding both halves' hunks."""
    merged: list[FileChange] = []
    for change in changes:
        gone = merged[-1] if merged else None
        if (gone is not None and gone.status is ChangeStatus.DELETE
                and change.status is ChangeStatus.ADD and gone.old_path == change.new_path
                and gone.old_mode and change.new_mode
                and gone.old_mode[:2] != change.new_mode[:2]):
            merged[-1] = replace(
                change, status=ChangeStatus.MODIFY, old_path=gone.old_path,
                old_mode=gone.old_mode, old_blob=gone.old_blob,
                is_binary=gone.is_binary or change.is_binary,
                non_utf8=gone.non_utf8 or change.non_utf8, hunks=gone.hunks + change.hunks)
        else:
            merged.append(change)
    return merged


# A header or hunk line wrapped in SGR codes (git diff --color, color.ui=always): git quotes an
# ESC in a path, so there it can only be colour; the parser saw no diff, or a stray marker.
# ``diff -r`` without ``-N`` writes a file on one side only as this line, not as a diff: read
# as it is, the patch silently left those files out of the review
_ONLY_IN = re.compile(r"^Only in [^\n]+: [^\n]+$", re.MULTILINE)
_GIT_HEADER = re.compile(r"^diff --git ", re.MULTILINE)
_COLOURED = re.compile(r"^(?:\x1b\[[0-9;]*m(?:diff --git |--- |\+\+\+ |@@ )"
                       r"|(?:diff --git |@@ -)[^\n]*\x1b\[[0-9;]*m\r?$)", re.MULTILINE)
_HEADERS = re.compile(r"^(?:diff --git |--- |\+\+\+ |@@ )[^\n]*\n", re.MULTILINE)


def _lf_lines(text: str) -> str:
    """A patch whose own lines end in CRLF (saved on Windows, sent by mail) as the LF patch it
    was: its headers ended in a carriage return that unidiff took into a quoted path (so the
    patch was refused) and that stayed in each line of a CRLF file. A patch is CRLF when every
    header line is; an LF patch of a CRLF file keeps its lines as they are."""
    headers = _HEADERS.findall(text)
    if not headers or not all(header.endswith("\r\n") for header in headers):
        return text
    return text.replace("\r\n", "\n")


def _one_change_per_file(text: str, name: str) -> None:
    """Refuse a series (``git format-patch`` mbox) whose patches change the same file again:
    each patch's line numbers are those of its own intermediate version, not the final file's,
    so its units would point at the wrong lines."""
    starts = [m.start() for m in _MBOX_FROM.finditer(text)]
    if len(starts) < 2:
        return
    seen: dict[str, int] = {}
    for number, (start, end) in enumerate(zip(starts, [*starts[1:], len(text)], strict=True),
                                          start=1):
        try:
            part = PatchSet(text[start:end])
        except UnidiffParseError:
            return  # not the series it looked like: read as one diff
        for patched in part:
            change = _convert(patched)
            for path in (p for p in (change.old_path, change.new_path) if p is not None):
                first = seen.setdefault(path, number)
                if first != number:
                    raise PatchError(
                        f"{name} is a series of {len(starts)} patches and patches {first} and "
                        f"{number} both change {path}: their line numbers would not be the "
                        "final file's",
                        hint="squash them into one diff first, e.g. 'git diff A B > one.patch'")


_LOSSY = re.compile("[\udc80-\udcff]")  # a byte ``surrogateescape`` kept undecoded


def _replaced(text: str) -> str:
    """``text`` with each undecodable byte as U+FFFD, as ``errors="replace"`` gives it."""
    if _LOSSY.search(text) is None:
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _convert(patched: object, trees: set[tuple[str, str]] | None = None) -> FileChange:
    info = [_replaced(str(line).rstrip("\n"))
            for line in (getattr(patched, "patch_info", None) or [])]
    old_blob = new_blob = None
    rename_from = rename_to = None
    copied = False
    for line in info:
        if (m := _INDEX.match(line)) is not None:
            old_blob = None if set(m.group(1)) == {"0"} else m.group(1)
            new_blob = None if set(m.group(2)) == {"0"} else m.group(2)
        elif (m := _RENAME_FROM.match(line)) is not None:
            rename_from = unquote_path(m.group(2))
            copied = m.group(1) == "copy"
        elif (m := _RENAME_TO.match(line)) is not None:
            rename_to = unquote_path(m.group(1))
    old_path = rename_from or _clean(getattr(patched, "source_file", None))
    new_path = rename_to or _clean(getattr(patched, "target_file", None))
    git_style = any(line.startswith("diff --git ") for line in info)
    if old_path and new_path and old_path != new_path and rename_from is rename_to is None:
        # no rename: git writes "rename from/to" (or copy) for one; names that still differ
        # differ by their prefixes (git diff --no-index v1 v2, --src-prefix=old/) as in a
        # plain diff -ru old new
        old_path = new_path = _traditional_name(old_path, new_path, trees)
    # git names an added or deleted file (/dev/null, "new file mode"); its hunk "-0,0" is an
    # empty file filled and "+0,0" a file emptied, both still there. A plain diff says neither:
    # there "-0,0" (diff -N) is the file's creation.
    if old_path is None or (not git_style and getattr(patched, "is_added_file", False)):
        status, old_path = ChangeStatus.ADD, None
    elif new_path is None or (not git_style and getattr(patched, "is_removed_file", False)):
        status, new_path = ChangeStatus.DELETE, None
    elif old_path and new_path and old_path != new_path:
        status = ChangeStatus.COPY if copied else ChangeStatus.RENAME
    else:
        status = ChangeStatus.MODIFY
    hunks = tuple(_convert_hunk(h) for h in patched)  # type: ignore[attr-defined]
    non_utf8 = any(_LOSSY.search(line.value) is not None
                   for hunk in patched for line in hunk)  # type: ignore[attr-defined]
    return FileChange(
        status=status, old_path=old_path, new_path=new_path,
        old_mode=getattr(patched, "source_mode", None),
        new_mode=getattr(patched, "target_mode", None),
        old_blob=old_blob, new_blob=new_blob,
        is_binary=bool(getattr(patched, "is_binary_file", False)), non_utf8=non_utf8,
        hunks=hunks,
    )


def _traditional_name(old_path: str, new_path: str,
                      trees: set[tuple[str, str]] | None = None) -> str:
    """The one file a diff that names no rename changes: its two names are the copies
    compared, ``diff -ru old/ new/`` gives ``old/x.py`` and ``new/x.py`` (the path is ``x.py``,
    as ``patch -p1`` reads it), ``diff -u x.py.orig x.py`` gives the new file's own name."""
    old_rest = old_path.partition("/")[2]
    if old_rest and old_rest == new_path.partition("/")[2]:
        if trees is not None:
            trees.add((old_path.partition("/")[0], new_path.partition("/")[0]))
        return old_rest
    return new_path


def _convert_hunk(hunk: object) -> Hunk:
    lines: list[DiffLine] = []
    old_missing = new_missing = False
    previous = " "
    for line in hunk:  # type: ignore[attr-defined]
        kind = line.line_type
        if kind == "\\":
            old_missing |= previous in ("-", " ")
            new_missing |= previous in ("+", " ")
            continue
        value = _replaced(line.value.rstrip("\n"))
        if value.endswith("\r"):
            value = value[:-1]
        kind = kind if kind in ("+", "-") else " "
        lines.append(DiffLine(kind, value, line.source_line_no, line.target_line_no))
        previous = kind
    return Hunk(
        hunk.source_start, hunk.source_length, hunk.target_start,  # type: ignore[attr-defined]
        hunk.target_length, _replaced(hunk.section_header or ""),  # type: ignore[attr-defined]
        tuple(lines),
        old_missing, new_missing,
    )
