"""Structured fixes on findings: checked against the file as reviewed, spliced byte-exactly.

The agent may attach ``"fix": {"start_line", "end_line", "replacement"}`` to a finding: after-side
lines of the finding's file and the text that replaces them (empty: delete them). A fix is only
*applicable* when it can be applied without guessing: the file has an after side, the range lies
within it, the result still parses where a tree-sitter grammar exists (a fix that breaks the
syntax of a file that parsed is not offered as a patch), and, for a file that is not UTF-8, the
replacement is ASCII (its encoding is unknown, and ASCII reads the same in every encoding git
repositories hold). Otherwise the fix is kept as text only, with the reason.

Patching works on bytes: untouched lines are kept exactly (CRLF, a missing final newline, bytes
that are not UTF-8); replacement lines take the line ending of the lines they replace, and the
last one has no newline when the replaced range ended the file without one; a UTF-8 byte order
mark stays at the start of the file. Lines are counted as git counts them: by ``\\n``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from reviewtui.sessions.review_records import StoredFix

BOM = b"\xef\xbb\xbf"


def split_lines(data: bytes) -> list[bytes]:
    """``data`` as lines that keep their ``\\n`` (the last may have none); joined, ``data``."""
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def range_sha(lines: Sequence[bytes], start: int, end: int) -> str:
    """The hash of lines ``start``-``end`` (1-based, inclusive), line endings included."""
    return hashlib.sha256(b"".join(lines[start - 1:end])).hexdigest()


def holds(fix: StoredFix, data: bytes | None) -> bool:
    """Do ``data``'s lines of the fix's range still hold, byte for byte, the reviewed ones --
    or the reviewed LF lines as git's line-ending conversion (``text eol=crlf``,
    ``core.autocrlf``) checks them out, with CRLF? (What applying checks, and what an export
    checks before offering the fix.)"""
    if data is None:
        return False
    lines = split_lines(data)
    if fix.end_line > len(lines):
        return False
    if range_sha(lines, fix.start_line, fix.end_line) == fix.original_sha:
        return True
    window = lines[fix.start_line - 1:fix.end_line]
    return any(line.endswith(b"\r\n") for line in window) and range_sha(
        [line[:-2] + b"\n" if line.endswith(b"\r\n") else line for line in window],
        1, len(window)) == fix.original_sha


def moved_fix(fix: StoredFix, delta: int, data: bytes | None) -> StoredFix | None:
    """The fix ``delta`` lines further (``data``: the file now), when its reviewed lines are
    there; None when they are not."""
    if fix.start_line + delta < 1 or not fix.original_sha:
        return None
    moved = fix.model_copy(update={"start_line": fix.start_line + delta,
                                   "end_line": fix.end_line + delta})
    if data is None or not holds(moved, data):
        return None
    lines = split_lines(data)
    return moved.model_copy(update={"file_lines": len(lines),
                                    "final_newline": lines[-1].endswith(b"\n")})


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def line_ending(lines: Sequence[bytes], start: int, end: int) -> bytes:
    """The line ending new lines get: that of the first replaced line that has one, else of
    the nearest line before them, else ``\\n``."""
    for line in [*lines[start - 1:end], *reversed(lines[:start - 1])]:
        if line.endswith(b"\n"):
            return b"\r\n" if line.endswith(b"\r\n") else b"\n"
    return b"\n"


def patched(data: bytes, fix: StoredFix) -> bytes:
    """``data`` with the fix's lines replaced; the caller has checked the range."""
    lines = split_lines(data)
    old = lines[fix.start_line - 1:fix.end_line]
    ending = line_ending(lines, fix.start_line, fix.end_line)
    last_open = bool(old) and not old[-1].endswith(b"\n")
    encoding = "utf-8" if is_utf8(data) else "ascii"
    new = [text.encode(encoding) + ending for text in fix.replacement_lines]
    if new and last_open:
        new[-1] = new[-1][:-len(ending)]
    if fix.start_line == 1 and data.startswith(BOM):  # the file's byte order mark stays
        new = new or [b""]
        new[0] = BOM + new[0].removeprefix(BOM)
    return b"".join([*lines[:fix.start_line - 1], *new, *lines[fix.end_line:]])


def parse_fix(raw: Any) -> tuple[StoredFix | None, str | None]:
    """The agent's ``fix`` object as a ``StoredFix`` (not yet checked), or why it is unusable."""
    if raw is None:
        return None, None
    if not isinstance(raw, dict):
        return None, "fix is not an object"
    wanted = {key: raw[key] for key in ("start_line", "end_line", "replacement") if key in raw}
    if "replacement" not in wanted:
        return None, "fix has no replacement"
    wanted.setdefault("end_line", wanted.get("start_line"))
    try:
        fix = StoredFix.model_validate(wanted)
    except ValidationError as exc:
        first = exc.errors()[0]
        return None, f"fix: {'.'.join(map(str, first['loc']))}: {first['msg']}"
    if fix.end_line < fix.start_line:  # which lines it meant to replace is anyone's guess
        return None, f"fix: end_line {fix.end_line} is before start_line {fix.start_line}"
    return fix, None


def _syntax_error(path: str, before: bytes, after: bytes) -> str | None:
    """Why ``after`` does not parse when ``before`` did; None when it does, or no grammar."""
    from reviewtui.code.grammars import grammar, parser
    from reviewtui.code.languages import language_for_path

    name = language_for_path(path)
    g = grammar(name) if name is not None else None
    if g is None:
        return None
    if parser(g).parse(before).root_node.has_error:
        return None  # the file as reviewed does not parse either: no judgement to make
    root = parser(g).parse(after).root_node
    if not root.has_error:
        return None
    line = _first_error_line(root)
    return f"the result does not parse as {name}" + (f" (line {line})" if line else "")


def _first_error_line(node: Any) -> int | None:
    if node.is_error or node.is_missing:
        return int(node.start_point[0]) + 1
    for child in node.children:
        if child.has_error or child.is_missing:
            found = _first_error_line(child)
            if found is not None:
                return found
    return None


def check_fix(fix: StoredFix, path: str, data: bytes | None) -> StoredFix:
    """The fix checked against ``data``, the file as reviewed (None: no after side to patch):
    applicable with the reviewed lines' text and hash, or text only with the reason."""
    def text_only(reason: str) -> StoredFix:
        return fix.model_copy(update={"applicable": False, "reason": reason})

    if data is None:
        return text_only(f"{path} has no text after the change to patch (deleted, binary or "
                         "too large)")
    lines = split_lines(data)
    fix = fix.model_copy(update={"file_lines": len(lines),
                                 "final_newline": not lines or lines[-1].endswith(b"\n")})
    if fix.end_line > len(lines):
        return text_only(f"lines {fix.start_line}-{fix.end_line} are outside {path} "
                         f"({len(lines)} lines)")
    original = [line.decode("utf-8", "replace").rstrip("\r\n")
                for line in lines[fix.start_line - 1:fix.end_line]]
    ending = line_ending(lines, fix.start_line, fix.end_line).decode("ascii")
    fix = fix.model_copy(update={"original": original,
                                 "original_sha": range_sha(lines, fix.start_line, fix.end_line),
                                 "line_ending": ending})
    if not is_utf8(data) and not fix.replacement.isascii():
        return text_only(f"{path} is not UTF-8 and the replacement is not ASCII: its encoding "
                         "is unknown")
    problem = _syntax_error(path, data, patched(data, fix))
    if problem is not None:
        return text_only(problem)
    return fix.model_copy(update={"applicable": True, "reason": None})


def unified_diff(path: str, fix: StoredFix, current: Sequence[str] | None = None) -> str:
    """The fix as a unified diff of ``path`` (``current``: the lines it replaces, default the
    reviewed ones), what a preview shows and what can be copied as a patch."""
    old = list(current) if current is not None else fix.original
    new = fix.replacement_lines
    new_start = fix.start_line if new else fix.start_line - 1
    head = [f"--- a/{path}", f"+++ b/{path}",
            f"@@ -{fix.start_line},{len(old)} +{new_start},{len(new)} @@"]
    return "\n".join([*head, *(f"-{line}" for line in old), *(f"+{line}" for line in new)]) + "\n"
