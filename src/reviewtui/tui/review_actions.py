"""Finishing a review: findings (f/F, a, A, x), comments (m), the verdict (V), export or
publish to the ``--pr`` pull request (X). The editor and refreshing (ctrl+e, r, ``--watch``)
are ``refresh_actions``'.

Every decision goes to the change's session at once (``TuiSession``); a store problem is one
notification and the decision stays on screen.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from textual import work

from reviewtui.errors import ReviewTuiError
from reviewtui.tui.refresh_actions import RefreshActions
from reviewtui.tui.screens.dismiss_modal import DismissModal
from reviewtui.tui.screens.export_modal import PUBLISH, ExportChoice, ExportModal

if TYPE_CHECKING:  # the session's models load with the change (see opening_actions)
    from pathlib import Path

    from reviewtui.forge.threads import PullThread
    from reviewtui.sessions.review_records import (
        FindingState,
        ReviewComment,
        ReviewVerdict,
        StoredFinding,
    )
    from reviewtui.tui.screens.comment_modal import CommentEdit
    from reviewtui.tui.triage import Row


class ReviewActions(RefreshActions):
    publishing: threading.Event | None = None  # the last publish's; set once it has ended
    publish_result: str = ""  # how it ended, for the terminal when the workbench closed first
    # --- findings --------------------------------------------------------------------------

    def _open_findings(self) -> list[tuple[int, StoredFinding]]:
        """Every open finding of the rows shown, in table order (row index, finding)."""
        return [(index, finding) for index, row in enumerate(self.rows)
                for finding in sorted(row.open_findings, key=lambda f: f.start_line)]

    def _jump_finding(self, step: int) -> None:
        found = self._open_findings()
        if not found:
            hidden = sum(1 for findings in self.triage.review.values()
                         for f in findings if f.state == "open")
            self.set_status(f"no open findings in the units shown ({hidden} hidden by the "
                            "filter: / then Escape shows every unit)" if hidden else
                            "no open findings (R reviews the kept units)")
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
            retracted = f", {len(report.retracted)} retracted" if report.retracted else ""
            lines.append(f"{report.posted} line comments posted, {report.edited} edited, "
                         f"{report.unchanged} unchanged, {len(report.folded)} in the summary"
                         f"{retracted}")
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
