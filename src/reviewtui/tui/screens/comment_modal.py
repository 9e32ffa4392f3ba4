"""``m``: the reviewer's own comment on a line or a range of the unit — new, edited or deleted.

The body is the chat's wrap-aware input (Enter saves, ctrl+j a new line); the lines default to
the unit's first changed line and can be any ``12`` or ``12-15`` (``L12-15`` too) inside the
unit's lines. The unit's comments can be picked to edit or delete. Returns a ``CommentEdit`` or
None when cancelled.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Select

from reviewtui.sessions.review_records import ReviewComment
from reviewtui.tui.screens.form_modal import FormModal
from reviewtui.tui.widgets.chat_input import ChatInput

_RANGE = re.compile(r"^\s*[Ll]?(\d+)\s*(?:[-–:]\s*[Ll]?(\d+))?\s*$")
NEW = "new"


def parse_lines(text: str) -> tuple[int, int]:
    """``"12"``, ``"12-15"``, ``"L12-L15"`` -> (start, end); ``ValueError`` otherwise."""
    match = _RANGE.match(text)
    if match is None:
        raise ValueError("lines: a number or a range like 12-15")
    start = int(match.group(1))
    end = int(match.group(2) or start)
    if start < 1 or end < start:
        raise ValueError("lines: the range must go forward from line 1")
    return start, end


@dataclass(frozen=True)
class CommentEdit:
    action: Literal["save", "delete"]
    comment: ReviewComment


class CommentModal(FormModal[CommentEdit]):

    def __init__(self, location: str, draft: ReviewComment,
                 existing: Sequence[ReviewComment] = (),
                 span: tuple[int, int] | None = None) -> None:
        super().__init__()
        self.location = location
        self.draft = draft  # a new comment's defaults: file, side, lines, body, finding
        self.span = span  # the lines the unit covers on the comment's side
        self.existing = {c.comment_id: c for c in existing if c.comment_id is not None}
        self.editing: ReviewComment | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="comment-dialog", classes="dialog"):
            yield Label(f"Comment on {self.location}", classes="dialog-title", markup=False)
            options = [("new comment", NEW)] + [
                (f"{c.lines}: {c.body.splitlines()[0][:50]}", str(i))
                for i, c in self.existing.items()]
            yield Select(options, value=NEW, allow_blank=False, id="comment-pick")
            span = f" (this unit: {self.span[0]}-{self.span[1]})" if self.span else ""
            yield Label(f"Lines{span}", classes="field-label", markup=False)
            yield Input(self.draft.lines.removeprefix("L"), id="comment-lines",
                        placeholder="lines, e.g. 12 or 12-15")
            yield Label("Comment", classes="field-label")
            yield ChatInput(self.draft.body, id="comment-body",
                            placeholder="Your comment — Enter saves, Ctrl+J new line")
            yield Label("", id="comment-error", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Delete", variant="error", id="delete", disabled=True)
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.set_focus(self.query_one("#comment-body", ChatInput))

    def on_select_changed(self, event: Select.Changed) -> None:
        picked = None if event.value == NEW else self.existing.get(int(str(event.value)))
        self.editing = picked
        shown = picked or self.draft
        self.query_one("#comment-lines", Input).value = shown.lines.removeprefix("L")
        self.query_one("#comment-body", ChatInput).load_text(shown.body)
        self.query_one("#delete", Button).disabled = picked is None

    def _build(self, body: str) -> ReviewComment | None:
        error = self.query_one("#comment-error", Label)
        try:
            start, end = parse_lines(self.query_one("#comment-lines", Input).value)
        except ValueError as problem:
            error.update(f"✗ {problem}")
            return None
        if self.span is not None and not (self.span[0] <= start and end <= self.span[1]):
            error.update(f"✗ lines: this unit covers lines {self.span[0]}-{self.span[1]}")
            return None
        if not body.strip():
            error.update("✗ the comment is empty")
            return None
        base = self.editing or self.draft
        return base.model_copy(update={"start_line": start, "end_line": end,
                                       "body": body.strip()})

    def on_chat_input_submitted(self, event: ChatInput.Submitted) -> None:
        event.stop()
        comment = self._build(event.text)
        if comment is not None:
            self.dismiss(CommentEdit("save", comment))
        else:
            event.chat_input.load_text(event.text)  # keep what was typed

    def form_result(self) -> CommentEdit | None:
        comment = self._build(self.query_one("#comment-body", ChatInput).text)
        return CommentEdit("save", comment) if comment is not None else None

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "delete" and self.editing is not None:
            self.dismiss(CommentEdit("delete", self.editing))
        else:
            super().on_button_pressed(event)
