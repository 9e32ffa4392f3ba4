"""A ``DataTable`` whose columns all have fixed widths: new rows are not measured.

Textual measures every cell of every new row (rendering it) to size auto-width columns, even
when no column is one: about 1 s per 5,000 rows, on the core the rest of the app needs (the
loading view streams 8,000 units while the analysis runs beside it). With every column's width
given, only the table's virtual size is kept up to date. ``add_keyed_rows`` adds many rows as
``add_row`` would, the cursor set once rather than once a row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets._data_table import Row as TableRow
from textual.widgets.data_table import DuplicateKey, RowKey

CellT = TypeVar("CellT")


class FixedWidthTable(DataTable[CellT]):
    """Give every column a width (``add_column(..., width=N)``); rows have no labels and no
    auto height."""

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
