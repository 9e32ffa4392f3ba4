"""The chat's keys and its worker: a question asked (Enter in the chat input), an unfinished
answer continued (``c``), the answer streamed into the transcript from a thread worker, and what
the transcript and the status line say when it ends -- whole, cut off, at the token limit,
empty, or stopped by the person (then offered for continuing, or its question given back when
the model had said nothing). The chat's round is registered in ``jobs`` so Escape can stop it."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from textual import work

from reviewtui.errors import ReviewTuiError
from reviewtui.tui.base import WorkbenchBase

if TYPE_CHECKING:
    from reviewtui.sessions.records import RoundRecord
    from reviewtui.tui.answer_stream import AnswerStream
    from reviewtui.tui.widgets.chat_input import ChatInput
    from reviewtui.tui.widgets.chat_pane import ChatPane

_T = TypeVar("_T")

FIX_COMMAND = "/fix"  # in the chat: a fix for the selected finding (as the fix key)


class ChatActions(WorkbenchBase):
    # Textual's handler names for the chat's messages (``on_chat_input_submitted`` for
    # ``ChatInput.Submitted``): ``@on`` would need the chat's widgets imported with the app,
    # before the loading view can paint.
    def on_chat_input_submitted(self, event: ChatInput.Submitted) -> None:
        from reviewtui.tui.widgets.chat_pane import ChatPane

        chat = self.chat_pane
        if event.text.strip().lower() == FIX_COMMAND:  # not a question: the fix key's work
            self.post_message(ChatPane.FixRequested())
            return
        if not self.session.model_configured():
            chat.show_notice(self.session.not_configured_hint())
            return
        self._stop_running_answer()
        stream = chat.start_exchange(event.text)
        cancel = self.jobs.start("chat")
        self._show_busy()
        self.set_status("asking the model…")  # (not the last round's "cancelled: chat")
        self._chat_worker(event.text, stream, cancel)

    def on_chat_pane_continue_requested(self, event: ChatPane.ContinueRequested) -> None:
        """``c`` after an unfinished answer: the model goes on from where it stopped."""
        from reviewtui.tui.widgets.chat_pane import CONTINUE_QUESTION

        chat = self.chat_pane
        self._stop_running_answer()
        stream = chat.start_exchange(CONTINUE_QUESTION)
        cancel = self.jobs.start("chat")
        self._show_busy()
        self.set_status("continuing the answer…")
        self._chat_worker(None, stream, cancel)

    def _stop_running_answer(self) -> None:
        """A question asked while an answer streams stops that answer (``jobs.start``): the
        transcript says so where it stopped, as Escape does, or it read as the whole answer."""
        if self.jobs.running("chat"):
            self.chat_pane.mark_cancelled()

    @work(thread=True, exclusive=True, group="chat")
    def _chat_worker(self, question: str | None, stream: AnswerStream,
                     cancel: threading.Event) -> None:
        """One round; ``question`` None continues the last answer. The streamed pieces go to
        ``stream`` without waiting for the screen (it shows them coalesced)."""
        pane = self.chat_pane
        asking = "asking the model…" if question is not None else "continuing the answer…"
        preparing = [False]  # the status says what the round does before the answer

        def answering() -> None:
            """The answer has begun: the status says so again, not the work done before."""
            if preparing[0]:
                preparing[0] = False
                self.call_from_thread(self.set_status, asking)

        def delta(text: str) -> None:
            if not cancel.is_set():
                answering()
                stream.feed(text)

        def tool(run: Any) -> None:
            if not cancel.is_set():
                answering()
                self.call_from_thread(pane.add_tool,
                                      f"tool {run.call.name}({run.call.arguments[:60]})",
                                      run.outcome.content[:4000])

        def progress(text: str) -> None:
            if not cancel.is_set():
                preparing[0] = True
                self.call_from_thread(self.set_status, f"{text}…")

        try:
            result = self.session.ask(self.fused_with_overrides(), question, on_delta=delta,
                                      on_tool=tool, cancel=cancel, on_progress=progress)
        except ReviewTuiError as error:
            # stopped (Escape, q, another question): the text streamed is kept as the round
            stopped = self.session.stopped_round() if cancel.is_set() else None
            unsaid = (self.session.stopped_unsaid() if cancel.is_set() and stopped is None
                      else None)
            self._await_from_thread(self._chat_failed, cancel, stream, str(error), stopped,
                                    unsaid)
            return
        # (the worker ends once the answer is shown whole)
        self._await_from_thread(self._chat_done, cancel, stream, result.answer, result.round)

    def _await_from_thread(self, work: Callable[..., Awaitable[_T]], *args: Any) -> _T:
        """``call_from_thread`` for a coroutine function, awaited on the app's loop (Textual's
        annotation, ``T | Awaitable[T]``, has mypy infer ``Never`` for one)."""
        return self.call_from_thread(work, *args)  # type: ignore[arg-type]

    async def _chat_failed(self, cancel: threading.Event, stream: AnswerStream,
                           error: str, stopped: RoundRecord | None = None,
                           unsaid: RoundRecord | None = None) -> bool:
        """Whether the failure counted (the round was neither cancelled nor replaced).
        ``stopped``: the round kept with what streamed before the person stopped it;
        ``unsaid``: the round stopped before the model said anything (nothing to continue)."""
        from reviewtui.tui.widgets.chat_input import ChatInput

        await stream.finish()  # what came before the failure stays shown
        counted = self.jobs.finish("chat", cancel)
        if counted:
            self.chat_pane.show_notice(error)
        # a stopped answer is kept as its round, marked interrupted: the list says so
        self.chat_pane.set_rounds(self.session.rounds_text())
        self._show_busy()
        if stopped is not None and not counted and not self.jobs.running("chat"):
            # stopped, not replaced by another question: offered for continuing (the
            # person typing in the input keeps it: there c is a letter)
            self.chat_pane.offer_continue(
                "you stopped the answer (what was shown is kept in the session, marked "
                "interrupted)", focus=not isinstance(self.focused, ChatInput))
            # (the status line keeps "cancelled: …": it names every job the key stopped)
        elif unsaid is not None and not counted and not self.jobs.running("chat"):
            self.chat_pane.offer_again(unsaid.user_message)
        return counted

    async def _chat_done(self, cancel: threading.Event, stream: AnswerStream, text: str,
                         record: RoundRecord) -> bool:
        """Whether the answer counted (the round was neither cancelled nor replaced)."""
        counted = self.jobs.finish("chat", cancel)
        await stream.finish(text if counted else None)  # cancelled: what was shown stays
        self._show_busy()
        if not counted:
            return False
        pane = self.chat_pane
        pane.set_rounds(self.session.rounds_text())
        if record.filtered:
            pane.offer_continue("the answer was stopped by the provider's content filter (kept "
                                "in the session, marked cut off)")
            self.set_status(f"round {record.index + 1} stopped by the content filter — "
                            "c continues")
        elif record.cut_off:
            pane.offer_continue("the answer was cut off: the server closed the stream before "
                                "it finished (kept in the session, marked cut off)")
            self.set_status(f"round {record.index + 1} cut off by the server — c continues")
        elif record.truncated:
            pane.offer_continue("the answer stopped at the model's output token limit (kept "
                                "in the session, marked incomplete)")
            self.set_status(f"round {record.index + 1} incomplete: the model's token limit — "
                            "c continues")
        elif not text.strip():  # nothing streamed, or only tool calls past the cap
            pane.show_notice("the model sent no answer: its reply had no text (the empty "
                             "round is kept; ask again)")
            self.set_status(f"round {record.index + 1}: the model sent no answer")
        elif record.continues is not None:
            self.set_status(f"round {record.continues + 1} continued in round "
                            f"{record.index + 1}")
        else:
            self.set_status(f"round {record.index + 1} answered")
        return True

