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
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

from reviewtui.agent.loop import AgentLoop, AgentTurn, ToolRun
from reviewtui.agent.memory import ToolMemory
from reviewtui.agent.workspace import Workspace
from reviewtui.conversation.due_summaries import (
    messages_by_round,
    summarise_due,
    unsummarised,
)
from reviewtui.conversation.edits import edited_note, edited_since
from reviewtui.conversation.packing import PackedPrompt, pack
from reviewtui.conversation.replay import tail_round
from reviewtui.conversation.rounds import RoundContext, RoundManager
from reviewtui.conversation.static import StaticContext, fit_static
from reviewtui.conversation.summary import Summarizer
from reviewtui.conversation.unfinished import nothing_to_continue, said_nothing
from reviewtui.errors import LLMCancelledError, ReviewTuiError, StoreError, UsageError
from reviewtui.git.model import SideKind
from reviewtui.llm import LLMClient, TokenCounter
from reviewtui.llm.redact import redact_text
from reviewtui.sessions.records import (
    MessageRecord,
    RoundRecord,
    SessionInfo,
    ToolResultRecord,
)
from reviewtui.sessions.store import SessionStore
from reviewtui.sessions.values import clean_text

SYSTEM_PROMPT = """\
You are reviewtui's assistant: you help a developer review one code change. The review index \
and the diffs are below. Use the read-only tools (read_file_hunk, search_in_project, \
list_project_files, get_dependencies, get_scanner_issues, get_unit, get_bundle, \
get_tool_result) when you need more code; a tool result cut short in the history can be read \
again with get_tool_result and its ref id. Cite code as path:line. Be direct and concrete; say \
when you are not sure."""

CONTINUE_PROMPT = ("Your previous answer stopped before it was finished. Continue it exactly "
                   "where it stopped: do not repeat what you already wrote, do not start over.")

WINDOW_ROUNDS = 6
STATIC_SHARE = 0.4  # at most this share of the context goes to the static review context
STATIC_BUDGET_SHARE = 0.6  # ... and of the tokens left for the messages of a request
SUMMARY_INPUT_TOKENS = 3000  # the most of a round's transcript a summary request sends


def _sides(change_key: str) -> str:
    """A change key's two sides as a person reads them: ``d5842c4..357659b``."""
    sides = change_key.split(":", 1)[-1]
    return re.sub(r"\b([0-9a-f]{7})[0-9a-f]{33}\b", r"\1", sides)


class AnswerInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped an answer, and what it had streamed is kept as ``round`` (marked
    interrupted). A ``KeyboardInterrupt``: whatever does not know it still stops."""

    def __init__(self, round: RoundRecord) -> None:
        super().__init__(f"interrupted: round {round.index + 1} kept")
        self.round = round


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
        self._static: StaticContext | None = None
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
        the model as this change's history, and this change's round kept among its own."""
        session: SessionInfo | None = None
        if session_id is not None:
            session = store.session(session_id)
            if session is None:
                raise UsageError(f"no session {session_id!r}",
                                 hint="'reviewtui sessions' lists them")
            # compared as stored: a path that is not UTF-8 is kept escaped (``storable``)
            repo_key, change_key = clean_text(workspace.repo_key), clean_text(
                workspace.change_key)
            if (session.repo_key, session.change_key) != (repo_key, change_key):
                if session.repo_key != repo_key:
                    where = f"another repository ({session.title})"
                else:  # a branch amended or rebased keeps its title: the commits tell apart
                    where = (f"another change ({session.title}, {_sides(session.change_key)}; "
                             f"this one is {_sides(workspace.change_key)})")
                raise UsageError(f"session {session.session_id} is about {where}",
                                 hint="give that change's selector and PATH, or leave "
                                      "--session out")
        if session is None:
            meta = workspace.index.review_metadata
            title = f"{meta.mode}: {meta.old} -> {meta.new}"
            if new:
                session = store.create_session(workspace.repo_key, workspace.change_key, title,
                                               model=client.config.model)
            else:  # found or created in one transaction: runs started together share it
                session = store.session_for_change(workspace.repo_key, workspace.change_key,
                                                   title, model=client.config.model)
        return cls(workspace, store, client, counter, session, max_tool_rounds=max_tool_rounds)

    def static_context(self) -> str:
        """The review context sent with every request: the change's stated purpose (commit
        messages, description), the index and the kept units' diffs -- whole diffs, the
        others named (``static.fit_static``)."""
        return self.static().text

    def static(self) -> StaticContext:
        if self._static is None:
            ws = self.workspace
            window = self.client.config.context_window
            kept = {i.unit_id for i in ws.plan.plan if not i.skip_review}
            diffs = [(u.unit_id, u.location, u.diff_text()) for u in ws.loaded.units
                     if u.unit_id in kept]
            purpose = ws.intent_markdown(self.counter.count, window)
            head = "## Review index\n\n" + ws.index_markdown() + "\n\n## Diffs\n\n"
            # the stated purpose first: what does not fit is the diffs, never the purpose
            head = f"{purpose}\n\n{head}" if purpose else head
            # a share of the window, and of what the reply and the tool schemas leave of it
            # (a 4,000-token model answering in up to 1,500): the rest is the conversation's
            limit = min(int(window * STATIC_SHARE), int(self._budget() * STATIC_BUDGET_SHARE)
                        - self.counter.count(SYSTEM_PROMPT))
            self._static = fit_static(head, diffs, self.counter.count, max(0, limit))
        return self._static

    def _inherited(self, context: RoundContext) -> str:
        if not context.inherited:
            return ""
        lines = ["Files from earlier rounds that look relevant to this question:"]
        lines += [f"- {f.path} (relevance {f.score:.2f}, round {f.from_round + 1})"
                  for f in context.inherited]
        return "\n".join(lines)

    def _edited(self, ended: list[RoundRecord]) -> str:
        """The note naming the files edited on disk since earlier rounds (a chat about the
        working tree only: a commit or a range does not change under it)."""
        change_set = self.workspace.loaded.change_set
        if change_set.new_side.kind is not SideKind.WORKTREE:
            return ""
        paths = {p for change in change_set.files for p in (change.old_path, change.new_path)
                 if p}
        return edited_note(edited_since(self.workspace.loaded.root, ended, paths))

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
        self._check_fits(question)
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
                packed = self._pack(question, context, ended)
                due = unsummarised(ended, packed, WINDOW_ROUNDS)
                if due:  # asked for now, then packed again
                    ended = summarise_due(self.store, self.session.session_id, self.rounds,
                                          self.summarizer, due, WINDOW_ROUNDS, on_progress,
                                          cancel)
                    packed = self._pack(question, context, ended)
                if continues is not None and continues not in packed.window_rounds:
                    packed = self._pack_continued(question, context, ended, continues, packed)
                turn = self.loop.run(packed.messages, round_index=record.index,
                                     on_delta=self._reader(on_delta, gone), on_tool=on_tool,
                                     cancel=cancel, turn=turn)
            except BaseException as error:
                # stopped by the person (Ctrl-C, a cancel) or by the reader of the answer (a
                # closed pipe): what was streamed is the round's answer, marked interrupted
                stopped = bool(gone) or isinstance(error, (KeyboardInterrupt, LLMCancelledError))
                kept = self._keep_interrupted(turn) if stopped else None
                if kept is None and continues is not None:  # the answer may be continued
                    with contextlib.suppress(ReviewTuiError):
                        self.store.release_claim(sid, continues, record.index)
                if isinstance(error, KeyboardInterrupt) and kept is not None:
                    raise AnswerInterrupted(kept) from error
                raise
            done = self.rounds.end_round(
                turn.answer, files_used=turn.files,
                usage=(turn.prompt_tokens, turn.completion_tokens, turn.cached_tokens),
                cut_off=turn.cut_off, truncated=turn.truncated)
            try:
                self.store.end_round(sid, done, self._turn_messages(record.index, turn),
                                     self._turn_results(turn))
            except StoreError as error:  # shown, not kept: "try again" would ask it anew
                raise StoreError(f"the answer was not kept in session {sid}: {error.message}",
                                 hint="its question stays there without an answer") from error
            return AskResult(turn.answer, done, context, packed, turn)

    @staticmethod
    def _reader(on_delta: Callable[[str], None] | None,
                gone: list[Exception]) -> Callable[[str], None] | None:
        """``on_delta``, noting in ``gone`` an error it raises (its output closed)."""
        if on_delta is None:
            return None
        heard = on_delta

        def read(text: str) -> None:
            try:
                heard(text)
            except Exception as error:
                gone.append(error)
                raise

        return read

    def _keep_interrupted(self, turn: AgentTurn) -> RoundRecord | None:
        """End the round in flight with what ``turn`` got before the person stopped it: the
        tool rounds done and the text streamed so far, marked interrupted. None when it could
        not be stored (the round stays in flight, its question kept, as before)."""
        answer = turn.streaming
        messages = [*turn.messages, {"role": "assistant", "content": answer}]
        stopped = AgentTurn(answer=answer, messages=messages, tool_runs=turn.tool_runs,
                            prompt_tokens=turn.prompt_tokens,
                            completion_tokens=turn.completion_tokens + (
                                self.counter.count(answer) if answer else 0),
                            cached_tokens=turn.cached_tokens)
        done = self.rounds.end_round(
            answer, files_used=stopped.files,
            usage=(stopped.prompt_tokens, stopped.completion_tokens, stopped.cached_tokens),
            interrupted=True)
        try:
            self.store.end_round(self.session.session_id, done,
                                 self._turn_messages(done.index, stopped),
                                 self._turn_results(stopped))
        except StoreError:
            with contextlib.suppress(StoreError):  # what the store has: the round in flight
                self.rounds.sync(self.store.rounds(self.session.session_id))
            return None
        return done

    def _budget(self) -> int:
        """What the window leaves for the messages: less the reply and the tool schemas sent
        with them."""
        return self.loop.budget - self.counter.count_tools(self.loop.schemas())

    def _check_fits(self, question: str) -> None:
        """Refuse, before anything is stored or sent, a question that does not fit the window
        with the parts of the prompt that are never cut (the system prompt, the review context):
        sent anyway, a server refuses it, or silently drops the prompt's start."""
        budget = self._budget()
        bare = pack(system=SYSTEM_PROMPT, static_context=self.static_context(), rounds=[],
                    messages_by_round={}, current=question, budget=budget,
                    count=self.counter.count)
        if not bare.overflow:
            return
        config = self.client.config
        static = bare.layer("static").tokens
        room = (f"[llm] context_window = {config.context_window:,} leaves {max(0, budget):,} "
                f"once the reply (max_output_tokens = {config.max_output_tokens:,}) and the "
                f"tool schemas ({self.loop.budget - budget:,}) are set aside")
        if static > budget:
            raise UsageError(f"the review context does not fit the model's context window: "
                             f"it takes {static:,} tokens, and {room}",
                             hint="lower [llm] max_output_tokens, or raise [llm] "
                                  "context_window if the model takes more")
        raise UsageError(f"the question does not fit the model's context window: with the "
                         f"review context it takes {bare.tokens:,} tokens, and {room}",
                         hint="shorten the question, or raise [llm] context_window if the "
                              "model takes more")

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

    def _turn_results(self, turn: AgentTurn) -> list[ToolResultRecord]:
        found = (self.memory.get(run.ref_id) for run in turn.tool_runs)
        return [record for record in found if record is not None]

    def _turn_messages(self, index: int, turn: AgentTurn) -> list[MessageRecord]:
        refs = {run.call.id: run.ref_id for run in turn.tool_runs}
        messages = []
        for message in turn.messages:
            content = message.get("content") or ""
            call_id = message.get("tool_call_id")
            messages.append(MessageRecord(
                round_index=index, role=message["role"], content=content,
                tool_calls=list(message.get("tool_calls") or []), tool_call_id=call_id,
                name=message.get("name"), ref_id=refs.get(call_id) if call_id else None,
                tokens=self.counter.count(content)))
        return messages

    def _pack(self, question: str, context: RoundContext, ended: list[RoundRecord], *,
              replaced: dict[int, list[MessageRecord]] | None = None) -> PackedPrompt:
        """The prompt for ``question`` after the ``ended`` rounds (``replaced``: the messages
        to send for some of them instead of those stored)."""
        by_round = messages_by_round(self.store, self.session.session_id)
        by_round.update(replaced or {})
        return pack(system=SYSTEM_PROMPT, static_context=self.static_context(), rounds=ended,
                    messages_by_round=by_round, current=question,
                    inherited_context="\n\n".join(filter(None, [
                        self._inherited(context), self._edited(ended)])),
                    budget=self._budget(), count=self.counter.count, window=WINDOW_ROUNDS)

    def _pack_continued(self, question: str, context: RoundContext, ended: list[RoundRecord],
                        continues: int, packed: PackedPrompt) -> PackedPrompt:
        """A continuation whose unfinished answer does not fit the prompt whole: the packer
        let the round go to the summary layer, where the model cannot see where the answer
        stopped. Sent instead as its question and the end of its answer, in the room the
        rest of the prompt leaves (``packed`` when even that does not fit)."""
        record = next((r for r in ended if r.index == continues), None)
        if record is None:
            return packed
        rest = [r for r in ended if r.index != continues]
        without = self._pack(question, context, rest)
        room = without.budget - without.tokens - 16  # (joining pieces is not quite additive)
        cut = tail_round(record, room, self.counter.count)
        if cut is None:
            return packed
        shorter, messages = cut
        fitted = self._pack(question, context, [*rest, shorter],
                            replaced={continues: messages})
        return fitted if continues in fitted.window_rounds else packed
