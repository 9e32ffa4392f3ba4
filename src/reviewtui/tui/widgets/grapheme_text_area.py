"""A ``TextArea`` that moves, selects, deletes and types whole grapheme clusters.

Seed 004 traced the old chat input's bugs to cursor maths done by hand next to the rendering.
Here Textual owns rendering, scrolling and the document; the cursor arithmetic lives in
``reviewtui.tui.text_cursor`` and ``text_wrap`` (pure, tested without a terminal), wrapping and
drawing in ``grapheme_layout``, and this module only plugs them into ``TextArea``'s hooks. A stock
``TextArea`` moves, selects and deletes by code point, so a ZWJ family, a flag, a skin tone, a
combining accent or Hangul jamo can be split: every cursor hook, the selection validator and the
delete actions here work on extended grapheme clusters. Its key handler also drops zero-width
joiners typed one key at a time; here they are inserted. ``ChatInput`` is the chat's use of it.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

from textual import events
from textual.document._document import Location
from textual.document._document_navigator import DocumentNavigator
from textual.strip import Strip
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from reviewtui.tui import text_cursor as tc
from reviewtui.tui import text_wrap as tw
from reviewtui.tui.widgets.grapheme_layout import GraphemeWrappedDocument, keep_clusters_whole


def joins_cluster(character: str) -> bool:
    """True for invisible format characters (ZWJ, tag characters) that build up a cluster.

    ``TextArea`` inserts only "printable" key characters, and ``str.isprintable`` says no to
    category Cf, so a ZWJ emoji typed from a picker one key at a time would lose its joiners.
    """
    return unicodedata.category(character) == "Cf"


class GraphemeTextArea(TextArea):
    """``TextArea`` whose cursor, selection, deletions, wrapping and drawing keep clusters
    whole."""

    # --- wiring Textual to cluster arithmetic ----------------------------------------------

    def _set_document(self, text: str, language: str | None) -> None:
        # TextArea builds a fresh WrappedDocument and navigator for every document it loads;
        # swap in the cluster-aware wrapper each time (the navigator only delegates to it).
        super()._set_document(text, language)
        self.wrapped_document = GraphemeWrappedDocument(
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
        return keep_clusters_whole(super()._render_line(y))

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
        width = (document.wrapped_at if isinstance(document, GraphemeWrappedDocument)
                 else self.wrap_width)
        row, col = self.cursor_location
        new_row, new_col, _goal = tw.visual_move(
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

    # --- joiners typed one key at a time ---------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        # Textual calls ``_on_key`` of every class in the MRO until one prevents the default,
        # so this runs after a subclass's handler and before TextArea's, and must not call
        # either itself.
        character = event.character
        if (
            not self.read_only
            and character is not None
            and len(character) == 1
            and joins_cluster(character)
        ):
            event.stop()
            event.prevent_default()
            self._replace_via_keyboard(character, *self.selection)

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        """Joiners are typed text too (so app-level bindings do not take them first)."""
        if character is not None and len(character) == 1 and joins_cluster(character):
            return not self.read_only
        return super().check_consume_key(key, character)
