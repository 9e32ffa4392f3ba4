"""The chat input in a real (headless) Textual app: keys, clusters, wrapping, history, height."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from reviewtui.tui.text_cursor import grapheme_bounds
from reviewtui.tui.text_wrap import wrap_offsets
from reviewtui.tui.widgets.chat_input import MAX_LINES, PLACEHOLDER, ChatInput

FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # 👩‍👩‍👧, five code points
FR = "\U0001f1eb\U0001f1f7"  # 🇫🇷
DE = "\U0001f1e9\U0001f1ea"  # 🇩🇪
THUMB = "\U0001f44d\U0001f3fd"  # 👍🏽
E_ACUTE = "e\u0301"
SIZE = (40, 12)


class InputApp(App[None]):
    """A transcript pane stand-in above one ChatInput; records what was sent."""

    def __init__(self, text: str = "", history: Sequence[str] = ()) -> None:
        super().__init__()
        self.sent: list[str] = []
        self._text = text
        self._history = history

    def compose(self) -> ComposeResult:
        yield Static("transcript")
        yield ChatInput(self._text, history=self._history)

    def on_mount(self) -> None:
        self.query_one(ChatInput).focus()

    def on_chat_input_submitted(self, event: ChatInput.Submitted) -> None:
        self.sent.append(event.text)


def _input(pilot: Pilot[Any]) -> ChatInput:
    return pilot.app.query_one(ChatInput)


async def _type_raw(pilot: Pilot[Any], data: str) -> None:
    """Feed ``data`` through Textual's terminal parser, as if typed or sent by an emoji picker.

    ``Pilot.press`` cannot produce zero-width joiners or variation selectors; the parser
    yields exactly the key events a real terminal session would.
    """
    for event in XTermParser().feed(data):
        if isinstance(event, events.Key):
            pilot.app.post_message(event)
            await pilot.pause()


def _x_y(chat: ChatInput) -> tuple[int, int]:
    offset = chat.wrapped_document.location_to_offset(chat.cursor_location)
    return offset.x, offset.y


# --- sending and newlines -------------------------------------------------------------------


async def test_enter_sends_the_text_and_clears_the_input() -> None:
    app = InputApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hello")
        await pilot.press("enter")
        await pilot.pause()
        chat = _input(pilot)
        assert app.sent == ["hello"]
        assert chat.text == ""
        assert chat.cursor_location == (0, 0)
        assert chat.message_history == ["hello"]


async def test_enter_on_a_blank_input_sends_nothing() -> None:
    app = InputApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.press("space", "space", "ctrl+j", "space", "enter")
        await pilot.pause()
        assert app.sent == []
        assert _input(pilot).text == "  \n "  # kept: nothing was sent
        assert _input(pilot).message_history == []


async def test_ctrl_j_and_shift_enter_insert_newlines_and_enter_sends_them() -> None:
    app = InputApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
        chat = _input(pilot)
        assert chat.text == "a\nb\nc"
        assert chat.cursor_location == (2, 1)
        assert app.sent == []
        await _type_raw(pilot, "\n")  # the byte a terminal sends for Ctrl+J
        assert chat.text == "a\nb\nc\n"
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent == ["a\nb\nc\n"]


async def test_paste_inserts_lines_verbatim_without_sending() -> None:
    app = InputApp()
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        await pilot.press("x")
        chat.post_message(events.Paste("a\nb\nc"))
        await pilot.pause()
        assert chat.text == "xa\nb\nc"
        assert chat.document.line_count == 3
        assert chat.cursor_location == (2, 1)
        assert app.sent == []


# --- grapheme clusters -----------------------------------------------------------------------


async def test_backspace_deletes_a_whole_zwj_family_in_one_press() -> None:
    app = InputApp(f"a{FAMILY}")
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        await pilot.press("end")
        assert chat.cursor_location == (0, 6)
        await pilot.press("backspace")
        assert chat.text == "a"
        assert chat.cursor_location == (0, 1)


async def test_left_and_right_step_over_a_flag_as_one_character() -> None:
    app = InputApp(f"x{FR}{DE}")
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        await pilot.press("end")
        assert chat.cursor_location == (0, 5)
        await pilot.press("left")
        assert chat.cursor_location == (0, 3)  # two code points: one flag
        await pilot.press("left")
        assert chat.cursor_location == (0, 1)
        await pilot.press("right")
        assert chat.cursor_location == (0, 3)
        await pilot.press("delete")
        assert chat.text == f"x{FR}"


async def test_shift_arrows_select_whole_clusters() -> None:
    app = InputApp(f"a{THUMB}{E_ACUTE}b")
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        await pilot.press("end", "left", "shift+left")
        assert chat.selected_text == E_ACUTE
        await pilot.press("shift+left")
        assert chat.selected_text == THUMB + E_ACUTE
        await pilot.press("backspace")
        assert chat.text == "ab"


async def test_a_location_inside_a_cluster_snaps_to_its_start() -> None:
    app = InputApp(f"a{FAMILY}b")
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        chat.move_cursor((0, 3))  # programmatic: inside the family
        assert chat.cursor_location == (0, 1)
        # A click on the right half of the (two cells wide) family lands on its start too.
        chat.move_cursor((0, 7))
        left, top = chat.content_region.x - chat.region.x, chat.content_region.y - chat.region.y
        assert await pilot.click(ChatInput, offset=(left + 2, top))
        assert chat.cursor_location == (0, 1)
        assert await pilot.click(ChatInput, offset=(left + 3, top))  # "b", after the family
        assert chat.cursor_location == (0, 6)


async def test_an_emoji_typed_key_by_key_keeps_its_joiners() -> None:
    app = InputApp()
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        await _type_raw(pilot, f"{FAMILY}\u2764\ufe0f{FR}")
        assert chat.text == f"{FAMILY}\u2764\ufe0f{FR}"
        await pilot.press("left", "left")
        assert chat.cursor_location == (0, 5)


async def test_word_moves_and_word_delete_keep_accents_with_their_letters() -> None:
    app = InputApp(f"caf{E_ACUTE} cr{E_ACUTE}me")
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        await pilot.press("home", "ctrl+right")
        assert chat.cursor_location == (0, 5)
        await pilot.press("alt+delete")
        assert chat.text == f"caf{E_ACUTE}"
        await pilot.press("ctrl+w")
        assert chat.text == ""


# --- soft wrapping ---------------------------------------------------------------------------


async def test_up_and_down_through_a_wrapped_cjk_line_keep_the_visual_column() -> None:
    line = "中文" * 30  # 120 cells: several visual rows at this width
    app = InputApp(line)
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        offsets = wrap_offsets(line, chat.wrap_width)
        assert len(offsets) >= 3
        assert chat.wrapped_document.get_offsets(0) == offsets
        chat.move_cursor((0, 3))
        x, y = _x_y(chat)
        assert (x, y) == (6, 0)
        await pilot.press("down")
        assert _x_y(chat) == (6, 1)
        assert chat.cursor_location == (0, offsets[0] + 3)
        await pilot.press("down")
        assert _x_y(chat) == (6, 2)
        await pilot.press("up", "up")
        assert chat.cursor_location == (0, 3)


async def test_vertical_moves_never_land_inside_an_emoji_on_a_wrapped_row() -> None:
    line = "ab" + FAMILY * 30  # the family rows are offset by one cell against "ab" rows
    app = InputApp(f"{line}\nxyz")
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        bounds = {0, 1, 2, *range(2, len(line) + 1, len(FAMILY))}
        chat.move_cursor((0, 1))  # x=1
        for _ in range(chat.wrapped_document.height + 1):
            await pilot.press("down")
            row, col = chat.cursor_location
            assert row == 1 or col in bounds
        assert chat.cursor_location[0] == 1
        for _ in range(chat.wrapped_document.height):
            await pilot.press("up")
            row, col = chat.cursor_location
            assert row == 1 or col in bounds


async def test_wrapped_rows_never_split_a_cluster() -> None:
    line = "a" + FAMILY * 40
    app = InputApp(line)
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        for offset in chat.wrapped_document.get_offsets(0):
            assert (offset - 1) % len(FAMILY) == 0


async def test_incremental_rewrap_matches_a_full_wrap_after_edits_undo_and_redo() -> None:
    rng = random.Random(5)
    pieces = ["中文", FAMILY, FR, THUMB, E_ACUTE, " ", "word ", "\n", "\t", "longwordlongword"]
    app = InputApp()
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        for _ in range(150):
            choice = rng.random()
            if choice < 0.5:
                text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
                row = rng.randrange(chat.document.line_count)
                chat.insert(text, (row, rng.randint(0, len(chat.document[row]))))
            elif choice < 0.75:
                rows = sorted(rng.randrange(chat.document.line_count) for _ in range(2))
                start = (rows[0], rng.randint(0, len(chat.document[rows[0]])))
                end = (rows[1], rng.randint(0, len(chat.document[rows[1]])))
                chat.delete(*sorted((start, end)))
            elif choice < 0.9:
                chat.undo()
            else:
                chat.redo()
            width = chat.wrap_width
            lines = chat.document.lines
            expected = [wrap_offsets(line, width) for line in lines]
            assert [chat.wrapped_document.get_offsets(i) for i in range(len(lines))] == expected
            assert chat.wrapped_document.height == sum(len(o) + 1 for o in expected)
            row, col = chat.cursor_location
            assert col in grapheme_bounds(chat.document[row])


# --- history ---------------------------------------------------------------------------------


async def test_history_recall_walks_like_a_shell_and_keeps_the_draft() -> None:
    app = InputApp(history=["first", "second"])
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert chat.text == "second"
        assert chat.cursor_location == (0, 6)
        await pilot.press("up")
        assert chat.text == "first"
        await pilot.press("up")  # oldest: stays
        assert chat.text == "first"
        await pilot.press("down")
        assert chat.text == "second"
        await pilot.press("down")
        assert chat.text == "draft"
        await pilot.press("down")  # not recalling: an ordinary cursor move
        assert chat.text == "draft"
        # Sending adds to the history; the next Up shows it first.
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent == ["draft"]
        await pilot.press("up")
        assert chat.text == "draft"
        assert chat.message_history == ["first", "second", "draft"]


async def test_up_only_recalls_from_the_first_visual_row() -> None:
    app = InputApp("line one\nline two", history=["old"])
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        chat.move_cursor((1, 4))
        await pilot.press("up")
        assert chat.text == "line one\nline two"
        assert chat.cursor_location == (0, 4)
        await pilot.press("up")
        assert chat.text == "old"
        await pilot.press("down")
        assert chat.text == "line one\nline two"


# --- height ----------------------------------------------------------------------------------


async def test_the_input_grows_with_its_content_up_to_the_maximum_then_scrolls() -> None:
    app = InputApp()
    async with app.run_test(size=(80, 24)) as pilot:
        chat = _input(pilot)
        assert chat.content_size.height == 1  # the placeholder fits on one row at this width
        heights = []
        for _ in range(MAX_LINES + 3):
            await pilot.press("x", "ctrl+j")
            await pilot.pause()
            heights.append(chat.content_size.height)
        assert heights == [*range(2, MAX_LINES + 1), MAX_LINES, MAX_LINES, MAX_LINES, MAX_LINES]
        assert chat.scroll_offset.y > 0  # the cursor row stays in view
        # Soft-wrapped rows count too, and sending shrinks it back.
        await pilot.press("enter")
        await pilot.pause()
        assert chat.content_size.height == 1


async def test_the_placeholder_is_shown_whole_when_empty() -> None:
    app = InputApp()
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        assert str(chat.placeholder) == PLACEHOLDER
        rows = -(-len(PLACEHOLDER) // chat.content_size.width)
        assert chat.content_size.height >= rows


# --- snapshot --------------------------------------------------------------------------------


class SnapshotApp(InputApp):
    """Wrapped CJK and emoji; a long unspaced run folds between two families, not inside one.

    The cursor sits on the family that starts the second row and covers all five code points.
    """

    def on_mount(self) -> None:
        chat = self.query_one(ChatInput)
        chat.cursor_blink = False
        chat.load_text(
            f"这个改动会影响缓存吗？ab{FAMILY * 6}{FR}{THUMB} 请看 review units 的评分，"
            "尤其是中文注释和 emoji 混排的那一行。\nsecond line"
        )
        chat.move_cursor((0, 11 + 2 + 5 * len(FAMILY)))
        chat.focus()


async def test_the_snapshot_layout_folds_between_clusters() -> None:
    app = SnapshotApp()
    async with app.run_test(size=SIZE) as pilot:
        chat = _input(pilot)
        first_row_end = chat.wrapped_document.get_offsets(0)[0]
        assert first_row_end == chat.cursor_location[1] == 11 + 2 + 5 * len(FAMILY)
        assert _x_y(chat) == (0, 1)


def test_snapshot_wrapped_cjk_and_emoji(snap_compare: Any) -> None:
    assert snap_compare(SnapshotApp(), terminal_size=SIZE)
