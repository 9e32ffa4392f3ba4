"""Keeping the workbench's change current: the editor (ctrl+e), refreshing (r) and ``--watch``.

Refreshing collects the change again in a worker: the person's overrides follow their units
(and what another workbench on the same change decided meanwhile comes in), "reviewed" marks of
changed units turn into ↻, findings and comments follow their lines' text (``agent.follow``),
findings whose text is gone become "fixed?", and new units appear as new. ``--watch`` refreshes
by itself when the working tree, the index or the refs the change is taken against move.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from textual import work
from textual.worker import get_current_worker

from reviewtui.errors import ReviewTuiError
from reviewtui.tui import status
from reviewtui.tui.base import WorkbenchBase
from reviewtui.tui.editor import editor_command
from reviewtui.tui.widgets.unit_table import longest_location
from reviewtui.units.identity import successor_of

if TYPE_CHECKING:
    from reviewtui.git.watched import RepositoryWatch
    from reviewtui.plan import FusedPlan
    from reviewtui.tui.session import Refreshed
    from reviewtui.tui.triage import Row

WATCH_DEBOUNCE_MS = 400


class RefreshActions(WorkbenchBase):
    repository_watch: RepositoryWatch | None = None  # what --watch filters by, once it runs

    def _current_row(self) -> Row | None:
        unit_id = self.current()
        return self.triage.row(unit_id) if unit_id else None

    # --- the editor and refreshing ---------------------------------------------------------

    def action_open_editor(self) -> None:
        row = self._current_row()
        if row is None:
            return
        if not self.loaded.refreshable:
            self.notify("this change is a commit, a range or a patch: its files are not the "
                        "ones on disk (check the branch out to edit it)", title="no editor",
                        severity="warning")
            return
        unit = row.unit
        path = self.loaded.root / unit.file_path
        line = next((ln.new_no for h in unit.hunks for ln in h.lines
                     if ln.kind == "+" and ln.new_no is not None),
                    unit.hunks[0].new_start if unit.hunks else 1)
        if not path.is_file():
            self.notify(f"{unit.file_path} is not on disk (deleted by the change?)",
                        title="no editor", severity="warning")
            return
        try:
            command = editor_command(path, line)
        except ReviewTuiError as error:
            self.notify(str(error), title="no editor", severity="warning")
            return
        code = self.run_editor(command)
        if code is not None:
            self.action_refresh()

    def action_refresh(self) -> None:
        if not self.loaded.refreshable:
            self.set_status("a commit, a range or a patch does not change: nothing to refresh")
            return
        self.set_status("refreshing…")
        self.refreshing = True
        self._refresh_worker(self.triage.plan)

    @work(thread=True, exclusive=True, group="refresh")
    def _refresh_worker(self, plan: FusedPlan) -> None:
        worker = get_current_worker()
        try:
            refreshed = self.session.refresh(plan)
        except ReviewTuiError as error:
            self.call_from_thread(self._refresh_failed, str(error))
            return
        if not worker.is_cancelled:  # a newer refresh (r pressed again, a save) replaced it
            self.call_from_thread(self._refresh_done, refreshed)

    def _refresh_failed(self, error: str) -> None:
        self.refreshing = False
        self.review_to_check = None  # nothing adopted: the next refresh reads the files again
        self.notify(error, title="refresh failed", severity="error")
        self.set_status("refresh failed")

    def _refresh_done(self, refreshed: Refreshed) -> None:
        from reviewtui.tui.triage import Triage

        self.refreshing = False
        fresh = refreshed.loaded
        before = {u.unit_id for u in self.loaded.units}
        was = next((u for u in self.loaded.units if u.unit_id == self.current()), None)
        # The person's decisions as they are now, not as they were when the refresh started:
        # a level or a skip chosen while it ran (a save under --watch starts one) stays.
        overrides, moves = self.session.carry(self.triage.overrides, fresh)
        plan = refreshed.plan
        if self.triage.plan is not refreshed.planned_from:  # the planner answered meanwhile
            same = fresh.change_set.key == self.loaded.change_set.key
            plan = fresh.replan(self.triage.plan, self.loaded.units, follow=same)
        previous = self.session.adopt(fresh, overrides, moves)
        if previous is not None:  # another change now (a commit, a checkout): its session's
            overrides = self.session.overrides(kept=overrides)  # decisions, as on opening it
            self.bundles.clear()
            self.allocation = None
        self.loaded = fresh = self.session.loaded  # (its intent gathered again if another)
        if self.repository_watch is not None:  # another change may have another base: the
            # working tree's change became the branch's against the configured base branch
            self.repository_watch.refs = self._base_refs()
        sort_key = self.triage.sort_key
        scanner = {u: n for u, n in self.triage.findings.items() if u in before}
        self.triage = Triage(fresh.units, plan, overrides,
                             self.session.marks(), scanner, reasons=fresh.priority_reasons)
        self.triage.sort_key = sort_key
        self.bundles = {u: b for u, b in self.bundles.items() if u in before}
        self.persist()
        if previous is None:  # the same change: what another workbench open on it decided
            # meanwhile shows here too, as its reviewed marks do
            self.triage.overrides = self.session.overrides_now(self.triage.overrides)
        if previous is not None:
            self.show_intent()  # the header names the change worked on now
        # The location column fits the units there are now, as on open (files that left the
        # change took their long names with them; new ones may need more room).
        self.table.fit_locations(longest_location(u.location for u in fresh.units))
        # A review that finished while this refresh read the files: its units against these.
        check, self.review_to_check = self.review_to_check, None
        earlier = self.settle_review(check) if check is not None else ""
        self.load_review()
        successor = successor_of(was, fresh.units) if was is not None else None
        if successor is not None and successor != self.current() and successor in self.table.rows:
            # the unit under the cursor was edited (a fix applied): it has a new id, and the
            # row number the cursor kept is another unit's -- the next key would act on it
            self.table.move_cursor(row=self.table.get_row_index(successor))
            self.show_detail()
        new = sum(1 for u in fresh.units if u.unit_id not in before)
        changed = sum(1 for r in self.rows if r.status == "changed")
        self.set_status("; ".join([
            *([status.switched(fresh.change_set, previous.change_set)] if previous else []),
            f"refreshed: {len(fresh.units)} units, {new} new or changed, {changed} ↻ since "
            "review", *refreshed.notes, *([earlier] if earlier else [])]))

    # --- watching --------------------------------------------------------------------------

    def _base_refs(self) -> frozenset[str]:
        """The ref files the base of the change worked on may move in (``git.watched``)."""
        from reviewtui.git import SelectorMode
        from reviewtui.git.watched import base_refs

        selector = self.loaded.selector
        if selector is None or selector.mode not in (SelectorMode.AUTO, SelectorMode.BASE):
            return frozenset()
        return frozenset(base_refs(selector.ref, self.loaded.change_set.base_branch))

    def start_watching(self, stop: threading.Event) -> None:
        if self.loaded.refreshable:
            self._watch_worker(stop)

    @work(thread=True, group="watch")
    def _watch_worker(self, stop: threading.Event) -> None:
        """Refresh when the change may have moved (``--watch``): a file saved, and ``git add``,
        ``commit``, ``checkout`` or ``stash`` (the index, ``HEAD`` and the refs the change is
        taken against; see ``git.watched``). watchfiles batches the events of a save or of one
        git command into one refresh."""
        from reviewtui.git.watched import RepositoryWatch, watch_repository

        repo, selector = self.loaded.repo, self.loaded.selector
        if repo is None or selector is None:
            return
        watcher = RepositoryWatch(repo.root, repo.git_dir, repo.common_dir, self._base_refs())
        self.repository_watch = watcher
        for _changes in watch_repository(watcher, stop, debounce_ms=WATCH_DEBOUNCE_MS):
            if stop.is_set():
                return
            self.call_from_thread(self.action_refresh)

