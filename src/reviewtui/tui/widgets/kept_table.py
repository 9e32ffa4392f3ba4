"""The workbench's first rows as last shown, on the loading view while the change loads.

Same columns as the unit table, fitted to the same width by the same rule, in the same place
on the screen (``#units`` of the app's CSS): when the workbench's table takes its place the
rows do not move unless the change did. The cursor moves on them as on the table (arrows,
pages, j and k); the unit it is on is kept selected in the workbench
(``LoadingView.selected_unit``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.events import Key, Resize

from reviewtui.tui.widgets.fixed_width_table import FixedWidthTable
from reviewtui.tui.widgets.unit_table import COLUMNS, WIDTHS, ColumnFit, fit_columns, fit_location

if TYPE_CHECKING:
    from reviewtui.tui.kept_screen import KeptRow, KeptScreen

_PLACE = {name: n for n, name in enumerate(COLUMNS)}
# The moves on the kept rows (the workbench's keymap is read with the change: the default's j
# and k, and the table's own), and the keys that quit (the loading view's q, the app's).
MOVES = {"j": "cursor_down", "down": "cursor_down", "k": "cursor_up", "up": "cursor_up",
         "pagedown": "page_down", "pageup": "page_up", "ctrl+home": "scroll_top",
         "ctrl+end": "scroll_bottom", "home": "scroll_top", "end": "scroll_bottom"}
QUITS = frozenset({"q", "ctrl+q", "ctrl+c"})


def kept_cells(row: KeptRow, fit: ColumnFit) -> list[Text]:
    """The row's cells in ``fit``'s columns (the location cut as the unit table cuts it)."""
    cells = []
    for name in fit.columns:
        text, style = row.cells[_PLACE[name]]
        if name == "location":
            text = fit_location(text, fit.location_width)
        cells.append(Text(text, style=style))
    return cells


class KeptTable(FixedWidthTable[Text]):
    """The kept rows, added once the table knows its width (and again if it changes).

    Keys are answered here, in the order they come, rather than by bindings (Textual runs a
    binding once its key has gone up to the app, after the next keys have reached this table:
    typed quickly, ``j s`` held the ``s`` for the row the ``j`` had not left yet). A move
    moves; any other key but quitting is held for the workbench, with every key after it,
    and the unit the cursor was on (``LoadingView`` hands them over)."""

    def __init__(self, screen: KeptScreen, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.kept = screen
        self.fit: ColumnFit | None = None
        self.held_keys: list[tuple[str, str | None]] = []
        self.held_unit: str | None = None  # the unit under the cursor at the first of them

    def on_key(self, event: Key) -> None:
        if event.key in QUITS:
            return
        event.stop()
        event.prevent_default()
        move = MOVES.get(event.key)
        if move is not None and not self.held_keys:
            getattr(self, f"action_{move}")()
            return
        if not self.held_keys:
            self.held_unit = self.cursor_unit
        self.held_keys.append((event.key, event.character))

    @property
    def cursor_unit(self) -> str | None:
        row = self.cursor_row
        return self.kept.rows[row].unit_id if 0 <= row < len(self.kept.rows) else None

    def on_resize(self, event: Resize) -> None:
        fit = fit_columns(event.size.width, self.kept.longest)
        if fit == self.fit:
            return
        cursor = self.cursor_row
        self.fit = fit
        self.clear(columns=True)
        for name in fit.columns:
            self.add_column(name, key=name,
                            width=fit.location_width if name == "location" else WIDTHS[name])
        self.add_keyed_rows((row.unit_id, kept_cells(row, fit)) for row in self.kept.rows)
        if 0 < cursor < self.row_count:
            self.move_cursor(row=cursor)
