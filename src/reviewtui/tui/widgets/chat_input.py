"""The chat pane's multi-line input: a ``TextArea`` that edits whole graphemes and sends on Enter.

Seed 004 traced the old input's bugs to cursor maths done by hand next to the rendering. Here
Textual owns rendering, scrolling and the document; the cursor arithmetic lives in
``reviewtui.tui.text_cursor`` (pure, tested without a terminal), and this module only plugs it
into ``TextArea``'s hooks. What a stock ``TextArea`` gets wrong, and what is overridden:

* it moves, selects and deletes by code point, so a ZWJ family, a flag, a skin tone, a combining
  accent or Hangul jamo can be split: every cursor hook, the selection validator and the
  delete actions here work on extended grapheme clusters;
* its soft wrap folds long words by code point, splitting a cluster across two rows, and maps
  a screen cell back to a column by code point: ``_GraphemeWrappedDocument`` wraps and maps on
  clusters;
* its key handler turns Enter into a newline and drops zero-width joiners typed one key at a
  time: Enter sends, Ctrl+J (every terminal) or Shift+Enter (kitty protocol) inserts a newline;
* it draws the cursor over one code point, which splits a cluster into two differently styled
  pieces: rendered lines are regrouped so a style never changes inside a cluster.

Up on the first visual row and down on the last walk the sent-message history like a shell;
the unsent draft comes back when walking past the newest entry.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import ClassVar, Literal

from rich.segment import Segment
from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.document._document import Location
from textual.document._document_navigator import DocumentNavigator
from textual.document._wrapped_document import WrappedDocument
from textual.geometry import Offset, Size
from textual.message import Message
from textual.strip import Strip
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from reviewtui.tui import text_cursor as tc

PLACEHOLDER = "Ask about the change — Enter sends, Ctrl+J newline, Ctrl+O zoom, Esc leaves"
MAX_LINES = 8
"""Rows of text the input grows to before it scrolls (the CSS max-height adds the border)."""
HISTORY_LIMIT = 1000


class _GraphemeWrappedDocument(WrappedDocument):
    """Textual's wrapped view of the document, wrapping and hit-testing on whole clusters.

    Only the computation of wrap offsets and the cell<->column mapping change; the data layout
    (the private caches ``TextArea`` reads when rendering) is kept as Textual defines it.
    """

    @property
    def wrapped_at(self) -> int:
        """The width the document is currently wrapped at (0: not wrapped)."""
        return self._width

    def wrap(self, width: int, tab_width: int | None = None) -> None:
        """Wrap every line with :func:`text_cursor.wrap_offsets` (clusters never split)."""
        self._width = width
        if tab_width:
            self._tab_width = tab_width
        lines = self.document.lines
        self._wrap_offsets = [tc.wrap_offsets(line, width, self._tab_width) for line in lines]
        self._tab_width_cache = [tc.tab_widths(line, self._tab_width) for line in lines]
        self._reindex()

    def wrap_range(self, start: Location, old_end: Location, new_end: Location) -> None:
        """Re-wrap only the edited lines, then rebuild the row index (cheap: no measuring)."""
        old_count = len(self._wrap_offsets)
        line_count = self.document.line_count
        top = min(start[0], old_end[0], new_end[0])
        old_bottom = max(start[0], old_end[0])
        new_bottom = old_bottom + line_count - old_count
        if not (0 <= top <= old_bottom < old_count and top <= new_bottom < line_count):
            self.wrap(self._width)
            return
        lines = self.document.lines[top : new_bottom + 1]
        tab = self._tab_width
        self._wrap_offsets[top : old_bottom + 1] = [
            tc.wrap_offsets(line, self._width, tab) for line in lines
        ]
        self._tab_width_cache[top : old_bottom + 1] = [tc.tab_widths(line, tab) for line in lines]
        self._reindex()

    def _reindex(self) -> None:
        offset_to_line_info: list[tuple[int, int]] = []
        line_index_to_offsets: list[list[int]] = []
        y = 0
        for line_index, offsets in enumerate(self._wrap_offsets):
            sections = len(offsets) + 1
            line_index_to_offsets.append(list(range(y, y + sections)))
            offset_to_line_info.extend((line_index, section) for section in range(sections))
            y += sections
        self._offset_to_line_info = offset_to_line_info
        self._line_index_to_offsets = line_index_to_offsets

    def location_to_offset(self, location: Location) -> Offset:
        """The (x, y) cell of a location, measured per cluster like the wrapping."""
        row, col = location
        row = max(0, min(row, len(self._wrap_offsets) - 1))
        line = self.document[row] if row < self.document.line_count else ""
        section, x = tc.locate(line, self._wrap_offsets[row], col, self._tab_width)
        ys = self._line_index_to_offsets[row]
        return Offset(x, ys[min(section, len(ys) - 1)])

    def offset_to_location(self, offset: Offset) -> Location:
        """The boundary under a cell (mouse clicks, page up/down): never inside a cluster."""
        info = self._offset_to_line_info
        line_index, section = info[max(0, min(offset.y, len(info) - 1))]
        return line_index, self.get_target_document_column(line_index, max(0, offset.x), section)

    def get_target_document_column(self, line_index: int, x_offset: int, y_offset: int) -> int:
        """The boundary at cell ``x_offset`` of section ``y_offset`` (negative: from the end)."""
        offsets = self._wrap_offsets[line_index]
        section = y_offset if y_offset >= 0 else len(offsets) + 1 + y_offset
        return tc.column_at_x(
            self.document[line_index], offsets, section, x_offset, self._tab_width
        )


def _joins_cluster(character: str) -> bool:
    """True for invisible format characters (ZWJ, tag characters) that build up a cluster.

    ``TextArea`` inserts only "printable" key characters, and ``str.isprintable`` says no to
    category Cf, so a ZWJ emoji typed from a picker one key at a time would lose its joiners.
    """
    return unicodedata.category(character) == "Cf"


def _keep_clusters_whole(strip: Strip) -> Strip:
    """Regroup segments so that no style change falls inside a grapheme cluster.

    ``TextArea`` styles the cursor as ``[column, column + 1)``, i.e. the first code point of a
    cluster; the rest of the cluster would be a separate, unstyled segment, which terminals draw
    as a broken glyph. Continuation code points move into the segment holding the cluster start.
    """
    segments = list(strip)
    text = "".join(segment.text for segment in segments)
    if text.isascii():
        return strip
    bounds = set(tc.grapheme_bounds(text))
    out: list[Segment] = []
    position = 0
    changed = False
    for segment in segments:
        piece = segment.text
        if out and piece and position not in bounds:
            take = tc.next_boundary(text, position) - position
            head, piece = piece[:take], piece[take:]
            previous = out[-1]
            out[-1] = Segment(previous.text + head, previous.style, previous.control)
            changed = True
        position += len(segment.text)
        if piece:
            out.append(Segment(piece, segment.style, segment.control))
    return Strip(out) if changed else strip


class ChatInput(TextArea):
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

    # --- wiring Textual to cluster arithmetic ----------------------------------------------

    def _set_document(self, text: str, language: str | None) -> None:
        # TextArea builds a fresh WrappedDocument and navigator for every document it loads;
        # swap in the cluster-aware wrapper each time (the navigator only delegates to it).
        super()._set_document(text, language)
        self.wrapped_document = _GraphemeWrappedDocument(
            self.document, tab_width=self.indent_width
        )
        self.navigator = DocumentNavigator(self.wrapped_document)
        self._rewrap_and_refresh_virtual_size()

    def _validate_selection(self, selection: Selection) -> Selection:
        """Clamp, then snap both ends to cluster starts, whoever set the selection."""
        start, end = super()._validate_selection(selection)
        return Selection(self._snap(start), self._snap(end))

    def _snap(self, location: Location) -> Location:
        row, col = location
        return row, tc.snap(self.document[row], col)

    def _render_line(self, y: int) -> Strip:
        return _keep_clusters_whole(super()._render_line(y))

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
        if width <= 0 or (isinstance(document, _GraphemeWrappedDocument)
                          and document.wrapped_at == wrap):
            height = super().get_content_height(container, viewport, width)
        else:
            tab = self.indent_width
            height = sum(len(tc.wrap_offsets(line, wrap, tab)) + 1 for line in self.document.lines)
        if not self.text and self.placeholder and width > 0:
            height = max(height, len(Content.from_text(self.placeholder).wrap(width)))
        return height

    # --- cursor hooks (TextArea calls these for plain and shift+ moves alike) ---------------

    def get_cursor_left_location(self) -> Location:
        row, col = self.cursor_location
        if col == 0:
            return (row - 1, len(self.document[row - 1])) if row > 0 else (0, 0)
        return row, tc.prev_boundary(self.document[row], col)

    def get_cursor_right_location(self) -> Location:
        row, col = self.cursor_location
        line = self.document[row]
        if col >= len(line):
            return (row + 1, 0) if row < self.document.line_count - 1 else (row, len(line))
        return row, tc.next_boundary(line, col)

    def get_cursor_up_location(self) -> Location:
        return self._visual_move("up")

    def get_cursor_down_location(self) -> Location:
        return self._visual_move("down")

    def _visual_move(self, direction: Literal["up", "down"]) -> Location:
        # Move through the rows as they are drawn, i.e. at the width the document is wrapped at
        # (``wrap_width`` can run ahead of it for a frame while the input is resized).
        document = self.wrapped_document
        width = (document.wrapped_at if isinstance(document, _GraphemeWrappedDocument)
                 else self.wrap_width)
        row, col = self.cursor_location
        new_row, new_col, _goal = tc.visual_move(
            self.document.lines, width, row, col, direction,
            self.navigator.last_x_offset, self.indent_width,
        )
        return new_row, new_col

    def get_cursor_line_end_location(self) -> Location:
        return self._snap(super().get_cursor_line_end_location())

    def get_cursor_line_start_location(self, smart_home: bool = False) -> Location:
        return self._snap(super().get_cursor_line_start_location(smart_home))

    def get_cursor_word_left_location(self) -> Location:
        row, col = self.cursor_location
        if row > 0 and col == 0:
            return row - 1, len(self.document[row - 1])
        return row, tc.word_left(self.document[row], col)

    def get_cursor_word_right_location(self) -> Location:
        row, col = self.selection.end
        line = self.document[row]
        if row < self.document.line_count - 1 and col == len(line):
            return row + 1, 0
        return row, tc.word_right(line, col)

    def action_delete_word_right(self) -> None:
        """Delete to the end of the next word; the stock action can stop inside a cluster."""
        if self.cursor_at_end_of_text:
            return
        start, end = self.selection
        if start != end:
            self._delete_via_keyboard(start, end)
            return
        row, col = end
        line = self.document[row]
        if col == len(line) and row < self.document.line_count - 1:
            target: Location = (row + 1, 0)
        else:
            target = (row, tc.word_end_right(line, col))
        self._delete_via_keyboard(end, target)

    # Backspace and Delete use the left/right hooks above, so they remove a whole cluster.

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
        # so this runs before TextArea's handler and must not call it itself.
        if event.key == "enter":
            # TextArea would insert a newline; in a chat input Enter sends.
            event.stop()
            event.prevent_default()
            self.action_submit()
            return
        character = event.character
        if (
            not self.read_only
            and character is not None
            and len(character) == 1
            and _joins_cluster(character)
        ):
            event.stop()
            event.prevent_default()
            self._replace_via_keyboard(character, *self.selection)

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        """Enter and joiners are ours too (so app-level bindings do not take them first)."""
        if key == "enter" and not self.read_only:
            return True
        if character is not None and len(character) == 1 and _joins_cluster(character):
            return not self.read_only
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
