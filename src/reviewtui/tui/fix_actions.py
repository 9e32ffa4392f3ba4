"""From finding to fix in the workbench: ``ctrl+f`` (``[tui.keys] fix_finding``, also ``/fix``
in the chat) and ``u`` (``undo_fix``).

``ctrl+f`` on a finding with a fix opens its preview (``FixModal``: the coloured diff, whether it
applies and why not); on one without, it asks the model for a fix in a worker (Escape stops it)
and opens the preview when it arrives. ``f``/``F`` already move between findings, hence not
``F``. Applying and undoing go through ``app.fix`` -- the checks of ``reviewtui findings
apply`` -- and then the change is collected again, so the table, the diff and the finding's
state (``fixed`` when its lines changed) follow at once. A fix refused as it is applied (the
file edited since its preview opened) opens the preview again, saying why, with ``y`` there.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from textual import work

from reviewtui.errors import ReviewTuiError
from reviewtui.tui.review_actions import ReviewActions
from reviewtui.tui.screens.fix_modal import FixChoice, FixModal

if TYPE_CHECKING:  # the session's models load with the change (see opening_actions)
    from reviewtui.sessions.review_records import StoredFinding
    from reviewtui.tui.widgets.chat_pane import ChatPane


class FixActions(ReviewActions):
    def action_fix_finding(self) -> None:
        finding = self._target_finding()
        if finding is None:
            return
        if finding.fix is not None:
            self._preview(finding)
        else:
            self._ask_for_fix(finding)

    # Textual's handler name for ``ChatPane.FixRequested`` (see chat_actions).
    def on_chat_pane_fix_requested(self, event: ChatPane.FixRequested) -> None:
        self.action_fix_finding()

    def _ask_for_fix(self, finding: StoredFinding) -> None:
        if not self.session.model_configured():
            self.notify(self.session.not_configured_hint(), title="no model", severity="warning")
            return
        cancel = self.jobs.start("fix")
        self._show_busy()
        self.set_status(f"asking the model for a fix: {finding.title}…")
        self._fix_worker(finding, cancel)

    @work(thread=True, exclusive=True, group="fix")
    def _fix_worker(self, finding: StoredFinding, cancel: threading.Event) -> None:
        try:
            updated, explanation = self.session.request_fix(self.fused_with_overrides(),
                                                            finding, cancel=cancel)
        except ReviewTuiError as error:
            self.call_from_thread(self._fix_failed, cancel, str(error))
            return
        self.call_from_thread(self._fix_arrived, cancel, updated, explanation)

    def _fix_failed(self, cancel: threading.Event, error: str) -> None:
        if self.jobs.finish("fix", cancel):
            self.notify(error, title="no fix", severity="warning")
            self.set_status("no fix")
        self._show_busy()

    def _fix_arrived(self, cancel: threading.Event, finding: StoredFinding,
                     explanation: str) -> None:
        counted = self.jobs.finish("fix", cancel)
        self._show_busy()
        if not counted:
            return
        self.load_review()
        self.set_status(f"fix proposed: {explanation or finding.title}")
        self._preview(finding, explanation)

    def _preview(self, finding: StoredFinding, explanation: str = "") -> None:
        from reviewtui.app.fix import patch_text

        fix = finding.fix
        if fix is None:
            return
        applied = self.session.applied_fix(finding.fingerprint) is not None
        problem: str | None = None
        if not applied:
            try:
                self.session.preview_fix(finding)
            except ReviewTuiError as error:
                problem = error.message  # (its hint is the command line's: --dry-run)
        patch = patch_text(finding)

        def done(choice: FixChoice | None) -> None:
            if choice == "apply":
                self._apply(finding)
            elif choice == "undo":
                self._undo(finding.fingerprint)
            elif choice == "copy":
                self.copy_to_clipboard(patch)
                self.set_status(f"patch of {finding.file_path} {fix.lines} copied")
            elif choice == "again":
                self._ask_for_fix(finding)

        self.push_screen(FixModal(finding.title, patch, problem, applied,
                                  explanation or fix.explanation), done)

    def _apply(self, finding: StoredFinding) -> None:
        from reviewtui.errors import FixError

        try:
            after = self.session.apply_fix(finding)
        except FixError as error:  # the file changed since the preview: it says so, y copies
            self.notify(error.message, title="fix not applied", severity="error")
            self._preview(finding)
            return
        except ReviewTuiError as error:
            self.notify(str(error), title="fix not applied", severity="error")
            return
        fixed = " · the finding is fixed" if after.state == "fixed" else ""
        self._after_write(f"fix applied to {finding.file_path}{fixed} (u undoes it)")

    def action_undo_fix(self) -> None:
        row = self._current_row()
        chosen = next((f for f in row.review if f.fingerprint == self.current_finding),
                      None) if row is not None else None
        fingerprint = chosen.fingerprint if chosen is not None and self.session.applied_fix(
            chosen.fingerprint) is not None else None
        self._undo(fingerprint)

    def _undo(self, fingerprint: str | None) -> None:
        try:
            undone = self.session.undo_fix(fingerprint)
        except ReviewTuiError as error:
            self.notify(str(error), title="not undone", severity="warning")
            return
        self._after_write(f"fix undone: {undone.file_path} holds its previous bytes again")

    def _after_write(self, message: str) -> None:
        self.load_review()
        self.notify(message, title="fix")
        if self.loaded.refreshable:
            self.action_refresh()  # the change, the diff and the findings follow the file
        self.set_status(message)
