"""A chat about one change, over rounds: ``reviewtui ask`` and the TUI chat pane use this.

Each question is one round (seed 004): the round manager picks the files it inherits from
earlier rounds, the packer assembles the prompt at send time under the token budget (static
review context, summaries of old rounds, the recent window, inherited context, the question --
seed 002), the agent loop answers with tools, and everything is written to the session store as
it happens: the question when the round starts, tool results and the answer when it ends (each
in one transaction, under an index the store gives, so that several processes can ask in one
session at once). Old rounds that fall out of the window are summarised (by the model when there
is one) by the first round whose prompt needs them, before its question is sent: the answer that
pushed them out returns at once. An answer that is not whole (stopped at the model's output
token limit, cut off by the server, or stopped by the person: Ctrl-C, the chat's stop key) is
kept marked, and ``continue_answer`` asks the model to go on with it in a new round -- unless the
person stopped it before the model said anything (``unfinished``): then its question is asked
again.

Here the round's course; what it sends is ``chat_prompt``'s, how its turn is written
``turn_keeping``'s, which session it goes on in ``session_choice``'s.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass

from reviewtui.agent.loop import AgentLoop, AgentTurn, ToolRun
from reviewtui.agent.memory import ToolMemory
from reviewtui.agent.workspace import Workspace
from reviewtui.conversation.chat_prompt import (
    STATIC_BUDGET_SHARE,
    STATIC_SHARE,
    SYSTEM_PROMPT,
    WINDOW_ROUNDS,
    ChatPrompt,
)
from reviewtui.conversation.due_summaries import summarise_due, unsummarised
from reviewtui.conversation.packing import PackedPrompt
from reviewtui.conversation.rounds import RoundContext, RoundManager
from reviewtui.conversation.session_choice import choose_session
from reviewtui.conversation.static import StaticContext
from reviewtui.conversation.summary import Summarizer
from reviewtui.conversation.turn_keeping import AnswerInterrupted, TurnKeeper, reader
from reviewtui.conversation.unfinished import nothing_to_continue, said_nothing
from reviewtui.errors import LLMCancelledError, ReviewTuiError, StoreError, UsageError
from reviewtui.llm import LLMClient, TokenCounter
from reviewtui.llm.redact import redact_text
from reviewtui.sessions.records import MessageRecord, RoundRecord, SessionInfo
from reviewtui.sessions.store import SessionStore

# (the prompt's parts are ``chat_prompt``'s: named here too, where the chat's callers look)
__all__ = ["CONTINUE_PROMPT", "STATIC_BUDGET_SHARE", "STATIC_SHARE", "SUMMARY_INPUT_TOKENS",
           "SYSTEM_PROMPT", "WINDOW_ROUNDS", "AnswerInterrupted", "AskResult", "ChatSession"]

CONTINUE_PROMPT = ("Your previous answer stopped before it was finished. Continue it exactly "
                   "where it stopped: do not repeat what you already wrote, do not start over.")

SUMMARY_INPUT_TOKENS = 3000  # the most of a round's transcript a summary request sends


@dataclass(frozen=True)
class AskResult:
    answer: str
    round: RoundRecord
    context: RoundContext
    packed: PackedPrompt
    turn: AgentTurn


class ChatSession:
    """One session of one change; ``ask`` may be called from a worker thread."""

    def __init__(self, workspace: Workspace, store: SessionStore, client: LLMClient,
                 counter: TokenCounter, session: SessionInfo, *,
                 max_tool_rounds: int = 8) -> None:
        self.workspace = workspace
        self.store = store
        self.client = client
        self.counter = counter
        self.session = session
        self.memory = ToolMemory()
        self.loop = AgentLoop(client, workspace.toolbox(self.memory, self._stored_result),
                              self.memory, max_tool_rounds=max_tool_rounds,
                              counter=counter)
        self.rounds = RoundManager(store.rounds(session.session_id),
                                   known_files=[c.path for c in workspace.loaded.change_set.files])
        # the summary request must fit the window too: its transcript takes at most half
        self.summarizer = Summarizer(client, counter.count, max_input_tokens=min(
            SUMMARY_INPUT_TOKENS, client.config.context_window // 2))
        self.prompt = ChatPrompt(workspace, store, session.session_id, client, counter,
                                 self.loop)
        self.keeper = TurnKeeper(store, session.session_id, self.rounds, counter, self.memory)
        self._lock = threading.Lock()

    def _stored_result(self, ref_id: str) -> str | None:
        record = self.store.tool_result(self.session.session_id, ref_id)
        return record.content if record is not None else None

    @classmethod
    def open(cls, workspace: Workspace, store: SessionStore, client: LLMClient,
             counter: TokenCounter, *, session_id: str | None = None,
             new: bool = False, max_tool_rounds: int = 8) -> ChatSession:
        """Continue ``session_id``, else the latest session of this change, else a new one.

        A session of another repository or change is refused: its rounds would be sent to
        the model as this change's history, and this change's round kept among its own
        (``session_choice``)."""
        session = choose_session(workspace, store, client.config.model, session_id=session_id,
                                 new=new)
        return cls(workspace, store, client, counter, session, max_tool_rounds=max_tool_rounds)

    def static_context(self) -> str:
        """The review context sent with every request: the change's stated purpose (commit
        messages, description), the index and the kept units' diffs -- whole diffs, the
        others named (``static.fit_static``)."""
        return self.prompt.static().text

    def static(self) -> StaticContext:
        """The review context as fitted: its text, and which diffs it holds."""
        return self.prompt.static()

    def ask(self, question: str, *, on_delta: Callable[[str], None] | None = None,
            on_tool: Callable[[ToolRun], None] | None = None,
            cancel: threading.Event | None = None,
            continues: int | None = None,
            on_open: Callable[[RoundRecord], None] | None = None,
            on_progress: Callable[[str], None] | None = None) -> AskResult:
        """One round: question in, streamed answer out, all of it persisted. ``on_open`` hears
        the round once it is stored (a continuation: once it holds the claim on its round);
        ``on_progress`` what the round does before the answer starts (summaries of old rounds
        its prompt needs).

        The round is written twice, each time whole: the question when it starts (the store
        gives it the session's next index, so another process asking at the same moment gets
        another one), the answer with its messages and tool results when it ends."""
        # a key pasted into the question (the configured one too, which the store's patterns
        # do not know) is blanked before its keywords are taken and anything is stored
        question = redact_text(question, also=self.client.config.api_key)
        self.prompt.check_fits(question)
        with self._lock:
            sid = self.session.session_id
            self.rounds.sync(self.store.rounds(sid))  # other processes' rounds, if any
            guess, context = self.rounds.start_round(question, continues=continues)
            try:  # a continuation claims its round here: only one run goes on with it
                record = self.store.open_round(sid, guess, [MessageRecord(
                    round_index=guess.index, role="user", content=question,
                    tokens=self.counter.count(question))],
                    claim_stale_after=self._longest_round())
            except ReviewTuiError:
                self.rounds.sync(self.store.rounds(sid))  # the guess was never stored
                raise
            self.rounds.renumber(record.index)
            if on_open is not None:
                on_open(record)
            ended = [r for r in self.rounds.rounds if r.ended_at is not None]
            turn = AgentTurn()  # filled as the answer goes: kept in part if it is stopped
            gone: list[Exception] = []  # what the reader of the answer failed with, if it did
            try:
                packed = self.prompt.pack(question, context, ended)
                due = unsummarised(ended, packed, WINDOW_ROUNDS)
                if due:  # asked for now, then packed again
                    ended = summarise_due(self.store, self.session.session_id, self.rounds,
                                          self.summarizer, due, WINDOW_ROUNDS, on_progress,
                                          cancel)
                    packed = self.prompt.pack(question, context, ended)
                if continues is not None and continues not in packed.window_rounds:
                    packed = self.prompt.pack_continued(question, context, ended, continues,
                                                         packed)
                turn = self.loop.run(packed.messages, round_index=record.index,
                                     on_delta=reader(on_delta, gone), on_tool=on_tool,
                                     cancel=cancel, turn=turn)
            except BaseException as error:
                # stopped by the person (Ctrl-C, a cancel) or by the reader of the answer (a
                # closed pipe): what was streamed is the round's answer, marked interrupted
                stopped = bool(gone) or isinstance(error, (KeyboardInterrupt, LLMCancelledError))
                kept = self.keeper.keep_interrupted(turn) if stopped else None
                if kept is None and continues is not None:  # the answer may be continued
                    with contextlib.suppress(ReviewTuiError):
                        self.store.release_claim(sid, continues, record.index)
                if isinstance(error, KeyboardInterrupt) and kept is not None:
                    raise AnswerInterrupted(kept) from error
                raise
            done = self.rounds.end_round(
                turn.answer, files_used=turn.files,
                usage=(turn.prompt_tokens, turn.completion_tokens, turn.cached_tokens),
                cut_off=turn.cut_off, truncated=turn.truncated, filtered=turn.filtered)
            try:
                self.store.end_round(sid, done, self.keeper.messages(record.index, turn),
                                     self.keeper.results(turn))
            except StoreError as error:  # shown, not kept: "try again" would ask it anew
                raise StoreError(f"the answer was not kept in session {sid}: {error.message}",
                                 hint="its question stays there without an answer") from error
            return AskResult(turn.answer, done, context, packed, turn)

    def _longest_round(self) -> float:
        """The longest a round can take before its answer is stored: every tool round and
        the answer, each a call given up on after ``timeout`` x (``max_retries`` + 1). A
        continuation still in flight after that was killed: its claim no longer holds."""
        config = self.client.config  # (+ 2: the answer, and the summary its prompt may need)
        return config.timeout * (config.max_retries + 1) * (self.loop.max_tool_rounds + 2)

    def unfinished(self) -> RoundRecord | None:
        """The session's last round if its answer is not whole (stopped at the token limit,
        cut off by the server or stopped by the person): what ``continue_answer`` would go on
        with. Not one the person stopped before the model said anything (``stopped_unsaid``):
        there is nothing to go on from, the question is asked again."""
        last = self._last_ended()
        if last is None or not last.incomplete or self._said_nothing(last):
            return None
        return last

    def stopped_unsaid(self) -> RoundRecord | None:
        """The session's last round if the person stopped its answer before the model said
        anything: no text and no tool round. It is kept (its question, marked interrupted),
        but not continued."""
        last = self._last_ended()
        return last if last is not None and self._said_nothing(last) else None

    def _last_ended(self) -> RoundRecord | None:
        with self._lock:
            self.rounds.sync(self.store.rounds(self.session.session_id))
            ended = [r for r in self.rounds.rounds if r.ended_at is not None]
        return ended[-1] if ended else None

    def _said_nothing(self, record: RoundRecord) -> bool:
        return said_nothing(self.store, self.session.session_id, record)

    def nothing_to_continue(self) -> UsageError:
        """Why ``continue_answer`` has nothing to go on with (``unfinished`` is None)."""
        rounds = self.rounds.rounds  # (as ``unfinished`` synced them)
        return nothing_to_continue(self.session.session_id, rounds,
                                   self.stopped_unsaid() is not None)

    def continue_answer(self, *, on_delta: Callable[[str], None] | None = None,
                        on_tool: Callable[[ToolRun], None] | None = None,
                        cancel: threading.Event | None = None,
                        on_open: Callable[[RoundRecord], None] | None = None,
                        on_progress: Callable[[str], None] | None = None) -> AskResult:
        """Ask the model to go on from where the last answer stopped, as a new round that
        says which round it continues (the unfinished one stays marked). ``UsageError`` when
        there is nothing to go on with (``nothing_to_continue``)."""
        last = self.unfinished()
        if last is None:
            raise self.nothing_to_continue()
        return self.ask(CONTINUE_PROMPT, on_delta=on_delta, on_tool=on_tool, cancel=cancel,
                        continues=last.index, on_open=on_open, on_progress=on_progress)
