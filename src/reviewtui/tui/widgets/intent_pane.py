"""The change's stated purpose, whole: commit messages, branch, linked issues, description.

Hidden until ``I`` opens it under the header (the header always shows its one line). It shows
what the models read (``git.intent_text``), with a generous budget: a long range's older
commits are summarised the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

if TYPE_CHECKING:  # the intent's model loads with the change (the pane is composed before)
    from reviewtui.git.intent import ChangeIntent


class IntentPane(VerticalScroll):
    """Scrollable; at most a third of the screen (see app.tcss)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="intent-text", markup=False)

    def show(self, intent: ChangeIntent | None) -> None:
        from reviewtui.git.intent_text import INTENT_MAX_TOKENS, intent_markdown
        from reviewtui.llm import estimate_tokens

        text = (intent_markdown(intent, estimate_tokens, INTENT_MAX_TOKENS)
                if intent is not None else "")
        self.query_one("#intent-text", Static).update(
            text or "No stated purpose: no commits and no description (i writes one).")
