"""The triage table: one row per unit, updated in place when the person decides something.

A ``DataTable`` (``ListView`` does not scale past a few thousand rows); a decision refreshes one
row's cells rather than rebuilding the table, so keys stay instant on very large changes.

The columns fit the table's width: the status, the location, the final level and the risk
always show (the location narrows first, keeping its end: the file name and the lines); the
others are added in order of use while they fit — priority, findings, confidence, who decided,
the rule's level, the LLM's level, the tags. A resize that changes the set rebuilds the columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.cache import LRUCache
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable

from reviewtui.tui.terminal_safe import shown_text
from reviewtui.tui.widgets.fixed_width_table import FixedWidthTable

if TYPE_CHECKING:  # named only: the loading view paints before the triage model loads
    from reviewtui.tui.triage import Row

STATUS_GLYPHS = {"new": ("●", "bold"), "reviewed": ("✓", "green"), "skipped": ("–", "dim"),
                 "changed": ("↻", "yellow")}
RISK_STYLES = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "dim"}
# Every column in display order, and its width (the location's is the most it may take).
COLUMNS = ("st", "location", "tags", "conf", "rule", "llm", "final", "by", "risk", "prio", "find")
WIDTHS = {"st": 2, "location": 60, "tags": 22, "conf": 4, "rule": 12, "llm": 12, "final": 12,
          "by": 4, "risk": 8, "prio": 4, "find": 4}
ALWAYS = ("st", "location", "final", "risk")
OPTIONAL = ("prio", "find", "conf", "by", "rule", "llm", "tags")  # the first is the last to go
LOCATION_MIN = 28  # the location shrinks to this before an optional column is kept
LOCATION_FLOOR = 12  # ...and below that only when nothing else fits
CELL_PADDING = 2  # DataTable pads each cell by one column on each side
SCROLLBAR = 2
MADE_KEPT = 20_000  # units whose cells are kept to be shown again (two large changes' worth)
IN_PLACE_MAX = 64  # rows added plus removed up to which the table changes in place


@dataclass(frozen=True)
class ColumnFit:
    """Which columns show, and how wide the location is."""

    columns: tuple[str, ...]
    location_width: int


def fit_columns(width: int, longest_location: int) -> ColumnFit:
    """The columns for a table ``width`` cells wide, in display order."""
    wanted = max(LOCATION_FLOOR, min(longest_location, WIDTHS["location"]))
    fixed = sum(WIDTHS[c] + CELL_PADDING for c in ALWAYS if c != "location")
    room = width - SCROLLBAR - fixed - CELL_PADDING  # the location and the optional columns
    location = min(wanted, LOCATION_MIN)
    room -= location
    shown = set(ALWAYS)
    for name in OPTIONAL:
        cost = WIDTHS[name] + CELL_PADDING
        if cost > room:
            break
        shown.add(name)
        room -= cost
    location = max(LOCATION_FLOOR, min(wanted, location + room))
    return ColumnFit(tuple(c for c in COLUMNS if c in shown), location)


def longest_location(locations: Iterable[str], default: int = 20) -> int:
    """The length of the longest of ``locations`` (``default`` when there are none): what the
    location column is fitted to, on open and after every refresh."""
    return max((len(location) for location in locations), default=default)


def fit_location(text: str, width: int) -> str:
    """``text`` in ``width`` cells, keeping its end (the file name and the lines); a control
    character in it shown as its picture (``terminal_safe``)."""
    text = shown_text(text, one_line=True)
    return text if len(text) <= width else "…" + text[len(text) - width + 1:]


def _same_display(old: Row, new: Row) -> bool:
    """Would ``new`` show the same cells as ``old``? (Identity first: a refresh keeps the
    unit and plan objects of everything it did not touch.)"""
    return (old.unit is new.unit and (old.item is new.item or old.item == new.item)
            and old.status == new.status
            and old.findings == new.findings and len(old.comments) == len(new.comments))


def _find_cell(findings: int, comments: int) -> Text:
    """Open findings, then ✎ and the reviewer's comments: ``2✎1``; at most the column's width."""
    text = (str(findings) if findings else "") + (f"✎{comments}" if comments else "")
    if len(text) > WIDTHS["find"]:
        text = text[:WIDTHS["find"] - 1] + "+"
    return Text(text, style="magenta") if comments and not findings else Text(text)


def cells_of_row(row: Row, fit: ColumnFit) -> list[Text]:
    """The row's cells, every one Text: a str cell is read as markup (see ``detail_pane``)."""
    glyph, style = STATUS_GLYPHS[row.status]
    item, unit = row.item, row.unit
    risk = item.risk or "-"
    cells: dict[str, Text] = {
        "st": Text(glyph, style=style),
        "location": Text(fit_location(unit.location, fit.location_width),
                         style="dim" if row.status == "skipped" else ""),
        "tags": Text(",".join(unit.tags)[:40] or "-"),
        "conf": Text(f"{item.rule_confidence:.2f}" if item.rule_confidence is not None
                     else "-"),
        "rule": Text(item.rule_context_level.value if item.rule_context_level else "-"),
        "llm": Text(item.llm_context_level.value if item.llm_context_level else "-"),
        "final": Text(item.final_context_level.value,
                      style="bold" if item.provenance.level == "user" else ""),
        "by": Text(item.provenance.level),
        "risk": Text(risk, style=RISK_STYLES.get(risk, "")),
        "prio": Text(f"{item.priority:.0f}" if item.priority is not None else "-"),
        "find": _find_cell(row.findings, len(row.comments)),
    }
    return [cells[name] for name in fit.columns]


class UnitTable(FixedWidthTable[Text]):
    """Rows keyed by unit id (every column a fixed width: see ``fixed_width_table``)."""

    class UnitSelected(Message):
        """The cursor moved to a unit (or the table was refilled)."""

        def __init__(self, unit_id: str) -> None:
            super().__init__()
            self.unit_id = unit_id

    def __init__(self, *, id: str | None = None, location_width: int = 36) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.longest_location = location_width
        self.fit = fit_columns(120, location_width)
        self._rows: Sequence[Row] = ()
        self._waiting = False  # rows were given before the table had a size...
        self._waiting_keep: str | None = None  # ...and the unit to keep the cursor on
        # Each unit's cells as last made, and for which row and columns: leaving a filter
        # puts thousands of rows back, and making their cells again (eleven Text objects a
        # row) took ~1 s for 5,000 rows. Bounded: a long --watch session makes new units.
        self._made: LRUCache[str, tuple[ColumnFit, Row, list[Text]]] = LRUCache(MADE_KEPT)

    def on_mount(self) -> None:
        self._add_columns()

    def _add_columns(self) -> None:
        for name in self.fit.columns:
            width = self.fit.location_width if name == "location" else WIDTHS[name]
            self.add_column(name, key=name, width=width)

    def on_resize(self, event: Resize) -> None:
        if self._waiting:  # the fill after the next refresh adds the rows (the first layout
            self._refit(event.size.width)  # may resize twice: wide, then the narrow layout)
            return
        keep = self.current_unit
        if self._refit(event.size.width):
            self.show(self._rows, keep=keep)

    def _refit(self, width: int) -> bool:
        """Fit the columns to ``width``; whether they changed (the table is then empty)."""
        fit = fit_columns(width, self.longest_location)
        if fit == self.fit:
            return False
        self.fit = fit
        self.clear(columns=True)
        self._add_columns()
        return True

    def fit_locations(self, longest: int) -> None:
        """Fit the location column to ``longest`` (the change's longest location, after a
        refresh: units came or went), within the same limits as on open; the rows shown are
        shown again in the new columns, the cursor on its unit."""
        if longest == self.longest_location:
            return
        self.longest_location = longest
        if self._waiting or not self.size.width:
            return  # the fill after the first layout fits the columns with this length
        keep = self.current_unit
        if self._refit(self.size.width):
            self.show(self._rows, keep=keep)

    def _fill_waiting(self) -> None:
        """Fill the table with the rows given before it was laid out, fitted to its width."""
        if not self._waiting:
            return
        self._waiting = False
        if self.size.width:
            self._refit(self.size.width)
        self.show(self._rows, keep=self._waiting_keep)

    def show(self, rows: Sequence[Row], keep: str | None = None) -> None:
        """Show ``rows`` in this order; keep the cursor on ``keep`` if it is still shown.

        When only a few rows come or go (a refresh after an edit, a finding accepted), the
        table is changed in place — rows removed and added, changed rows' cells updated, the
        order set by one sort — instead of being rebuilt (0.1-0.2 s for 2,600 rows).

        Before the table is laid out its width is not known: the rows wait for it (the first
        resize, or the next refresh), so that they are added once, in columns that fit,
        rather than added and then added again when the resize changes the columns."""
        if not self.size.width and not self._waiting and not self.row_count:
            self._waiting, self._waiting_keep = True, None
            self.call_after_refresh(self._fill_waiting)
        if self._waiting:
            self._rows = rows
            self._waiting_keep = keep if keep is not None else self._waiting_keep
            return
        if not self._show_in_place(rows):
            self.clear()
            self._add_rows(rows)
        self._rows = rows
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep))

    def _cells_of(self, row: Row) -> list[Text]:
        """The row's cells: those made for it before if it shows the same, in these columns.
        (Every row keeps cells of its own: the status cell's identity names the row's place
        when the rows are sorted in place.)"""
        made = self._made.get(row.unit.unit_id)
        if made is not None and made[0] == self.fit and _same_display(made[1], row):
            return made[2]
        cells = cells_of_row(row, self.fit)
        self._made[row.unit.unit_id] = (self.fit, row, cells)
        return cells

    def _add_rows(self, rows: Sequence[Row]) -> None:
        self.add_keyed_rows((row.unit.unit_id, self._cells_of(row)) for row in rows)

    def _show_in_place(self, rows: Sequence[Row]) -> bool:
        before = {row.unit.unit_id: row for row in self._rows}
        wanted = [row.unit.unit_id for row in rows]
        gone = before.keys() - set(wanted)
        added = len(wanted) - (len(before) - len(gone))
        if (not before or self.row_count != len(before) or len(set(wanted)) != len(wanted)
                or len(gone) + added > IN_PLACE_MAX):
            return False
        for key in gone:
            self.remove_row(key)
        for row in rows:
            key = row.unit.unit_id
            old = before.get(key)
            if old is None:
                self.add_row(*self._cells_of(row), key=key)
            elif not _same_display(old, row):
                for column, value in zip(self.fit.columns, self._cells_of(row), strict=True):
                    self.update_cell(key, column, value, update_width=False)
        if [r.key.value for r in self.ordered_rows] != wanted:
            # The status cell is a new object for every row shown: it names the row's place.
            place = {id(self.get_cell(key, "st")): n for n, key in enumerate(wanted)}
            self.sort("st", key=lambda cell: place[id(cell)])
        return True

    def update_unit_row(self, row: Row) -> None:
        key = row.unit.unit_id
        self._rows = [row if r.unit.unit_id == key else r for r in self._rows]
        if key not in self.rows:
            return
        for column, value in zip(self.fit.columns, self._cells_of(row), strict=True):
            self.update_cell(key, column, value)

    @property
    def current_unit(self) -> str | None:
        if self._waiting:  # the unit the cursor will be on once the rows are in
            keep = self._waiting_keep
            if keep is not None and any(row.unit.unit_id == keep for row in self._rows):
                return keep
            return self._rows[0].unit.unit_id if self._rows else None
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return str(key.value) if key.value is not None else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        # No row (a filter that matched nothing): Textual highlights row -1 with no key.
        value = getattr(event.row_key, "value", None)
        if value is not None:
            self.post_message(self.UnitSelected(str(value)))
