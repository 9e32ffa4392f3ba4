"""Parse ``git diff --raw -z -p`` output into ``FileChange`` records.

The raw part (NUL-separated, never quoted) gives exact paths, modes, blob ids and the rename
status; the patch part gives the hunks. Both come from one git call, in the same order, so the
n-th raw record owns the n-th ``diff --git`` section. Hunk bodies are read by their line counts,
never by guessing from a line's first character, so content such as ``--- x`` inside a hunk is
safe. Non-UTF-8 content is decoded with replacement characters and flagged on the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from reviewtui.errors import GitCommandError, PatchError
from reviewtui.git.counted_hunks import counted_hunks
from reviewtui.git.model import ChangeStatus, DiffLine, FileChange, Hunk, diff_line

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_ZERO_OID = re.compile(rb"^0+$")
_STATUS = {
    "A": ChangeStatus.ADD,
    "M": ChangeStatus.MODIFY,
    "T": ChangeStatus.MODIFY,
    "D": ChangeStatus.DELETE,
    "R": ChangeStatus.RENAME,
    "C": ChangeStatus.COPY,
}


class _RawRecord:
    __slots__ = ("new_mode", "new_oid", "new_path", "old_mode", "old_oid", "old_path", "score",
                 "sections", "status")

    def __init__(self, meta: bytes, path1: bytes, path2: bytes | None) -> None:
        old_mode, new_mode, old_oid, new_oid, status = meta[1:].decode("ascii").split(" ")
        self.status = _STATUS.get(status[0], ChangeStatus.MODIFY)
        # a type change (a file becoming a symlink...) is patched as a deletion and an addition
        self.sections = 2 if status[0] == "T" else 1
        self.score = int(status[1:]) if len(status) > 1 and status[1:].isdigit() else None
        self.old_mode = None if old_mode == "000000" else old_mode
        self.new_mode = None if new_mode == "000000" else new_mode
        self.old_oid = None if _ZERO_OID.match(old_oid.encode()) else old_oid
        self.new_oid = None if _ZERO_OID.match(new_oid.encode()) else new_oid
        first = path1.decode("utf-8", "replace")
        second = path2.decode("utf-8", "replace") if path2 is not None else None
        self.old_path: str | None = first
        self.new_path: str | None = second if second is not None else first
        if self.status is ChangeStatus.ADD:
            self.old_path = None
        elif self.status is ChangeStatus.DELETE:
            self.new_path = None


def _split_raw(data: bytes) -> tuple[list[_RawRecord], int]:
    """The raw records at the start of ``data`` and where the patch part starts.

    Raises ``ValueError`` when ``data`` ends inside a record (more output is on its way).
    """
    records: list[_RawRecord] = []
    pos = 0
    size = len(data)
    while pos < size and data[pos : pos + 1] == b":":
        meta_end = data.index(b"\0", pos)
        meta = data[pos:meta_end]
        path_end = data.index(b"\0", meta_end + 1)
        path1 = data[meta_end + 1 : path_end]
        pos = path_end + 1
        path2 = None
        status_char = meta.rsplit(b" ", 1)[-1][:1]
        if status_char in (b"R", b"C"):
            end2 = data.index(b"\0", pos)
            path2 = data[pos:end2]
            pos = end2 + 1
        records.append(_RawRecord(meta, path1, path2))
    while pos < size and data[pos : pos + 1] in (b"\0", b"\n"):
        pos += 1
    return records, pos


def _sections(patch: bytes) -> list[bytes]:
    if not patch:
        return []
    if not patch.startswith(b"diff --git "):
        raise GitCommandError("unexpected output from git diff (no 'diff --git' header)")
    starts = [0]
    needle = b"\ndiff --git "
    index = patch.find(needle)
    while index != -1:
        starts.append(index + 1)
        index = patch.find(needle, index + 1)
    starts.append(len(patch))
    return [patch[starts[i] : starts[i + 1]] for i in range(len(starts) - 1)]


def _decode(section: bytes) -> tuple[str, bool]:
    """The section's text and whether its *content* (the hunks) holds bytes that are not
    UTF-8; a name that is not UTF-8 appears in the headers but says nothing of the content."""
    try:
        return section.decode("utf-8"), False
    except UnicodeDecodeError:
        return section.decode("utf-8", "replace"), _lossy_hunks(section)


def _lossy_hunks(section: bytes) -> bool:
    """Whether the hunks of ``section`` (one ``diff --git`` part, or two for a type change)
    hold bytes that are not UTF-8: each part from its first hunk header on."""
    for part in section.split(b"\ndiff --git "):
        start = part.find(b"\n@@ ")
        if start == -1:
            continue
        try:
            part[start:].decode("utf-8")
        except UnicodeDecodeError:
            return True
    return False


def parse_hunks(lines: list[str], start: int, *, where: str) -> tuple[list[Hunk], bool]:
    """Parse the hunks found from ``lines[start]`` on; returns (hunks, saw_binary_marker)."""
    hunks: list[Hunk] = []
    binary = False
    i = start
    n = len(lines)
    while i < n:
        line = lines[i]
        if not line.startswith("@@"):
            if line.startswith(("Binary files ", "GIT binary patch")):
                binary = True
            i += 1
            continue
        match = HUNK_HEADER.match(line)
        if match is None:
            raise PatchError(f"malformed hunk header in {where}: {line[:80]!r}")
        old_start = int(match.group(1))
        old_count = int(match.group(2)) if match.group(2) is not None else 1
        new_start = int(match.group(3))
        new_count = int(match.group(4)) if match.group(4) is not None else 1
        i, hunk = _read_hunk_body(
            lines, i + 1, old_start, old_count, new_start, new_count, match.group(5), where
        )
        hunks.append(hunk)
    return hunks, binary


def _read_hunk_body(
    lines: list[str],
    i: int,
    old_start: int,
    old_count: int,
    new_start: int,
    new_count: int,
    section: str,
    where: str,
) -> tuple[int, Hunk]:
    body: list[DiffLine] = []
    old_no, new_no = old_start, new_start
    old_left, new_left = old_count, new_count
    old_missing = new_missing = False
    n = len(lines)
    last_kind = ""
    while i < n and (old_left > 0 or new_left > 0):
        raw = lines[i]
        marker = raw[:1]
        text = raw[1:]
        if text.endswith("\r"):
            text = text[:-1]
        if marker == "\\":
            old_missing |= last_kind in ("-", " ")
            new_missing |= last_kind in ("+", " ")
            i += 1
            continue
        if marker == "+":
            body.append(diff_line("+", text, None, new_no))
            new_no += 1
            new_left -= 1
        elif marker == "-":
            body.append(diff_line("-", text, old_no, None))
            old_no += 1
            old_left -= 1
        elif marker in (" ", ""):
            body.append(diff_line(" ", text, old_no, new_no))
            old_no += 1
            new_no += 1
            old_left -= 1
            new_left -= 1
        else:
            raise PatchError(f"hunk in {where} ends early (line {raw[:60]!r})")
        last_kind = marker or " "
        i += 1
    if old_left > 0 or new_left > 0:
        raise PatchError(f"hunk in {where} is truncated")
    if i < n and lines[i].startswith("\\"):
        old_missing |= last_kind in ("-", " ")
        new_missing |= last_kind in ("+", " ")
        i += 1
    hunk = Hunk(old_start, old_count, new_start, new_count, section, tuple(body),
                old_missing, new_missing)
    return i, hunk


def _inconsistent(records: int, sections: int) -> GitCommandError:
    return GitCommandError(
        f"git diff output is inconsistent ({records} files, {sections} patches)")


def _iter_changes(records: list[_RawRecord], sections: list[bytes]) -> Iterator[FileChange]:
    if sum(r.sections for r in records) != len(sections):
        raise _inconsistent(len(records), len(sections))
    position = 0
    for record in records:
        yield _change(record, b"".join(sections[position:position + record.sections]))
        position += record.sections


def _change(record: _RawRecord, section: bytes) -> FileChange:
    text, non_utf8 = _decode(section)
    counted = counted_hunks(text, HUNK_HEADER)  # the usual patch, read hunk by hunk
    if counted is not None:
        hunks, binary = counted
    else:
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        hunks, binary = parse_hunks(lines, 1, where=record.new_path or record.old_path or "?")
    return FileChange(
        status=record.status,
        old_path=record.old_path,
        new_path=record.new_path,
        old_mode=record.old_mode,
        new_mode=record.new_mode,
        old_blob=record.old_oid,
        new_blob=record.new_oid,
        similarity=record.score if record.status in (ChangeStatus.RENAME,
                                                     ChangeStatus.COPY) else None,
        is_binary=binary,
        non_utf8=non_utf8,
        hunks=tuple(hunks),
    )


def parse_raw_patch(data: bytes) -> list[FileChange]:
    """Parse the combined ``--raw -z -p`` output of one ``git diff`` call."""
    records, pos = _split_raw(data)
    return list(_iter_changes(records, _sections(data[pos:])))


def parse_raw_patch_stream(chunks: Iterable[bytes]) -> list[FileChange]:
    """``parse_raw_patch`` over output still being written: each file is parsed as it completes.

    git computes the patches one file after the other, so parsing the finished ones while it
    works on the rest takes the parsing off the critical path. Only the newly arrived bytes are
    searched for the next ``diff --git`` header, so a huge patch costs no quadratic rescans.
    """
    buffer = bytearray()
    records: list[_RawRecord] | None = None
    changes: list[FileChange] = []
    waiting: list[bytes] = []
    needle = b"diff --git "
    for chunk in chunks:
        searched = max(0, len(buffer) - len(needle))
        buffer += chunk
        if records is None:
            if buffer.find(needle, searched) == -1:
                continue
            try:
                found, pos = _split_raw(bytes(buffer))
            except ValueError:
                continue  # a path happened to contain the header text
            if pos >= len(buffer) or not buffer.startswith(needle, pos):
                continue
            records = found
            del buffer[:pos]
            searched = 0
        cut = buffer.rfind(b"\n" + needle, max(0, searched - 1))
        if cut <= 0:
            continue
        complete = _sections(bytes(buffer[: cut + 1]))
        del buffer[: cut + 1]
        waiting = _extend(changes, records, waiting + complete)
    if records is None:
        return parse_raw_patch(bytes(buffer))
    waiting = _extend(changes, records, waiting + _sections(bytes(buffer)))
    if len(changes) != len(records) or waiting:
        raise _inconsistent(len(records), len(changes) + len(waiting))
    return changes


def _extend(changes: list[FileChange], records: list[_RawRecord],
            sections: list[bytes]) -> list[bytes]:
    """Parse the files whose sections have all arrived; the sections still waiting for the
    rest of their file (the second half of a type change) are returned."""
    position = 0
    while len(changes) < len(records):
        record = records[len(changes)]
        if position + record.sections > len(sections):
            break
        changes.append(_change(record, b"".join(sections[position:position + record.sections])))
        position += record.sections
    left = sections[position:]
    if len(changes) == len(records) and left:
        raise _inconsistent(len(records), len(changes) + len(left))
    return left
