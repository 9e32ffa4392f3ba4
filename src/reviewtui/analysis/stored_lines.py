"""A snapshot's diff lines, read when first asked for: most opens never look at them.

A warm open of a large committed range used to load and rebuild every diff line of the change
from its snapshot (a quarter of a million ``DiffLine`` objects on 8,000 units: ~0.3 s of a
1.5 s ``index``), though the index, the priority order and the workbench's table need none of
them -- the workbench shows the lines of the unit under its cursor. So a snapshot keeps each
file's lines apart, as one ``marshal`` blob (``FileLines``; a view of the snapshot's bytes as
read, not a copy, until it is used), and every hunk of that file holds
a ``StoredLines``: a sequence of its lines that loads the file's blob on first use and builds
the hunk's ``DiffLine`` objects once. A unit's piece of a hunk is a view of the same lines
(slicing does not load them), and its lines are the very objects of the hunk's (the per-file
records find a unit's hunk by them). It compares, hashes and pickles like the tuple it stands
for.

The blob was written by this Python (the snapshot's key holds its version) and is covered by
the snapshot's checksum, so a blob that does not hold its hunks' lines is a bug, not a state
of the disk: ``ValueError`` says so.
"""

from __future__ import annotations

import marshal
import threading
from collections.abc import Iterator, Sequence
from typing import Any, overload

from reviewtui.git.model import DiffLine, diff_line


class FileLines:
    """One file's diff lines in the snapshot's layout: per hunk, its line kinds (one string),
    texts, old and new line numbers; each hunk's lines built once, when first asked for."""

    __slots__ = ("_blob", "_built", "_lock", "_rows")

    def __init__(self, blob: bytes | memoryview) -> None:
        self._blob: bytes | memoryview | None = blob
        self._rows: list[Any] | None = None
        self._built: dict[int, tuple[DiffLine, ...]] = {}
        self._lock = threading.Lock()  # one set of objects per hunk, whichever thread asks

    @staticmethod
    def encode(hunks: Sequence[Sequence[DiffLine]]) -> bytes:
        return marshal.dumps(tuple(
            ("".join(line.kind for line in lines), tuple(line.text for line in lines),
             tuple(line.old_no for line in lines), tuple(line.new_no for line in lines))
            for lines in hunks), 4)

    def hunk(self, index: int, expected: int) -> tuple[DiffLine, ...]:
        found = self._built.get(index)
        if found is not None:
            return found
        with self._lock:
            found = self._built.get(index)
            if found is None:
                found = self._built[index] = self._build(index, expected)
        return found

    def _build(self, index: int, expected: int) -> tuple[DiffLine, ...]:
        if self._rows is None:
            assert self._blob is not None
            rows = marshal.loads(self._blob)
            if not isinstance(rows, tuple):
                raise ValueError("a snapshot's diff lines are not a table")
            self._rows, self._blob = list(rows), None
        kinds, texts, olds, news = self._rows[index]
        if not len(kinds) == len(texts) == len(olds) == len(news) == expected:
            raise ValueError("a snapshot's hunk does not hold its lines")
        self._rows[index] = None  # its lines hold what is needed from now on
        return tuple(map(diff_line, kinds, texts, olds, news))


class StoredLines(Sequence[DiffLine]):
    """Lines ``start``..``end`` of hunk ``index`` of a ``FileLines``, loaded on first use."""

    __slots__ = ("_end", "_file", "_index", "_length", "_read", "_start")

    def __init__(self, file: FileLines, index: int, length: int,
                 start: int = 0, end: int | None = None) -> None:
        self._file, self._index, self._length = file, index, length
        self._start, self._end = start, length if end is None else end
        self._read: tuple[DiffLine, ...] | None = None

    def _lines(self) -> tuple[DiffLine, ...]:
        read = self._read
        if read is None:
            whole = self._file.hunk(self._index, self._length)
            read = self._read = (whole if self._start == 0 and self._end == self._length
                                 else whole[self._start:self._end])
        return read

    def __len__(self) -> int:
        return self._end - self._start

    @overload
    def __getitem__(self, item: int) -> DiffLine: ...

    @overload
    def __getitem__(self, item: slice) -> Sequence[DiffLine]: ...

    def __getitem__(self, item: int | slice) -> DiffLine | Sequence[DiffLine]:
        if isinstance(item, slice):
            start, stop, step = item.indices(len(self))
            if step == 1:  # a unit's piece of a hunk: still not loaded
                return StoredLines(self._file, self._index, self._length,
                                   self._start + start, self._start + max(start, stop))
            return self._lines()[item]
        return self._lines()[item]

    def __iter__(self) -> Iterator[DiffLine]:
        return iter(self._lines())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StoredLines):
            return self._lines() == other._lines()
        if isinstance(other, tuple):
            return self._lines() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._lines())

    def __repr__(self) -> str:
        return repr(self._lines())

    def __reduce__(self) -> tuple[type[tuple[DiffLine, ...]], tuple[tuple[DiffLine, ...]]]:
        return tuple, (self._lines(),)  # pickled (and copied) as the tuple it stands for
