"""The triage table: one row per unit, updated in place when the person decides something.

A ``DataTable`` (``ListView`` does not scale past a few thousand rows); a decision refreshes one
row's cells rather than rebuilding the table, so keys stay instant on very large changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from reviewtui.tui.triage import Row

STATUS_GLYPHS = {"new": ("●", "bold"), "reviewed": ("✓", "green"), "skipped": ("–", "dim"),
                 "changed": ("↻", "yellow")}
RISK_STYLES = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "dim"}
COLUMNS = ("st", "location", "tags", "conf", "rule", "llm", "final", "by", "risk", "find")
WIDTHS = {"st": 2, "location": 36, "tags": 22, "conf": 4, "rule": 12, "llm": 12, "final": 12,
          "by": 4, "risk": 8, "find": 4}


def _cells(row: Row) -> list[Text | str]:
    glyph, style = STATUS_GLYPHS[row.status]
    item, unit = row.item, row.unit
    risk = item.risk or "-"
    return [
        Text(glyph, style=style),
        Text(unit.location, style="dim" if row.status == "skipped" else ""),
        ",".join(unit.tags)[:40] or "-",
        f"{item.rule_confidence:.2f}" if item.rule_confidence is not None else "-",
        item.rule_context_level.value if item.rule_context_level else "-",
        item.llm_context_level.value if item.llm_context_level else "-",
        Text(item.final_context_level.value,
             style="bold" if item.provenance.level == "user" else ""),
        item.provenance.level,
        Text(risk, style=RISK_STYLES.get(risk, "")),
        str(row.findings) if row.findings else "",
    ]


class UnitTable(DataTable[Text | str]):
    """Rows keyed by unit id."""

    class UnitSelected(Message):
        """The cursor moved to a unit (or the table was refilled)."""

        def __init__(self, unit_id: str) -> None:
            super().__init__()
            self.unit_id = unit_id

    def __init__(self, *, id: str | None = None, location_width: int = 36) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.location_width = max(12, min(location_width, 60))

    def on_mount(self) -> None:
        for name in COLUMNS:
            width = self.location_width if name == "location" else WIDTHS[name]
            self.add_column(name, key=name, width=width)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Every column has a fixed width and no row a label or auto height, so skip
        Textual's measuring of every new cell (about 1 s per 5,000 rows, on each refill)
        and keep only its virtual-size bookkeeping."""
        if any(column.auto_width for column in self.columns.values()):
            super()._update_dimensions(new_rows)
            return
        width = sum(column.get_render_width(self) for column in self.columns.values())
        header = self.header_height if self.show_header else 0
        self.virtual_size = Size(width + self._row_label_column_width,
                                 self._total_row_height + header)

    def show(self, rows: Sequence[Row], keep: str | None = None) -> None:
        """Replace every row; keep the cursor on ``keep`` if it is still shown."""
        self.clear()
        for row in rows:
            self.add_row(*_cells(row), key=row.unit.unit_id)
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep))

    def update_unit_row(self, row: Row) -> None:
        key = row.unit.unit_id
        if key not in self.rows:
            return
        for column, value in zip(COLUMNS, _cells(row), strict=True):
            self.update_cell(key, column, value)

    @property
    def current_unit(self) -> str | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return str(key.value) if key.value is not None else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.UnitSelected(str(event.row_key.value)))
