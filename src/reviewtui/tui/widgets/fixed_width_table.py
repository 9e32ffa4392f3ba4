"""A ``DataTable`` whose columns all have fixed widths: new rows are not measured.

Textual measures every cell of every new row (rendering it) to size auto-width columns, even
when no column is one: about 1 s per 5,000 rows, on the core the rest of the app needs (the
loading view streams 8,000 units while the analysis runs beside it). With every column's width
given, only the table's virtual size is kept up to date. ``add_keyed_rows`` adds many rows as
``add_row`` would, the cursor set once rather than once a row.

A cell is painted through Rich's generic layout (padding, wrapping, cropping: ~0.25 ms a
cell), and Textual keeps a painted cell only until the table's data or focus changes: opening
the filter (the table loses focus) or clearing it (5,000 rows put back) painted every visible
cell again, 0.3-0.5 s on a large change. Most cells repeat (a level, a risk, a confidence), so
a painted cell is kept by what it shows -- its text and styles, its width -- and only the
position Textual marks on every cell (row and column, for the mouse) is added to each use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.events import Resize
from textual.geometry import Size
from textual.renderables.styled import Styled
from textual.widgets import DataTable
from textual.widgets._data_table import Row as TableRow
from textual.widgets.data_table import DuplicateKey, RowKey

CellT = TypeVar("CellT")
Lines = list[list[Segment]]
PAINTED_KEPT = 4096  # distinct painted cells kept (a screen of a large table holds ~600)


class FixedWidthTable(DataTable[CellT]):
    """Give every column a width (``add_column(..., width=N)``); rows have no labels and no
    auto height."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._painted: LRUCache[tuple[object, ...], Lines] = LRUCache(PAINTED_KEPT)
        self._painted_width = -1

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False) -> Lines:
        """Textual's cell, painted once per distinct look (see the module's docstring): the
        same segments as ``DataTable._render_cell`` gives, for one-line text cells in data
        rows; anything else (the header, a label, a wrapped row) is Textual's own."""
        row_key = self._row_locations.get_key(row_index) if row_index >= 0 else None
        row = self.rows.get(row_key) if row_key is not None else None
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or row is None or column_key is None or row.height != 1:
            return super()._render_cell(row_index, column_index, base_style, width, cursor,
                                        hover)
        key = (row_key, column_key, base_style, cursor, hover, self._show_hover_cursor,
               self._update_count, self._pseudo_class_state)
        lines = self._cell_render_cache.get(key)
        if lines is not None:
            return lines
        cell = self._get_row_renderables(row_index).cells[column_index]
        if not isinstance(cell, Text):
            return super()._render_cell(row_index, column_index, base_style, width, cursor,
                                        hover)
        fixed = row_index < self.fixed_rows or column_index < self.fixed_columns
        component, post = self._get_styles_to_render_cell(
            False, False, fixed, hover, cursor, self.show_cursor, self._show_hover_cursor,
            self.cursor_foreground_priority == "css", self.cursor_background_priority == "css")
        look = (cell.plain, cell.style, tuple(cell.spans), cell.justify, cell.overflow,
                cell.no_wrap, cell.end, cell.tab_size, base_style, component, post, width,
                self.cell_padding)
        painted = self._painted.get(look)
        if painted is None:
            painted = self._paint_plain(cell, base_style + component, post, width)
            if painted is None:
                options = self.app.console_options.update_dimensions(width, 1).update(
                    no_wrap=True)
                painted = self.app.console.render_lines(
                    Styled(Padding(cell, (0, self.cell_padding)),
                           pre_style=base_style + component, post_style=post), options)
            self._painted[look] = painted
        where = Style.from_meta({"row": row_index, "column": column_index})
        lines = [[Segment(text, style if control else where if style is None else style + where,
                          control) for text, style, control in line] for line in painted]
        self._cell_render_cache[key] = lines
        return lines

    def _paint_plain(self, cell: Text, pre: Style, post: Style, width: int) -> Lines | None:
        """The segments Rich's layout gives a one-style, one-line cell of printable text
        (a pad, the text cut or filled to the width, a pad), made directly: ~10 us a cell
        instead of ~170 (a first paint of a full table: ~450 cells). None for anything else
        (spans, a justification, tabs, control or format characters, no width inside the
        padding, no style under it: Rich leaves such segments unstyled)."""
        pad = self.cell_padding
        inner = width - 2 * pad
        plain = cell.plain
        if (cell.spans or cell.justify is not None or cell.overflow is not None
                or inner < 1 or not pre or not plain.isprintable()):
            return None
        own = self.app.console.get_style(cell.style) if cell.style else Style.null()
        around = pre + post
        # (Rich drops an empty text's segment when the text has a style of its own)
        text = [Segment(plain, pre + own + post)] if plain or not own else []
        line = Segment.adjust_line_length(text, inner, style=around)
        if pad:
            return [[Segment(" " * pad, around), *line, Segment(" " * pad, around)]]
        return [line]

    def _on_resize(self, event: Resize) -> None:
        """Only a new width can change what a row shows (its columns are fixed): Textual
        forgets every painted row on any resize, and showing or hiding the filter box
        under the table painted the whole table again."""
        if event.size.width == self._painted_width:
            event.prevent_default()  # not DataTable's own: the painted rows stay
        self._painted_width = event.size.width

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        if any(column.auto_width for column in self.columns.values()):
            super()._update_dimensions(new_rows)
            return
        width = sum(column.get_render_width(self) for column in self.columns.values())
        header = self.header_height if self.show_header else 0
        self.virtual_size = Size(width + self._row_label_column_width,
                                 self._total_row_height + header)

    def add_keyed_rows(self, rows: Iterable[tuple[str, Sequence[CellT]]]) -> None:
        """``add_row(*cells, key=key)`` for each of ``rows``, but the cursor set once.

        Textual's ``add_row`` sets the cursor to itself after every row (a reactive that
        always runs its watcher) and orders the columns again: most of the 0.3 s it took to
        fill a table with 2,600 rows. Here each row is recorded as ``add_row`` records it
        (the same table state: ``test_first_paint`` compares them), then the cursor is set
        and highlighted once, as ``add_row`` does for the last row."""
        columns = [column.key for column in self.ordered_columns]
        was_empty = not self.row_count
        added = 0
        for key_value, cells in rows:
            key = RowKey(key_value)
            if key in self._row_locations:
                raise DuplicateKey(f"The row key {key!r} already exists.")
            self._row_locations[key] = self.row_count
            self._data[key] = dict(zip(columns, cells, strict=True))
            self.rows[key] = TableRow(key, 1, None, False)
            self._new_rows.add(key)
            added += 1
        if not added:
            return
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate
        if was_empty and self.columns and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()
        self._update_count += added
        self.check_idle()
