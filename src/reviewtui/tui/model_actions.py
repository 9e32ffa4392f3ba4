"""The long work, in thread workers that post back: planner (P), scanners (S), bundles (b) and
review (R); the chat's are ``chat_actions``. LLM calls are registered in ``jobs`` so Escape can
stop them."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from textual import work

from reviewtui.errors import ReviewTuiError
from reviewtui.tui import status
from reviewtui.tui.base import WorkbenchBase

if TYPE_CHECKING:
    from reviewtui.models import Allocation, ContextBundle
    from reviewtui.pipeline import LoadedChange
    from reviewtui.plan import FusedPlan
    from reviewtui.tui.session import Reviewed

# The units left out of a review that the chat names (the rest counted): a Markdown list item
# is a widget, and 1,800 of them (a 2,200-unit change) froze the workbench for a minute.
NOT_REVIEWED_SHOWN = 10


class ModelActions(WorkbenchBase):
    def action_run_planner(self) -> None:
        if not self.session.model_configured():
            self.notify(self.session.not_configured_hint(), title="no model", severity="warning")
            return
        # With the rules' plan shown, the plan kept for this change will do (no request);
        # with the model's shown (kept or not), the person asks for a new one.
        fresh = self.triage.plan.planner.status in ("ok", "partial", "failed")
        cancel = self.jobs.start("planner")
        self.set_status("")
        self._show_busy()
        self._plan_worker(cancel, fresh)

    @work(thread=True, exclusive=True, group="planner")
    def _plan_worker(self, cancel: threading.Event, fresh: bool) -> None:
        loaded = self.loaded  # the change as the planner reads it (a refresh may land)
        try:  # as the commands plan: the plan cache included (``LoadedChange.plan``)
            plan = loaded.plan(fresh=fresh, cancel=cancel)
        except ReviewTuiError as error:
            self.call_from_thread(self._plan_failed, cancel, str(error))
            return
        self.call_from_thread(self._plan_done, cancel, plan, loaded)

    def _plan_failed(self, cancel: threading.Event, error: str) -> None:
        if self.jobs.finish("planner", cancel):
            self.notify(error, title="planner failed", severity="error")
            self.set_status("")
        self._show_busy()

    def _plan_done(self, cancel: threading.Event, plan: FusedPlan, read: LoadedChange) -> None:
        if not self.jobs.finish("planner", cancel):
            return  # cancelled: keep the plan the table shows
        note = ""
        if {u.unit_id for u in read.units} != {u.unit_id for u in self.loaded.units}:
            # A refresh landed while the planner ran: its plan is for the units it read,
            # carried to the units there are now (every one of them keeps its row).
            from reviewtui.pipeline.planning import carry_plan

            carried = carry_plan(self.loaded, plan, read.units, follow=(
                read.change_set.key == self.loaded.change_set.key))
            plan, note = carried.plan, status.earlier_plan(carried)
        self.triage.set_plan(plan)
        self.bundles.clear()
        self.refresh_rows()
        self._show_busy()
        self.set_status(note)

    def action_run_scanners(self) -> None:
        self.set_status("scanners running…")
        self._scan_worker()

    @work(thread=True, exclusive=True, group="scanners")
    def _scan_worker(self) -> None:
        from reviewtui.rules.scan_mapping import findings_by_unit

        report = self.loaded.scan()
        found = findings_by_unit(self.loaded.units, report.issues)
        counts = {unit_id: len(items) for unit_id, items in found.items()}
        ran = ", ".join(report.ran) or "none installed"
        self.call_from_thread(self._scan_done, counts, f"scanners: {ran}; "
                                                       f"{len(report.issues)} findings")

    def _scan_done(self, counts: dict[str, int], text: str) -> None:
        self.triage.findings = counts
        self.refresh_rows()
        self.set_status(text)

    def action_build_bundles(self) -> None:
        unit_id = self.current()
        wanted = [unit_id] if unit_id else []
        wanted += [r.unit.unit_id for r in self.rows
                   if not r.item.skip_review and r.unit.unit_id not in wanted]
        self.set_status(f"building {len(wanted)} bundles…")
        self._bundle_worker(wanted)

    @work(thread=True, exclusive=True, group="bundles")
    def _bundle_worker(self, unit_ids: list[str]) -> None:
        plan = self.fused_with_overrides()
        first = self.loaded.bundles(plan, unit_ids[:1])  # the unit under the cursor, at once
        self.call_from_thread(self._bundles_done, first.bundles, None)
        found = self.loaded.bundles(plan, unit_ids)  # the review budget, by priority
        self.call_from_thread(self._bundles_done, found.bundles, found.allocation)

    def _bundles_done(self, bundles: list[ContextBundle], allocation: Allocation | None) -> None:
        for bundle in bundles:
            self.bundles[bundle.unit_id] = bundle
        if allocation is not None:
            self.allocation = allocation
            self.set_status(f"{len(allocation.included)} bundles, {allocation.used} tokens; "
                            f"{len(allocation.deferred)} units deferred")
        self.show_detail()

    def action_review(self) -> None:
        if not self.session.model_configured():
            self.notify(self.session.not_configured_hint(), title="no model", severity="warning")
            return
        kept = [r.unit.unit_id for r in self.rows if not r.item.skip_review]
        if not kept:  # (else an empty "review" that read nothing went to the chat)
            self.set_status("nothing to review: no kept unit is shown (s unskips a unit; "
                            "/ then Escape clears the filter)")
            return
        self.set_status(f"reviewing {len(kept)} units…")
        self._open_chat(True)
        cancel = self.jobs.start("review")
        self._show_busy()
        self._review_worker(kept, cancel)

    @work(thread=True, exclusive=True, group="review")
    def _review_worker(self, unit_ids: list[str], cancel: threading.Event) -> None:
        from reviewtui.agent.report import TUI_TO_REVIEW, render_markdown

        try:
            reviewed = self.session.review(self.fused_with_overrides(), unit_ids,
                                           cancel=cancel)
        except ReviewTuiError as error:
            self.call_from_thread(self._review_failed, cancel, str(error))
            return
        self.call_from_thread(self._review_done, cancel, reviewed,
                              render_markdown(reviewed.result,
                                              not_reviewed_shown=NOT_REVIEWED_SHOWN,
                                              to_review=TUI_TO_REVIEW))

    def _review_failed(self, cancel: threading.Event, error: str) -> None:
        if self.jobs.finish("review", cancel):
            self.notify(error, title="review failed", severity="error")
            self.set_status("review failed")
        self._show_busy()

    def _review_done(self, cancel: threading.Event, reviewed: Reviewed, markdown: str) -> None:
        counted = self.jobs.finish("review", cancel)
        self._show_busy()
        if not counted:
            return
        # A refresh adopted while it ran: the units it read may not be the change's any more.
        note = self.settle_review(reviewed)
        if self.refreshing:  # one under way read the files while it ran: checked once adopted
            self.review_to_check = reviewed
        self.load_review()
        self.chat_pane.start_exchange("review", f"> {note}\n\n{markdown}" if note else markdown)
        self.set_status("; ".join(part for part in (
            f"review: {len(reviewed.result.findings)} findings ({reviewed.kept})", note) if part))
