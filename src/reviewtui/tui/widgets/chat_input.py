"""The chat pane's multi-line input: a grapheme-aware ``TextArea`` that sends on Enter.

The editing itself -- cursor moves, selection, deletion, wrapping and drawing on whole grapheme
clusters -- is ``GraphemeTextArea`` (``grapheme_text_area``, ``grapheme_layout``, over the pure
arithmetic of ``reviewtui.tui.text_cursor`` and ``text_wrap``). What this module adds for a chat:

* Enter sends (``Submitted``); Ctrl+J (every terminal) or Shift+Enter (kitty protocol) inserts a
  newline; a paste is inserted verbatim and never sends;
* the input grows with its content up to ``MAX_LINES`` rows, measured at the width offered;
* Up on the first visual row and down on the last walk the sent-message history like a shell;
  the unsent draft comes back when walking past the newest entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.message import Message

from reviewtui.tui import text_wrap as tw
from reviewtui.tui.widgets.grapheme_layout import GraphemeWrappedDocument
from reviewtui.tui.widgets.grapheme_text_area import GraphemeTextArea

PLACEHOLDER = "Ask about the change — Enter sends, Ctrl+J newline, Ctrl+O zoom, Esc leaves"
MAX_LINES = 8
"""Rows of text the input grows to before it scrolls (the CSS max-height adds the border)."""
HISTORY_LIMIT = 1000


class ChatInput(GraphemeTextArea):
    """Multi-line message input: Enter sends, Ctrl+J adds a line, edits whole graphemes.

    The input grows with its content up to ``MAX_LINES`` rows, then scrolls. A paste (bracketed
    paste, a ``Paste`` event) is inserted verbatim, newlines included, and never sends.
    """

    DEFAULT_CSS = f"""
    ChatInput {{
        height: auto;
        max-height: {MAX_LINES + 2};
    }}
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+j,shift+enter", "newline", "Newline", show=False),
        # Shown while typing (the footer's letter keys type text here); the workbench decides
        # what Escape does (stop a running answer first, else leave the input).
        Binding("escape", "app.escape", "leave chat"),
    ]

    class Submitted(Message):
        """Posted when the user presses Enter on a message that is not blank."""

        def __init__(self, text: str, chat_input: ChatInput) -> None:
            super().__init__()
            self.text = text
            """The message exactly as typed (newlines kept)."""
            self.chat_input = chat_input
            """The input that sent it."""

        @property
        def control(self) -> ChatInput:
            """The input that sent it (for ``@on(ChatInput.Submitted, "#id")``)."""
            return self.chat_input

    def __init__(
        self,
        text: str = "",
        *,
        history: Sequence[str] = (),
        placeholder: str = PLACEHOLDER,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        self.message_history: list[str] = list(history)
        """Sent messages, oldest first; Up/Down walk it. (``TextArea.history`` is the undo
        stack, hence the longer name.)"""
        self._history_index: int | None = None
        self._draft = ""
        super().__init__(
            text,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            placeholder=placeholder,
            name=name,
            id=id,
            classes=classes,
            disabled=disabled,
        )

    # --- size: grows with its content ------------------------------------------------------

    def _refresh_size(self) -> None:
        # With ``height: auto`` the layout depends on the wrapped height; tell the parent when
        # a keystroke adds or removes a visual row so the input grows and shrinks.
        before = self.virtual_size.height
        super()._refresh_size()
        if self.virtual_size.height != before and self.is_mounted:
            self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Tall enough for the text wrapped at ``width``, or for the whole placeholder.

        The stock answer is the current virtual height, i.e. the text wrapped at the *previous*
        width (unwrapped before the first layout), which lays the input out one frame too
        short, with a scrollbar that then narrows the wrap. Measure at the width offered.
        """
        wrap = max(0, width - 1)  # the cursor's resting cell, as in TextArea.wrap_width
        document = self.wrapped_document
        if width <= 0 or (isinstance(document, GraphemeWrappedDocument)
                          and document.wrapped_at == wrap):
            height = super().get_content_height(container, viewport, width)
        else:
            tab = self.indent_width
            height = sum(len(tw.wrap_offsets(line, wrap, tab)) + 1 for line in self.document.lines)
        if not self.text and self.placeholder and width > 0:
            height = max(height, len(Content.from_text(self.placeholder).wrap(width)))
        return height

    # --- history ---------------------------------------------------------------------------

    def action_cursor_up(self, select: bool = False) -> None:
        """Up; on the first visual row, recall the previous sent message."""
        if not select and self._on_first_row() and self.history_recall("previous"):
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        """Down; on the last visual row while recalling, go toward the newer entry or draft."""
        if not select and self._on_last_row() and self.history_recall("next"):
            return
        super().action_cursor_down(select)

    def _on_first_row(self) -> bool:
        return self.wrapped_document.location_to_offset(self.cursor_location).y == 0

    def _on_last_row(self) -> bool:
        y = self.wrapped_document.location_to_offset(self.cursor_location).y
        return y == self.wrapped_document.height - 1

    def history_recall(self, direction: Literal["previous", "next"]) -> bool:
        """Show an older (``previous``) or newer (``next``) history entry, like a shell.

        Leaving the draft for the history saves it; walking past the newest entry restores it.
        Returns False when there is nothing further that way (the caller then moves the cursor).
        """
        index = self._history_index
        if direction == "previous":
            if not self.message_history or index == 0:
                return False
            if index is None:
                self._draft = self.text
                index = len(self.message_history)
            index -= 1
            text = self.message_history[index]
        else:
            if index is None:
                return False
            index += 1
            if index >= len(self.message_history):
                index = None
                text = self._draft
            else:
                text = self.message_history[index]
        self._history_index = index
        self.load_text(text)
        self.move_cursor(self.document.end)
        return True

    def clear_and_remember(self, text: str) -> None:
        """Empty the input after ``text`` was sent, and add it to the history (no repeats)."""
        if text.strip() and (not self.message_history or self.message_history[-1] != text):
            self.message_history.append(text)
            del self.message_history[:-HISTORY_LIMIT]
        self._history_index = None
        self._draft = ""
        self.load_text("")

    # --- keys ------------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        # Textual calls ``_on_key`` of every class in the MRO until one prevents the default,
        # so this runs before GraphemeTextArea's and TextArea's handlers and must not call them.
        if event.key == "enter":
            # TextArea would insert a newline; in a chat input Enter sends.
            event.stop()
            event.prevent_default()
            self.action_submit()

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        """Enter is ours too (so app-level bindings do not take it first); joiners as well
        (``GraphemeTextArea``)."""
        if key == "enter" and not self.read_only:
            return True
        return super().check_consume_key(key, character)

    def action_newline(self) -> None:
        """Insert a line break at the cursor (Ctrl+J, or Shift+Enter where the terminal says so)."""
        if not self.read_only:
            self._replace_via_keyboard("\n", *self.selection)

    def action_submit(self) -> None:
        """Send the message unless it is blank, then clear the input and remember it."""
        text = self.text
        if self.read_only or not text.strip():
            return
        self.post_message(self.Submitted(text, self))
        self.clear_and_remember(text)

    async def _on_paste(self, event: events.Paste) -> None:
        # TextArea's own handler (called next, by Textual's MRO dispatch) inserts the text
        # verbatim; stop the event here so nothing above the input treats it as input too.
        event.stop()
