"""A ``DataTable`` whose columns all have fixed widths: new rows are not measured.

Textual measures every cell of every new row (rendering it) to size auto-width columns, even
when no column is one: about 1 s per 5,000 rows, on the core the rest of the app needs (the
loading view streams 8,000 units while the analysis runs beside it). With every column's width
given, only the table's virtual size is kept up to date.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

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
