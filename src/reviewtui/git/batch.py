"""Reading what ``git cat-file --batch`` prints: one record per object asked, in that order.

Each record is ``<oid> <type> <size>``, a newline, the contents and a newline; an object git
cannot name is one line (``<name> missing``, ``<name> ambiguous``). The workbench reads
contents this way in several places (the change's blobs, search hits, a tree's files for the
reach, header samples): they share this one reader of the format.
"""

from __future__ import annotations

from collections.abc import Iterator


def batch_records(out: bytes, count: int) -> Iterator[tuple[bytes, int, int] | None]:
    """For each of the ``count`` objects asked, in order: its type and where its contents are
    in ``out`` (start, size), or None when git names no such object. Ends early when ``out``
    ends before the last record (git stopped midway)."""
    position = 0
    for _ in range(count):
        header_end = out.find(b"\n", position)
        if header_end < 0:
            return
        header = out[position:header_end].split()
        position = header_end + 1
        if len(header) != 3 or not header[2].isdigit():
            yield None
            continue
        size = int(header[2])
        yield header[1], position, size
        position += size + 1
