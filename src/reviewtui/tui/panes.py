"""What the workbench's panes show of its state: the table, header, status line, detail, chat.

Every group of keys ends by showing what it changed: a decision repaints its unit's rows, a
filter the table, a finished review the findings, a plan the status line. These helpers are
that showing, over the state ``WorkbenchBase`` (``base``) holds; kept apart from it so that the
state -- what is loaded, how it opens, starts and exits -- reads on its own, and so that how
each pane is refreshed is in one place. No keys of its own here either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import App
from textual.widgets import Static

from reviewtui.tui import status
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.intent_pane import IntentPane
from reviewtui.tui.widgets.unit_table import UnitTable

if TYPE_CHECKING:  # the change's models load with the change, in the loading worker
    from textual.timer import Timer

    from reviewtui.forge.threads import PullThread
    from reviewtui.models import Allocation, ContextBundle
    from reviewtui.pipeline import LoadedChange
    from reviewtui.sessions.review_records import ReviewVerdict
    from reviewtui.tui.jobs import LLMJobs
    from reviewtui.tui.session import TuiSession
    from reviewtui.tui.triage import Filter, Row, Triage
    from reviewtui.tui.widgets.chat_pane import ChatPane

EARLIER_ROUNDS = 6  # the session's rounds the chat shows when first opened (as ask keeps)


class WorkbenchPanes(App[None]):
    """The panes' refreshes; ``WorkbenchBase`` sets the state they read (see there)."""

    loaded: LoadedChange
    session: TuiSession
    triage: Triage
    filter: Filter  # the ``/`` filter (no terms when a change is adopted)
    rows: list[Row]
    bundles: dict[str, ContextBundle]
    allocation: Allocation | None
    jobs: LLMJobs
    verdict: ReviewVerdict | None
    current_finding: str | None
    pull_threads: list[PullThread]
    earlier_reviews: set[str]
    _filter_timer: Timer | None
    _earlier_shown: bool
    _message: str

    @property
    def table(self) -> UnitTable:
        return self.query_one(UnitTable)

    def current(self) -> str | None:
        return self.table.current_unit

    def show_intent(self) -> None:
        """The stated purpose in one line in the header, and whole in the intent pane."""
        cs = self.loaded.change_set
        intent = self.loaded.intent
        line = intent.headline() if intent is not None else ""
        if intent is None or (not intent.commits and not intent.description):
            line = " · ".join(p for p in (line if intent and intent.branch else "",
                                          "no description (i writes one)") if p)
        self.sub_title = f"{status.change_label(cs)} · {line}"
        self.query_one(IntentPane).show(intent)

    def set_status(self, text: str | None = None) -> None:
        """Counts · where the plan came from · ``text`` (the last event; None keeps it)."""
        if text is not None:
            self._message = text
        source = status.plan_source(self.session.config, self.triage.plan,
                                    planning=self.jobs.running("planner"))
        parts = [status.counts(self.rows), source, self._message]
        self.query_one("#status", Static).update(" · ".join(p for p in parts if p))

    def refresh_rows(self) -> None:
        self.rows = self.triage.rows(self.filter)
        self.table.show(self.rows, keep=self.current())
        self.show_detail()

    def refresh_unit(self, unit_id: str) -> None:
        """Repaint the unit's row after a decision on it, and every other row of its file
        whose status is not the one shown: the rows are compared, not assumed unchanged (a
        row left showing a status its unit no longer has is a decision the person cannot
        see)."""
        path = self.triage.by_id[unit_id].file_path
        rows: list[Row] = []
        for shown in self.rows:
            if shown.unit.unit_id == unit_id or shown.unit.file_path == path:
                row = self.triage.row(shown.unit.unit_id)
                if row.unit.unit_id == unit_id or row.status != shown.status:
                    self.table.update_unit_row(row)
                    shown = row
            rows.append(shown)
        self.rows = rows
        self.show_detail()
        self.set_status()

    def show_detail(self) -> None:
        from reviewtui.units.model import unit_key

        unit_id = self.current()
        row = self.triage.row(unit_id) if unit_id else None
        earlier = row is not None and unit_key(row.unit) in self.earlier_reviews
        self.query_one(DetailPane).show(row, self.bundles.get(unit_id or ""), self.allocation,
                                        self.current_finding, self.pull_threads, earlier)

    def load_review(self) -> None:
        """Read the session's findings and comments into the table and the detail pane."""
        findings, comments, verdict = self.session.review_records()
        self.triage.set_review(findings, comments)
        self.verdict = verdict
        self.refresh_rows()

    @on(UnitTable.UnitSelected)
    def _selected(self, event: UnitTable.UnitSelected) -> None:
        self.show_detail()

    def _apply_filter(self, text: str) -> None:
        from reviewtui.tui.triage import Filter

        self._filter_timer = None
        flt = Filter.parse(text)
        if flt == self.filter:
            return
        self.filter = flt
        self.refresh_rows()
        unknown = flt.unknown()
        self.set_status((f"filter: {text}" + (f" · not understood: {'; '.join(unknown)}"
                                               if unknown else "")) if text else "")

    @property
    def chat_pane(self) -> ChatPane:
        """The chat (imported when first used: it is not on the loading view)."""
        from reviewtui.tui.widgets.chat_pane import ChatPane

        return self.query_one(ChatPane)

    def _open_chat(self, visible: bool) -> None:
        """Open or close the chat; open, it takes the room the detail pane had (see .tcss).
        Opened the first time, it shows the rounds the change's session already had (the
        conversation the next question continues), the last ``EARLIER_ROUNDS`` whole."""
        chat = self.chat_pane
        if visible and not self._earlier_shown:
            self._earlier_shown = True
            earlier = self.session.earlier_rounds()
            chat.show_earlier(earlier[-EARLIER_ROUNDS:], max(0, len(earlier) - EARLIER_ROUNDS))
            chat.set_rounds(self.session.rounds_text())
        chat.set_class(visible, "visible")
        self.screen.set_class(visible, "-chat")
