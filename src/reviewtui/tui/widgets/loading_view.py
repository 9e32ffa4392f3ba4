"""What the workbench shows while a change is analysed: how far it got, and the units so far.

A large cold change takes seconds to cut and score; the workbench paints this view at once so
the person sees work, not a blank terminal. One line says files analysed / total, the time
taken and the largest files still to do; under it the units stream in (file order, as their
files finish). ``q`` quits at any time. When the last file is done the app swaps this view for
the workbench, keeping the unit the cursor is on selected.

A change opened before shows its first rows as the person left them instead (``kept_screen``),
where the workbench's table will be, until the workbench takes their place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from reviewtui.tui.widgets.fixed_width_table import FixedWidthTable
from reviewtui.tui.widgets.kept_table import KeptTable
from reviewtui.tui.widgets.unit_table import fit_location

if TYPE_CHECKING:
    from reviewtui.analysis.progress import AnalysisProgress
    from reviewtui.errors import ReviewTuiError
    from reviewtui.tui.base import Opened
    from reviewtui.tui.kept_screen import KeptScreen
    from reviewtui.tui.themes import ThemeLoad


LOADING_COLUMNS = (("location", 72), ("lang", 10), ("risk", 8))
HINT = "q quits · the workbench opens when every file is analysed"
KEPT_HINT = "q quits · the workbench opens when the change is loaded (keys pressed meanwhile wait)"


def loading_text(progress: AnalysisProgress | None, elapsed: float,
                 kept: KeptScreen | None = None) -> str:
    if kept is not None:
        shown = len(kept.rows)
        what = (f"{kept.total} units" if shown == kept.total
                else f"the first {shown} of {kept.total} units")
        head = f"Loading the change… {elapsed:.1f} s · {what} as you left them"
        if progress is not None and not progress.complete:
            head += f" · analysing {progress.done}/{progress.total} files"
        elif progress is not None and progress.ordering is not None:
            head += " · " + _ordering(progress.ordering)
        return head
    if progress is None:
        return f"Collecting the change… {elapsed:.1f} s"
    share = 100 * progress.done // progress.total if progress.total else 100
    text = (f"Analysing {progress.done}/{progress.total} files ({share}%), "
            f"{elapsed:.1f} s")
    if progress.complete:
        return text + " · " + (_ordering(progress.ordering) if progress.ordering is not None
                               else "ordering by priority…")
    if progress.largest_left:
        text += " · largest left: " + ", ".join(progress.largest_left)
    return text


def _ordering(files: tuple[int, int]) -> str:
    done, total = files
    return f"ordering by priority: history of {done}/{total} files…"


class LoadingView(Vertical):
    """The progress line, the units found so far, and how to quit."""

    BINDINGS = [Binding("q", "app.quit", "quit")]  # noqa: RUF012

    class Progressed(Message):
        """The analysis finished more files (posted from the loading worker)."""

        def __init__(self, progress: AnalysisProgress) -> None:
            super().__init__()
            self.progress = progress

    class ThemeRead(Message):
        """The themes and the settings' theme, read by the loading worker."""

        def __init__(self, themes: ThemeLoad, requested: str) -> None:
            super().__init__()
            self.themes = themes
            self.requested = requested

    class Loaded(Message):
        """The change is loaded and ready for the workbench."""

        def __init__(self, opened: Opened) -> None:
            super().__init__()
            self.opened = opened

    class Failed(Message):
        """The change could not be loaded (a bad selector, not a repository, …)."""

        def __init__(self, error: ReviewTuiError) -> None:
            super().__init__()
            self.error = error

    def __init__(self, *, id: str | None = None, kept: KeptScreen | None = None) -> None:
        super().__init__(id=id)
        self.progress: AnalysisProgress | None = None
        # With the first screen kept from the last time (``tui.kept_screen``), its rows show
        # until the workbench replaces them; the units the analysis finishes are not added.
        self.kept = kept
        self.unit_ids: list[str] = [row.unit_id for row in kept.rows] if kept else []
        self._shown: set[str] = set()

    def compose(self) -> ComposeResult:
        if self.kept is not None:  # laid out as the workbench will be: header, table and
            # detail, status line, keys (so that its table takes the kept one's place)
            yield Static(self.kept.title or "reviewtui", id="loading-title", markup=False)
            with Horizontal(id="main"):
                yield KeptTable(self.kept, id="units")
                yield Static("The unit under the cursor is shown here once the change is "
                             "loaded.", id="loading-side", markup=False)
            yield Static(loading_text(None, 0.0, self.kept), id="loading-line", markup=False)
            yield Static(KEPT_HINT, id="loading-hint", markup=False)
            return
        yield Static(loading_text(None, 0.0), id="loading-line", markup=False)
        table: FixedWidthTable[Text] = FixedWidthTable(id="loading-units", cursor_type="row")
        for name, width in LOADING_COLUMNS:
            table.add_column(name, width=width)
        yield table
        yield Static(HINT, id="loading-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()

    def show(self, progress: AnalysisProgress | None, elapsed: float) -> None:
        """Update the line; add the units ``progress`` reports finished."""
        if progress is not None:
            self.progress = progress
            if self.kept is None:
                self._add(progress)
        # One line of fixed height across the view: no layout to redo, only the line to
        # paint (this runs four times a second, beside the worker loading the change).
        self.query_one("#loading-line", Static).update(
            loading_text(self.progress, elapsed, self.kept), layout=False)

    def _add(self, progress: AnalysisProgress) -> None:
        rows: list[tuple[str, tuple[Text, Text, Text]]] = []  # Text: a str is markup
        for unit in progress.finished:
            if unit.unit_id in self._shown:  # reported again, by the load the cache answers
                continue
            self._shown.add(unit.unit_id)
            self.unit_ids.append(unit.unit_id)
            rows.append((unit.unit_id, (Text(fit_location(unit.location, LOADING_COLUMNS[0][1])),
                                        Text(unit.language or "-"), Text(unit.risk))))
        if rows:
            self.query_one(FixedWidthTable).add_keyed_rows(rows)

    @property
    def held(self) -> tuple[str | None, list[tuple[str, str | None]]]:
        """The keys pressed on the kept rows for the workbench, and the unit the first one
        was pressed on (``KeptTable``)."""
        found = self.query(KeptTable)
        return (found.first().held_unit, found.first().held_keys) if found else (None, [])

    @property
    def selected_unit(self) -> str | None:
        """The unit under the cursor, once the person has moved it off the first row."""
        row = self.query_one(DataTable).cursor_row
        return self.unit_ids[row] if 0 < row < len(self.unit_ids) else None

