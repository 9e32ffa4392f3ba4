"""The chat pane (``c``): streamed Markdown answers, tool calls collapsed, the round list.

The conversation itself is ``reviewtui.conversation.ChatSession`` (the same engine as
``reviewtui ask``); this widget only shows it. Answers stream into a Markdown widget; each tool
call is a collapsed line that expands to its (compressed) output.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Collapsible, Markdown, Static

from reviewtui.tui.widgets.chat_input import ChatInput


class ChatPane(Vertical):
    """Messages, the rounds list and the input."""

    def compose(self) -> ComposeResult:
        yield Static("chat — no messages yet", id="chat-rounds")
        yield VerticalScroll(id="chat-log")
        yield ChatInput(id="chat-input")

    def show_notice(self, text: str) -> None:
        log = self.query_one("#chat-log", VerticalScroll)
        log.mount(Static(text, classes="chat-notice", markup=False))

    def start_exchange(self, question: str, answer_text: str = "") -> Markdown:
        """A question and its answer (empty until it streams in, or ``answer_text``)."""
        log = self.query_one("#chat-log", VerticalScroll)
        log.mount(Static(f"> {question}", classes="chat-question", markup=False))
        answer = Markdown(answer_text, classes="chat-answer")
        log.mount(answer)
        log.scroll_end(animate=False)
        return answer

    def add_tool(self, title: str, body: str) -> None:
        log = self.query_one("#chat-log", VerticalScroll)
        log.mount(Collapsible(Static(body, markup=False), title=title, collapsed=True,
                              classes="chat-tool"))
        log.scroll_end(animate=False)

    def set_rounds(self, text: str) -> None:
        self.query_one("#chat-rounds", Static).update(text)
