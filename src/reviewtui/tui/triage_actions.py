"""The triage keys: move, set levels, skip, mark reviewed, edit requests, sort and filter.

Every decision is applied by the core's override layer (``Triage``) and persisted at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on
from textual.widgets import Input

from reviewtui.tui.base import WorkbenchBase

if TYPE_CHECKING:  # the plan's models load with the change (see opening_actions)
    from reviewtui.models import ExtraRequest

FILTER_DELAY = 0.15  # seconds of no typing before the filter is applied


class TriageActions(WorkbenchBase):

    def action_next_unit(self) -> None:
        self.table.action_cursor_down()

    def action_prev_unit(self) -> None:
        self.table.action_cursor_up()

    def _jump_file(self, step: int) -> None:
        if self.rows:
            index = self.triage.next_file_row(self.rows, self.table.cursor_row, step)
            self.table.move_cursor(row=index)

    def action_next_file(self) -> None:
        self._jump_file(1)

    def action_prev_file(self) -> None:
        self._jump_file(-1)

    def _apply_decision(self, unit_id: str | None, decide: Callable[[str], object], *,
                rebundle: bool = True) -> None:
        """Apply the person's decision to the unit, keep it, show it (and drop the unit's
        bundle when the decision changes what goes into it)."""
        if unit_id is None:
            return
        decide(unit_id)
        if rebundle:
            self.bundles.pop(unit_id, None)
        self.persist()
        self.refresh_unit(unit_id)

    def _level(self, index: int) -> None:
        """The ``index``-th context level (0: the diff alone, up to the whole file)."""
        from reviewtui.tui.triage import LEVELS

        level = LEVELS[index]
        self._apply_decision(self.current(), lambda uid: self.triage.set_level(uid, level))

    def action_level_1(self) -> None:
        self._level(0)

    def action_level_2(self) -> None:
        self._level(1)

    def action_level_3(self) -> None:
        self._level(2)

    def action_level_4(self) -> None:
        self._level(3)

    def _shift(self, step: int) -> None:
        self._apply_decision(self.current(), lambda uid: self.triage.shift_level(uid, step))

    def action_lower_level(self) -> None:
        self._shift(-1)

    def action_raise_level(self) -> None:
        self._shift(1)

    def action_toggle_skip(self) -> None:
        self._apply_decision(self.current(), self.triage.toggle_skip, rebundle=False)

    def action_toggle_reviewed(self) -> None:
        self._apply_decision(self.current(), self.triage.toggle_reviewed, rebundle=False)

    def action_edit_requests(self) -> None:
        from reviewtui.tui.screens.requests_modal import RequestsModal

        unit_id = self.current()
        if unit_id is None:
            return
        item = self.triage.item(unit_id)

        def done(requests: list[ExtraRequest] | None) -> None:
            if requests is not None:
                self._apply_decision(unit_id, lambda uid: self.triage.set_requests(uid, requests))

        self.push_screen(RequestsModal(item.location, item.extra_requests), done)

    def action_sort(self) -> None:
        self.triage.next_sort()
        self.refresh_rows()
        self.set_status(f"sorted by {self.triage.sort_key}")

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.add_class("visible")
        # Focus now, not on the next idle: keys typed right after "/" belong to the filter.
        self.screen.set_focus(box)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        # Typing stays instant: the table is refilled once the typing pauses.
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY, lambda: self._apply_filter(
            event.value))

    @on(Input.Submitted, "#filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._apply_filter(event.value)
        if not event.value:
            event.input.remove_class("visible")
        self.table.focus()

