"""Wrapping, hit-testing and drawing a ``TextArea``'s lines by grapheme cluster.

What a stock ``TextArea`` gets wrong on screen, and what this module replaces (the cluster
arithmetic itself is ``reviewtui.tui.text_cursor`` and ``text_wrap``, pure and tested without
a terminal):

* its soft wrap folds long words by code point, splitting a cluster across two rows, and maps
  a screen cell back to a column by code point: ``GraphemeWrappedDocument`` wraps and maps on
  clusters;
* it draws the cursor over one code point, which splits a cluster into two differently styled
  pieces: ``keep_clusters_whole`` regroups a rendered line so a style never changes inside a
  cluster.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.document._document import Location
from textual.document._wrapped_document import WrappedDocument
from textual.geometry import Offset
from textual.strip import Strip

from reviewtui.tui import text_cursor as tc
from reviewtui.tui import text_wrap as tw


class GraphemeWrappedDocument(WrappedDocument):
    """Textual's wrapped view of the document, wrapping and hit-testing on whole clusters.

    Only the computation of wrap offsets and the cell<->column mapping change; the data layout
    (the private caches ``TextArea`` reads when rendering) is kept as Textual defines it.
    """

    @property
    def wrapped_at(self) -> int:
        """The width the document is currently wrapped at (0: not wrapped)."""
        return self._width

    def wrap(self, width: int, tab_width: int | None = None) -> None:
        """Wrap every line with :func:`text_wrap.wrap_offsets` (clusters never split)."""
        self._width = width
        if tab_width:
            self._tab_width = tab_width
        lines = self.document.lines
        self._wrap_offsets = [tw.wrap_offsets(line, width, self._tab_width) for line in lines]
        self._tab_width_cache = [tw.tab_widths(line, self._tab_width) for line in lines]
        self._reindex()

    def wrap_range(self, start: Location, old_end: Location, new_end: Location) -> None:
        """Re-wrap only the edited lines, then rebuild the row index (cheap: no measuring)."""
        old_count = len(self._wrap_offsets)
        line_count = self.document.line_count
        top = min(start[0], old_end[0], new_end[0])
        old_bottom = max(start[0], old_end[0])
        new_bottom = old_bottom + line_count - old_count
        if not (0 <= top <= old_bottom < old_count and top <= new_bottom < line_count):
            self.wrap(self._width)
            return
        lines = self.document.lines[top : new_bottom + 1]
        tab = self._tab_width
        self._wrap_offsets[top : old_bottom + 1] = [
            tw.wrap_offsets(line, self._width, tab) for line in lines
        ]
        self._tab_width_cache[top : old_bottom + 1] = [tw.tab_widths(line, tab) for line in lines]
        self._reindex()

    def _reindex(self) -> None:
        offset_to_line_info: list[tuple[int, int]] = []
        line_index_to_offsets: list[list[int]] = []
        y = 0
        for line_index, offsets in enumerate(self._wrap_offsets):
            sections = len(offsets) + 1
            line_index_to_offsets.append(list(range(y, y + sections)))
            offset_to_line_info.extend((line_index, section) for section in range(sections))
            y += sections
        self._offset_to_line_info = offset_to_line_info
        self._line_index_to_offsets = line_index_to_offsets

    def location_to_offset(self, location: Location) -> Offset:
        """The (x, y) cell of a location, measured per cluster like the wrapping."""
        row, col = location
        row = max(0, min(row, len(self._wrap_offsets) - 1))
        line = self.document[row] if row < self.document.line_count else ""
        section, x = tw.locate(line, self._wrap_offsets[row], col, self._tab_width)
        ys = self._line_index_to_offsets[row]
        return Offset(x, ys[min(section, len(ys) - 1)])

    def offset_to_location(self, offset: Offset) -> Location:
        """The boundary under a cell (mouse clicks, page up/down): never inside a cluster."""
        info = self._offset_to_line_info
        line_index, section = info[max(0, min(offset.y, len(info) - 1))]
        return line_index, self.get_target_document_column(line_index, max(0, offset.x), section)

    def get_target_document_column(self, line_index: int, x_offset: int, y_offset: int) -> int:
        """The boundary at cell ``x_offset`` of section ``y_offset`` (negative: from the end)."""
        offsets = self._wrap_offsets[line_index]
        section = y_offset if y_offset >= 0 else len(offsets) + 1 + y_offset
        return tw.column_at_x(
            self.document[line_index], offsets, section, x_offset, self._tab_width
        )


def keep_clusters_whole(strip: Strip) -> Strip:
    """Regroup segments so that no style change falls inside a grapheme cluster.

    ``TextArea`` styles the cursor as ``[column, column + 1)``, i.e. the first code point of a
    cluster; the rest of the cluster would be a separate, unstyled segment, which terminals draw
    as a broken glyph. Continuation code points move into the segment holding the cluster start.
    """
    segments = list(strip)
    text = "".join(segment.text for segment in segments)
    if text.isascii():
        return strip
    bounds = set(tc.grapheme_bounds(text))
    out: list[Segment] = []
    position = 0
    changed = False
    for segment in segments:
        piece = segment.text
        if out and piece and position not in bounds:
            take = tc.next_boundary(text, position) - position
            head, piece = piece[:take], piece[take:]
            previous = out[-1]
            out[-1] = Segment(previous.text + head, previous.style, previous.control)
            changed = True
        position += len(segment.text)
        if piece:
            out.append(Segment(piece, segment.style, segment.control))
    return Strip(out) if changed else strip
