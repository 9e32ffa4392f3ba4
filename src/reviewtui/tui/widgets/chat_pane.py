"""The chat pane (``c``): streamed Markdown answers, tool calls collapsed, the round list.

The conversation itself is ``reviewtui.conversation.ChatSession`` (the same engine as
``reviewtui ask``); this widget only shows it. Answers stream into a Markdown widget; each tool
call is a collapsed line that expands to its (compressed) output. The transcript is anchored to
its end: it follows the newest text while an answer streams, until the person scrolls up to
read something earlier (scrolling back to the end follows again).

An answer that is not whole (stopped at the model's output token limit, cut off by the server,
or stopped by the person) is offered for continuing: the transcript takes the focus (unless the
person stopped it while typing in the input) and ``c`` there asks the model
to go on (``ContinueRequested``), giving the focus back to the input; anywhere else ``c`` is
what it always is (the chat key, or a letter in the input), so a question that starts with "c"
is never taken for it. An answer stopped before the model said anything is not offered: its
question goes back into the input (``offer_again``). Textual's Markdown widget (and its parser)
loads with the first answer, not with the workbench. Opened the first time, the pane shows the
rounds the change's session already had (``show_earlier``): the conversation the next question
continues.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Collapsible, Static

from reviewtui.tui.answer_stream import AnswerStream
from reviewtui.tui.widgets.chat_input import ChatInput

if TYPE_CHECKING:
    from reviewtui.sessions.records import RoundRecord


CONTINUE_QUESTION = "(continue the answer)"  # what a round that continues an answer shows


# why a reopened round's answer is not whole (``RoundRecord.ending``)
_WHY = {"interrupted": "you stopped it", "filtered": "stopped by the provider's content filter",
        "cut_off": "cut off by the server", "truncated": "stopped at the token limit"}


class ChatPane(Vertical):
    """Messages, the rounds list and the input."""

    ALLOW_MAXIMIZE = True  # zoom (z) from the input or the transcript takes the whole pane
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "continue_answer", "continue the answer", show=False),
    ]

    class ContinueRequested(Message):
        """The person asked to go on with the last, unfinished answer (``c``)."""

    class FixRequested(Message):
        """``/fix`` in the chat: ask the model for a fix to the selected finding."""

    continuable = False  # the last answer is not whole: ``c`` in the transcript continues it
    _streams: list[AnswerStream]  # the answers shown through a stream (set on mount)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Not continuable: ``c`` falls through to the app's binding (open or close the chat).
        return self.continuable if action == "continue_answer" else True

    def action_continue_answer(self) -> None:
        self.continuable = False
        # The input has the focus back: the next question typed is text, not the workbench's
        # keys (the transcript kept it, and ``s`` skipped a unit, ``e`` opened a modal).
        self.query_one(ChatInput).focus()
        self.post_message(self.ContinueRequested())

    def offer_continue(self, why: str, *, focus: bool = True) -> None:
        """Say the last answer is not whole, and let ``c`` in the transcript continue it.
        ``focus`` False leaves the focus where it is (the person typing in the input, where
        ``c`` is a letter): the notice says how to reach the transcript."""
        self.continuable = True
        if focus:
            self.show_notice(f"{why} — press c to continue it (tab goes back to the input)")
            self.log_view.focus()
        else:
            self.show_notice(f"{why} — shift+tab to the transcript, where c continues it")

    def offer_again(self, question: str) -> None:
        """The person stopped the answer to ``question`` before the model said anything:
        nothing to continue, so the question goes back into the input to be asked again
        (unless something else is being typed there; Up recalls it then)."""
        chat_input = self.query_one(ChatInput)
        if chat_input.text:
            self.show_notice("you stopped the answer before the model said anything: nothing "
                             "to continue — Up in the input brings the question back")
            return
        chat_input.load_text(question)
        chat_input.move_cursor(chat_input.document.end)
        self.show_notice("you stopped the answer before the model said anything: nothing to "
                         "continue — the question is back in the input, Enter asks it again")

    def compose(self) -> ComposeResult:
        yield Static("chat — no messages yet", id="chat-rounds")
        yield VerticalScroll(id="chat-log")
        yield ChatInput(id="chat-input")

    def on_mount(self) -> None:
        self._streams = []
        self.log_view.anchor()

    def on_unmount(self) -> None:
        for stream in self._streams:  # the workbench closes: nothing more is drawn
            stream.close()

    @property
    def log_view(self) -> VerticalScroll:
        return self.query_one("#chat-log", VerticalScroll)

    def show_notice(self, text: str) -> None:
        self.log_view.mount(Static(text, classes="chat-notice", markup=False))

    def start_exchange(self, question: str, answer_text: str = "") -> AnswerStream:
        """A question and its answer: ``answer_text``, or streamed in through what this
        returns (``feed`` from the worker's thread, ``finish`` when it is over)."""
        from textual.widgets import Markdown

        self.continuable = False
        log = self.log_view
        log.mount(Static(f"> {question}", classes="chat-question", markup=False))
        answer = Markdown(answer_text, classes="chat-answer")
        log.mount(answer)
        stream = AnswerStream(answer)
        self._streams = [s for s in self._streams if not s.finished] + [stream]
        return stream

    def show_earlier(self, rounds: Sequence[RoundRecord], left_out: int = 0) -> None:
        """Rounds the session had before this chat opened, each its question and answer
        (``left_out``: older ones not shown, counted)."""
        from textual.widgets import Markdown

        log = self.log_view
        if left_out:
            self.show_notice(f"{left_out} earlier rounds of this change's session not shown")
        for record in rounds:
            # a continuation's question is reviewtui's instruction to the model, not the
            # person's words: shown as it was while it ran
            asked = CONTINUE_QUESTION if record.continues is not None else record.user_message
            log.mount(Static(f"> {asked}", classes="chat-question", markup=False))
            if record.interrupted and not record.answer.strip():
                # stopped before a word came: there is no answer to call partial
                self.show_notice("(you stopped this question before any answer came)")
                continue
            log.mount(Markdown(record.answer, classes="chat-answer"))
            if record.ending:
                self.show_notice(f"(this answer is not whole: {_WHY[record.ending]})")

    def mark_cancelled(self) -> None:
        """The answer being streamed was stopped by the person."""
        answers = self.log_view.query(".chat-answer")
        if answers:
            answers.last().add_class("-cancelled")
        self.show_notice("cancelled")

    def add_tool(self, title: str, body: str) -> None:
        self.log_view.mount(Collapsible(Static(body, markup=False), title=title, collapsed=True,
                                        classes="chat-tool"))

    def set_rounds(self, text: str) -> None:
        self.query_one("#chat-rounds", Static).update(text)
