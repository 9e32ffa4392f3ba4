"""``V``: the verdict of the review — approve, request changes or comment — and a summary.

Returns the ``ReviewVerdict`` to keep, or None when cancelled.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Select

from reviewtui.sessions.review_records import ReviewVerdict, VerdictKind
from reviewtui.tui.screens.form_modal import FormModal

CHOICES: tuple[tuple[VerdictKind, str], ...] = (
    ("approve", "Approve"), ("request_changes", "Request changes"), ("comment", "Comment"))


class VerdictModal(FormModal[ReviewVerdict]):

    def __init__(self, current: ReviewVerdict | None) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        chosen = self.current.verdict if self.current else "comment"
        with Vertical(id="verdict-dialog", classes="dialog"):
            yield Label("Verdict of this review", classes="dialog-title")
            # A Select, not radio buttons: the keys start on the current verdict.
            yield Select([(label, kind) for kind, label in CHOICES], value=chosen,
                         allow_blank=False, id="verdict-choice")
            yield Label("Summary (optional; it heads the export)", classes="field-label")
            yield Input(self.current.summary if self.current else "",
                        placeholder="e.g. One blocker: the rate change", id="verdict-summary")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    def form_result(self) -> ReviewVerdict:
        value = self.query_one("#verdict-choice", Select).value
        kind: VerdictKind = next((k for k, _ in CHOICES if k == value), "comment")
        summary = self.query_one("#verdict-summary", Input).value.strip()
        return ReviewVerdict(verdict=kind, summary=summary)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_save()

