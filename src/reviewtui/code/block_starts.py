"""A file's lines and where blocks start in them, found by regex over the whole text.

The skeletons (``reviewtui.code.windows``) ask, per indentation, which rows start a block (a
line at that indentation that continues or closes nothing, outside triple-quoted strings), and
where C++ access labels and column-0 namespaces are. Each is one scan of the bytes in C, kept
per file; a nested block's starts are scanned in its parent's rows only.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re

# A line that opens with one of these continues or closes something; it never starts a block
# (a brace on its own line opens the body of the header above it: C#, C, C++ layout). An
# annotation or decorator is glued to the block below it -- unless that block's header follows
# it on its line (``@Test fun f() {``, ``@Override public void f() {``): a start of its own.
NOT_START = (
    rb"[ \t\r\n]|\)|\]|\}|\{|\[|(?:else|elif|except|finally|end|rescue|ensure|when|catch)\b"
    rb"|template[ \t]*<"
    rb"|\"\"\"|'''|\*|,|\.|\?|:|\+|-|&&|\|\|"
    rb"|@(?![\w.:]+(?:\([^()\n]*\))?[ \t]+[A-Za-z_])|\#|//|/\*"
)
# A C++ access label governs the members below it: a member's skeleton keeps the last one.
_ACCESS_LABEL = rb"[ \t]*(?:public|protected|private)(?:[ \t]+\w+)?[ \t]*:[ \t]*$"
# A namespace opened at column 0 above a change usually has an unindented body: a skeleton would
# lose it (and the names it qualifies), so such files are parsed whole.
_OPEN_NAMESPACE = (
    rb"(?:inline[ \t]+)?namespace(?:[ \t]+[\w:.\\]+)?[ \t]*\{?[ \t]*(?://.*)?\r?$")


class Lines:
    """A file's lines, and the rows where a block starts per indentation (found by regex)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.rows = data.split(b"\n")
        self._starts: dict[tuple[int, int, int], list[int]] = {}
        self._strings: tuple[list[int], list[int]] | None = None
        self._offsets: list[int] | None = None
        self._marks: dict[bytes, list[int]] = {}
        self._labels: list[int] | None = None
        self._namespaces: list[int] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def _string_spans(self) -> tuple[list[int], list[int]]:
        """Where each closed triple-quoted string opens and closes (byte offsets of its two
        quotes, in order). A row is inside one (a docstring's prose is no block start) when
        its first byte lies after the opening quote and not after the closing one: the rows
        after the opening quote's, up to the closing quote's. Offsets need no row numbers:
        counting the rows of every quote and a set of the rows inside cost 0.07-0.10 s of
        Django 4.2 -> 5.2, the offsets 0.06 s (most of it the two scans of the bytes)."""
        if self._strings is None:
            doubles = _quote_positions(self.data, b'"""')
            singles = _quote_positions(self.data, b"'''")
            if not doubles or not singles:  # one kind of quote: they pair up in order
                quotes = doubles or singles
                del quotes[len(quotes) // 2 * 2:]
                self._strings = (quotes[0::2], quotes[1::2])
                return self._strings
            opens: list[int] = []
            closes: list[int] = []
            opened: bytes | None = None
            open_at = 0
            for start, quote in _merged(doubles, singles):
                if opened is None:
                    opened, open_at = quote, start
                elif quote == opened:
                    opens.append(open_at)
                    closes.append(start)
                    opened = None
            self._strings = (opens, closes)
        return self._strings

    def _offset(self, row: int) -> int:
        """Byte offset of 0-based ``row`` (the data's length past the last row)."""
        if row >= len(self.rows):
            return len(self.data)
        if self._offsets is None:  # each row's length and a newline before it
            self._offsets = list(itertools.accumulate(map(len, self.rows), initial=0))
        return self._offsets[row] + row

    def rows_with(self, key: bytes, pattern: re.Pattern[bytes]) -> list[int]:
        """Sorted 0-based rows where ``pattern`` (a multi-line regex) matches (cached by key,
        a literal that every match contains)."""
        found = self._marks.get(key)
        if found is None:
            data = self.data
            found = []
            if key not in data:  # the key is a literal every match contains: skip the scan
                self._marks[key] = found
                return found
            found = self._matched_rows(pattern)
            self._marks[key] = found
        return found

    def _matched_rows(self, pattern: re.Pattern[bytes]) -> list[int]:
        data = self.data
        found: list[int] = []
        row = position = 0
        for match in pattern.finditer(data):
            row += data.count(b"\n", position, match.start())
            position = match.start()
            if not found or found[-1] != row:
                found.append(row)
        return found

    def _line_starts(self, head: bytes, flags: int = 0, low: int = 0, high: int | None = None,
                     outside_strings: bool = False) -> list[int]:
        """Sorted 0-based rows ``low..high`` (``high`` None: to the end) whose text starts
        with a match of ``head`` (which reads no further than the end of its row), those
        inside a triple-quoted string left out if ``outside_strings``. A line start is
        searched as the newline before it: ``re`` scans for a leading literal quickly, where
        a multi-line ``^`` is tried at every byte (3x slower)."""
        data = self.data
        count = data.count
        begin = self._offset(low) if low else 0
        end = self._offset(high + 1) if high is not None else len(data)
        opens, closes = self._string_spans() if outside_strings else ([], [])
        found = [low] if (re.compile(head, flags).match(data, begin, end)
                          and not _inside(opens, closes, begin)) else []
        row, position = low, begin
        last = high if high is not None else len(self.rows) - 1
        for match in re.compile(rb"\n" + head, flags).finditer(data, begin, end):
            start = match.start()
            row += count(b"\n", position, start)
            position = start
            if row + 1 > last:
                break  # the scan stops at ``end``: a match there sees no row after it
            if not opens or not _inside(opens, closes, start + 1):
                found.append(row + 1)
        return found

    def open_namespaces(self) -> list[int]:
        """Sorted 0-based rows opening a namespace at column 0 (``_OPEN_NAMESPACE``), found as
        line starts: the multi-line ``^`` regex cost 0.05 s of Django 4.2 -> 5.2 (its URL
        modules say "namespace")."""
        if self._namespaces is None:
            self._namespaces = (self._line_starts(_OPEN_NAMESPACE, re.MULTILINE)
                                if b"namespace" in self.data else [])
        return self._namespaces

    def access_labels(self) -> list[int]:
        """Sorted 0-based rows holding a C++ access label (``public:``), found in one scan."""
        if self._labels is None:
            data = self.data
            self._labels = (self._line_starts(_ACCESS_LABEL, re.MULTILINE)
                            if b"public" in data or b"protected" in data or b"private" in data
                            else [])
        return self._labels

    def starts(self, indent: int, low: int = 0, high: int | None = None) -> list[int]:
        """Sorted 0-based rows that start a block at exactly ``indent`` columns, of rows
        ``low..high`` (``high`` None: to the end). A nested block is looked for within its
        parent's rows only: scanning the whole file for each indentation cost 0.09 s of
        Django 4.2 -> 5.2 (63,000 rows found where a few hundred were asked about)."""
        high = len(self.rows) - 1 if high is None else min(high, len(self.rows) - 1)
        key = (indent, low, high)
        found = self._starts.get(key)
        if found is None:
            found = self._line_starts(rb"[ \t]{%d}(?!%s)" % (indent, NOT_START), 0, low,
                                      high, outside_strings=True)
            self._starts[key] = found
        return found


def _inside(opens: list[int], closes: list[int], at: int) -> bool:
    """Does the row starting at byte ``at`` lie inside one of the strings ``opens``/``closes``
    (``Lines._string_spans``)?"""
    i = bisect.bisect_left(opens, at) - 1
    return i >= 0 and at <= closes[i]


def _quote_positions(data: bytes, quote: bytes) -> list[int]:
    """Where ``quote`` (three of one character) is in ``data``, scanned left to right as
    ``bytes.find`` from after each one would: the ends of the pieces ``split`` cuts."""
    pieces = data.split(quote)
    return list(map(operator.add, itertools.accumulate(map(len, pieces[:-1])),
                    range(0, 3 * (len(pieces) - 1), 3)))


def _merged(doubles: list[int], singles: list[int]) -> list[tuple[int, bytes]]:
    """The triple quotes at ``doubles`` and ``singles`` (``_quote_positions``) in order: the
    matches of a regex of the two scanned left to right (the two never overlap, each being
    three of one character). ``re`` tries an alternation at every byte (~10 ns a byte: 4 ms
    for a 370 kB test module); a search for one literal skips ahead."""
    found = [(start, b'"""') for start in doubles] + [(start, b"'''") for start in singles]
    found.sort()
    return found
