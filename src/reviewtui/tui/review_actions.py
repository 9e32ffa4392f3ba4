"""Finishing a review: findings (f/F, a, A, x), comments (m), the verdict (V), export or
publish to the ``--pr`` pull request (X), the editor (ctrl+e) and refreshing the change (r, or
by itself with ``--watch``).

Every decision goes to the change's session at once (``TuiSession``); a store problem is one
notification and the decision stays on screen. Refreshing collects the change again in a
worker: the person's overrides follow their units, "reviewed" marks of changed units turn into
↻, findings and comments follow their lines' text (``agent.follow``), findings whose text is
gone become "fixed?", and new units appear as new.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from textual import work
from textual.worker import get_current_worker

from reviewtui.errors import ReviewTuiError
from reviewtui.tui import status
from reviewtui.tui.base import WorkbenchBase
from reviewtui.tui.editor import editor_command
from reviewtui.tui.screens.dismiss_modal import DismissModal
from reviewtui.tui.screens.export_modal import PUBLISH, ExportChoice, ExportModal
from reviewtui.tui.widgets.unit_table import longest_location
from reviewtui.units.identity import successor_of

if TYPE_CHECKING:  # the session's models load with the change (see opening_actions)
    from pathlib import Path

    from reviewtui.forge.threads import PullThread
    from reviewtui.git.watched import RepositoryWatch
    from reviewtui.plan import FusedPlan
    from reviewtui.sessions.review_records import (
        FindingState,
        ReviewComment,
        ReviewVerdict,
        StoredFinding,
    )
    from reviewtui.tui.screens.comment_modal import CommentEdit
    from reviewtui.tui.session import Refreshed
    from reviewtui.tui.triage import Row

WATCH_DEBOUNCE_MS = 400



class ReviewActions(WorkbenchBase):
    publishing: threading.Event | None = None  # the last publish's; set once it has ended
    publish_result: str = ""  # how it ended, for the terminal when the workbench closed first
    repository_watch: RepositoryWatch | None = None  # what --watch filters by, once it runs
    # --- findings --------------------------------------------------------------------------

    def _open_findings(self) -> list[tuple[int, StoredFinding]]:
        """Every open finding of the rows shown, in table order (row index, finding)."""
        return [(index, finding) for index, row in enumerate(self.rows)
                for finding in sorted(row.open_findings, key=lambda f: f.start_line)]

    def _jump_finding(self, step: int) -> None:
        found = self._open_findings()
        if not found:
            self.set_status("no open findings (R reviews the kept units)")
            return
        here = self.table.cursor_row
        position = next((n for n, (_, f) in enumerate(found)
                         if f.fingerprint == self.current_finding), None)
        if position is None:  # from the cursor: its row's first (or last, going back) and on
            after = [n for n, (row, _) in enumerate(found)
                     if (row >= here if step > 0 else row <= here)]
            position = (after[0] if step > 0 else after[-1]) if after else (
                0 if step > 0 else len(found) - 1)
        else:
            position = (position + step) % len(found)
        row, finding = found[position]
        self.current_finding = finding.fingerprint
        self.table.move_cursor(row=row)
        self.show_detail()
        self.set_status(f"finding {position + 1} of {len(found)} open: {finding.severity} "
                        f"{finding.title}")

    def action_next_finding(self) -> None:
        self._jump_finding(1)

    def action_prev_finding(self) -> None:
        self._jump_finding(-1)

    def _current_row(self) -> Row | None:
        unit_id = self.current()
        return self.triage.row(unit_id) if unit_id else None

    def _target_finding(self) -> StoredFinding | None:
        """The finding f/F moved to, if it is on this unit; else the unit's first open one."""
        row = self._current_row()
        if row is None or not row.review:
            self.set_status("no finding on this unit (f goes to the next one)")
            return None
        chosen = next((f for f in row.review if f.fingerprint == self.current_finding), None)
        chosen = chosen or (row.open_findings[0] if row.open_findings else row.review[0])
        self.current_finding = chosen.fingerprint
        return chosen

    def _set_state(self, finding: StoredFinding, state: FindingState,
                   reason: str | None = None) -> None:
        problem = self.session.set_finding_state(finding.fingerprint, state, reason)
        if problem:
            self.notify(problem, title="not saved", severity="error")
            return
        self.load_review()
        self.set_status(f"{state}: {finding.title}")

    def action_accept_finding(self) -> None:
        finding = self._target_finding()
        if finding is not None:  # a second a takes it back
            self._set_state(finding, "open" if finding.state == "accepted" else "accepted")

    def action_dismiss_finding(self) -> None:
        finding = self._target_finding()
        if finding is None:
            return
        if finding.state == "dismissed":
            self._set_state(finding, "open")
            return

        def done(reason: str | None) -> None:
            if reason is not None:
                self._set_state(finding, "dismissed", reason or None)

        self.push_screen(DismissModal(finding.title), done)

    def action_accept_with_comment(self) -> None:
        """Accept the finding and turn it into a comment of the reviewer's own."""
        from reviewtui.sessions.review_records import ReviewComment

        finding = self._target_finding()
        if finding is None:
            return
        body = finding.title + (f"\n\n{finding.body}" if finding.body else "")

        def saved() -> None:  # accepted with its comment; Escape in the dialog changes nothing
            if finding.state != "accepted":
                self._set_state(finding, "accepted")

        self._edit_comment(ReviewComment(
            file_path=finding.file_path, side=finding.side, start_line=finding.start_line,
            end_line=finding.end_line, body=body, unit_key=finding.unit_key,
            finding=finding.fingerprint), on_saved=saved)

    # --- comments and the verdict ----------------------------------------------------------

    def action_comment(self) -> None:
        from reviewtui.sessions.review_records import ReviewComment

        row = self._current_row()
        if row is None:
            return
        unit = row.unit
        added = [ln.new_no for h in unit.hunks for ln in h.lines
                 if ln.kind == "+" and ln.new_no is not None]
        removed = [ln.old_no for h in unit.hunks for ln in h.lines
                   if ln.kind == "-" and ln.old_no is not None]
        side: Literal["new", "old"] = "new" if added else "old"
        first = added[0] if added else removed[0] if removed else 1
        self._edit_comment(ReviewComment(
            file_path=unit.file_path if side == "new" else (unit.old_path or unit.file_path),
            side=side, start_line=first, end_line=first, body="x"), row)

    def _edit_comment(self, draft: ReviewComment, row: Row | None = None,
                      on_saved: Callable[[], None] | None = None) -> None:
        from reviewtui.tui.screens.comment_modal import CommentModal

        row = row or self._current_row()
        existing = row.comments if row is not None else ()
        location = row.unit.location if row is not None else draft.file_path
        blank = draft.model_copy(update={"body": ""}) if draft.body == "x" else draft

        def done(edit: CommentEdit | None) -> None:
            if edit is None:
                return
            if edit.action == "delete" and edit.comment.comment_id is not None:
                problem = self.session.delete_comment(edit.comment.comment_id)
                verb = "deleted"
            else:
                problem = self.session.save_comment(edit.comment)
                verb = "saved"
            if problem:
                self.notify(problem, title="comment not saved", severity="error")
                return
            if on_saved is not None and verb == "saved":
                on_saved()
            self.load_review()
            self.set_status(f"comment {verb} on {edit.comment.file_path}:{edit.comment.lines}")

        span = row.unit.span(blank.side) if row is not None else None
        self.push_screen(CommentModal(location, blank, existing, span), done)

    def action_verdict(self) -> None:
        from reviewtui.tui.screens.verdict_modal import VerdictModal

        def done(verdict: ReviewVerdict | None) -> None:
            if verdict is None:
                return
            problem = self.session.set_verdict(verdict)
            if problem:
                self.notify(problem, title="verdict not saved", severity="error")
                return
            self.verdict = verdict
            self.set_status(f"verdict: {verdict.verdict.replace('_', ' ')}")

        self.push_screen(VerdictModal(self.verdict), done)

    # --- export ----------------------------------------------------------------------------

    def action_export_review(self) -> None:
        def done(choice: ExportChoice | None) -> None:
            if choice is None:
                return
            if choice.fmt == PUBLISH:
                if self.publishing is not None and not self.publishing.is_set():
                    self.notify("a publish is under way", severity="warning")
                    return
                self.set_status(f"publishing the review to {self.pull}…")
                self.publishing = threading.Event()
                # A thread of its own, not a worker: the workbench closing waits for its
                # workers, with a blank terminal; ``reviewtui`` waits for this one and says so.
                threading.Thread(target=self.publish_to_pull, args=(self.publishing,),
                                 name="publish", daemon=False).start()
                return
            if choice.written is not None:
                self.notify(f"wrote {choice.written}", title="review exported")
                self.set_status(f"exported to {choice.written}")

        def write(choice: ExportChoice) -> Path:
            """The file written while the dialog is open: it stays open when this fails."""
            return self.session.export(self.fused_with_overrides(), choice.fmt, choice.path,
                                       choice.everything)

        # Not in the working tree by default: an export there would join the change itself
        # (an untracked file), and --watch would refresh on it.
        repo = self.loaded.repo
        stem = str(repo.common_dir / "reviewtui" / "review") if repo is not None else "review"
        self.push_screen(ExportModal(stem, pull=self.pull, write=write), done)

    @work(thread=True, exclusive=True, group="pull-threads")
    def load_pull_threads(self) -> None:
        """The review comments already on the ``--pr`` pull request, for the detail pane."""
        from reviewtui.app.publish import pull_threads

        if self.pull is None:
            return
        try:
            threads = pull_threads(self.loaded.root, self.pull)
        except ReviewTuiError as error:
            self.call_from_thread(self.notify, str(error), title="pull request threads",
                                  severity="warning")
            return
        self.call_from_thread(self._pull_threads_loaded, threads)

    def _pull_threads_loaded(self, threads: list[PullThread]) -> None:
        self.pull_threads = threads
        self.show_detail()

    def publish_to_pull(self, done: threading.Event) -> None:
        """``reviewtui publish``'s ``publish_review`` in a worker: the network may be slow.
        Quit meanwhile, the publish goes on to its end (a review half sent is worse), and
        ``reviewtui`` says so on the terminal and then how it ended (``publish_result``)."""
        from reviewtui.app.publish import publish_review

        if self.pull is None:
            done.set()
            return
        try:
            outcome = publish_review(self.loaded.root, self.pull, store_path=self.store_path)
        except Exception as error:  # (a thread of its own: nothing above it to report it)
            if not isinstance(error, ReviewTuiError):
                error = ReviewTuiError(f"{type(error).__name__}: {error}")
            self.publish_result = f"publish failed: {error}"
            done.set()
            self._tell(self.notify, str(error), title="publish failed", severity="error")
            return
        report = outcome.report
        lines = [*(report.notes if report else [])]
        if outcome.head_moved:
            lines.insert(0, "the head moved since the review: line comments are in the summary")
        if report is not None:
            lines.append(f"{report.posted} line comments posted, {report.edited} edited, "
                         f"{report.unchanged} unchanged, {len(report.folded)} in the summary")
        self.publish_result = f"published to {outcome.pull.url}" + (
            f" ({'; '.join(lines)})" if lines else "")
        done.set()
        self._tell(self.notify, "\n".join(lines) or outcome.pull.url,
                   title=f"published to {outcome.target.label}")
        self._tell(self.set_status, f"published to {outcome.pull.url}")

    def _tell(self, show: Callable[..., object], *args: object, **kwargs: object) -> None:
        """``show`` on the app's loop, from a worker -- unless the workbench has closed."""
        if self.is_running:
            with contextlib.suppress(RuntimeError):  # it closed between the test and the call
                self.call_from_thread(show, *args, **kwargs)

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

