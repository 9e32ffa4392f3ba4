"""The long work, in thread workers that post back: planner (P), scanners (S), bundles (b),
review (R) and the chat. LLM calls are registered in ``jobs`` so Escape can stop them."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from textual import work

from reviewtui.errors import ReviewTuiError
from reviewtui.tui import status
from reviewtui.tui.base import WorkbenchBase

if TYPE_CHECKING:
    from reviewtui.models import Allocation, ContextBundle
    from reviewtui.pipeline import LoadedChange
    from reviewtui.plan import FusedPlan
    from reviewtui.sessions.records import RoundRecord
    from reviewtui.tui.answer_stream import AnswerStream
    from reviewtui.tui.session import Reviewed
    from reviewtui.tui.widgets.chat_input import ChatInput
    from reviewtui.tui.widgets.chat_pane import ChatPane

_T = TypeVar("_T")

# The units left out of a review that the chat names (the rest counted): a Markdown list item
# is a widget, and 1,800 of them (a 2,200-unit change) froze the workbench for a minute.
NOT_REVIEWED_SHOWN = 10
FIX_COMMAND = "/fix"  # in the chat: a fix for the selected finding (as the fix key)


class ModelActions(WorkbenchBase):
    def action_run_planner(self) -> None:
        if not self.session.model_configured():
            self.notify(self.session.not_configured_hint(), title="no model", severity="warning")
            return
        # With the rules' plan shown, the plan kept for this change will do (no request);
        # with the model's shown (kept or not), the person asks for a new one.
        fresh = self.triage.plan.planner.status in ("ok", "partial", "failed")
        cancel = self.jobs.start("planner")
        self.set_status("")
        self._show_busy()
        self._plan_worker(cancel, fresh)

    @work(thread=True, exclusive=True, group="planner")
    def _plan_worker(self, cancel: threading.Event, fresh: bool) -> None:
        loaded = self.loaded  # the change as the planner reads it (a refresh may land)
        try:  # as the commands plan: the plan cache included (``LoadedChange.plan``)
            plan = loaded.plan(fresh=fresh, cancel=cancel)
        except ReviewTuiError as error:
            self.call_from_thread(self._plan_failed, cancel, str(error))
            return
        self.call_from_thread(self._plan_done, cancel, plan, loaded)

    def _plan_failed(self, cancel: threading.Event, error: str) -> None:
        if self.jobs.finish("planner", cancel):
            self.notify(error, title="planner failed", severity="error")
            self.set_status("")
        self._show_busy()

    def _plan_done(self, cancel: threading.Event, plan: FusedPlan, read: LoadedChange) -> None:
        if not self.jobs.finish("planner", cancel):
            return  # cancelled: keep the plan the table shows
        note = ""
        if {u.unit_id for u in read.units} != {u.unit_id for u in self.loaded.units}:
            # A refresh landed while the planner ran: its plan is for the units it read,
            # carried to the units there are now (every one of them keeps its row).
            from reviewtui.pipeline.planning import carry_plan

            carried = carry_plan(self.loaded, plan, read.units, follow=(
                read.change_set.key == self.loaded.change_set.key))
            plan, note = carried.plan, status.earlier_plan(carried)
        self.triage.set_plan(plan)
        self.bundles.clear()
        self.refresh_rows()
        self._show_busy()
        self.set_status(note)

    def action_run_scanners(self) -> None:
        self.set_status("scanners running…")
        self._scan_worker()

    @work(thread=True, exclusive=True, group="scanners")
    def _scan_worker(self) -> None:
        from reviewtui.rules.scan_mapping import findings_by_unit

        report = self.loaded.scan()
        found = findings_by_unit(self.loaded.units, report.issues)
        counts = {unit_id: len(items) for unit_id, items in found.items()}
        ran = ", ".join(report.ran) or "none installed"
        self.call_from_thread(self._scan_done, counts, f"scanners: {ran}; "
                                                       f"{len(report.issues)} findings")

    def _scan_done(self, counts: dict[str, int], text: str) -> None:
        self.triage.findings = counts
        self.refresh_rows()
        self.set_status(text)

    def action_build_bundles(self) -> None:
        unit_id = self.current()
        wanted = [unit_id] if unit_id else []
        wanted += [r.unit.unit_id for r in self.rows
                   if not r.item.skip_review and r.unit.unit_id not in wanted]
        self.set_status(f"building {len(wanted)} bundles…")
        self._bundle_worker(wanted)

    @work(thread=True, exclusive=True, group="bundles")
    def _bundle_worker(self, unit_ids: list[str]) -> None:
        plan = self.fused_with_overrides()
        first = self.loaded.bundles(plan, unit_ids[:1])  # the unit under the cursor, at once
        self.call_from_thread(self._bundles_done, first.bundles, None)
        found = self.loaded.bundles(plan, unit_ids)  # the review budget, by priority
        self.call_from_thread(self._bundles_done, found.bundles, found.allocation)

    def _bundles_done(self, bundles: list[ContextBundle], allocation: Allocation | None) -> None:
        for bundle in bundles:
            self.bundles[bundle.unit_id] = bundle
        if allocation is not None:
            self.allocation = allocation
            self.set_status(f"{len(allocation.included)} bundles, {allocation.used} tokens; "
                            f"{len(allocation.deferred)} units deferred")
        self.show_detail()

    def action_review(self) -> None:
        if not self.session.model_configured():
            self.notify(self.session.not_configured_hint(), title="no model", severity="warning")
            return
        kept = [r.unit.unit_id for r in self.rows if not r.item.skip_review]
        if not kept:  # (else an empty "review" that read nothing went to the chat)
            self.set_status("nothing to review: no kept unit is shown (s unskips a unit; "
                            "/ then Escape clears the filter)")
            return
        self.set_status(f"reviewing {len(kept)} units…")
        self._open_chat(True)
        cancel = self.jobs.start("review")
        self._show_busy()
        self._review_worker(kept, cancel)

    @work(thread=True, exclusive=True, group="review")
    def _review_worker(self, unit_ids: list[str], cancel: threading.Event) -> None:
        from reviewtui.agent.report import TUI_TO_REVIEW, render_markdown

        try:
            reviewed = self.session.review(self.fused_with_overrides(), unit_ids,
                                           cancel=cancel)
        except ReviewTuiError as error:
            self.call_from_thread(self._review_failed, cancel, str(error))
            return
        self.call_from_thread(self._review_done, cancel, reviewed,
                              render_markdown(reviewed.result,
                                              not_reviewed_shown=NOT_REVIEWED_SHOWN,
                                              to_review=TUI_TO_REVIEW))

    def _review_failed(self, cancel: threading.Event, error: str) -> None:
        if self.jobs.finish("review", cancel):
            self.notify(error, title="review failed", severity="error")
            self.set_status("review failed")
        self._show_busy()

    def _review_done(self, cancel: threading.Event, reviewed: Reviewed, markdown: str) -> None:
        counted = self.jobs.finish("review", cancel)
        self._show_busy()
        if not counted:
            return
        # A refresh adopted while it ran: the units it read may not be the change's any more.
        note = self.settle_review(reviewed)
        if self.refreshing:  # one under way read the files while it ran: checked once adopted
            self.review_to_check = reviewed
        self.load_review()
        self.chat_pane.start_exchange("review", f"> {note}\n\n{markdown}" if note else markdown)
        self.set_status("; ".join(part for part in (
            f"review: {len(reviewed.result.findings)} findings ({reviewed.kept})", note) if part))

    # --- chat -----------------------------------------------------------------------------

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
        if record.cut_off:
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

