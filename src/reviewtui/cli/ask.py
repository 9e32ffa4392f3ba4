"""``reviewtui ask``: a question about the change, its answer streamed to stdout.

It continues the last session of this change (``--session`` another, ``--new`` a new one); tool
calls and the round's bookkeeping go to stderr, so stdout is just the answer. An answer that is
not whole is printed with a bracketed line saying so, kept marked in the session, and ends the
run with an error (status 3 for the token limit, so a script can ``ask --continue``); Ctrl-C
keeps what was streamed and says where (status 130).
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO

from reviewtui.cli.agent import client_for, shown, tool_line, workspace
from reviewtui.cli.parser import typed_text
from reviewtui.errors import LLMResponseError, LLMTruncatedError, StoreError, UsageError

if TYPE_CHECKING:
    from reviewtui.agent.loop import ToolRun
    from reviewtui.conversation.engine import ChatSession
    from reviewtui.sessions.records import RoundRecord


CUT_OFF_MARK = "[answer cut off: the server closed the stream before it finished]"
FILTERED_MARK = "[answer stopped by the provider's content filter]"
TRUNCATED_MARK = ("[answer incomplete: the model stopped at its output token limit; "
                  "reviewtui ask --continue goes on]")



def _ask_arguments(args: argparse.Namespace) -> str | None:
    """The question (None with ``--continue``), checked before any work is done; with
    ``--continue`` the one positional is the ``PATH``."""
    if not args.continue_answer:
        if args.question is None or not str(args.question).strip():
            raise UsageError("ask needs a QUESTION" if args.question is None
                             else "ask needs a QUESTION, not an empty one",
                             hint="or --continue to go on with the last answer")
        return typed_text(str(args.question))
    if args.new:
        raise UsageError("--continue goes on in an existing session: not with --new")
    if args.question is not None:
        if args.path is not None:
            raise UsageError("--continue takes no QUESTION: it goes on with the last answer")
        args.path, args.question = args.question, None
    return None


class _Printed:
    """The answer as streamed to stdout, each piece at once; ``end_line`` ends the line it
    left open (before a tool round's next text, after the answer, on an error or Ctrl-C)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.open = False

    def write(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()
            self.open = not text.endswith("\n")

    def end_line(self) -> None:
        if self.open:
            self.write("\n")

    @contextlib.contextmanager
    def ending_its_line(self) -> Iterator[None]:
        try:
            yield
        except BaseException:
            with contextlib.suppress(OSError, ValueError):  # stdout gone: nothing to end
                self.end_line()
            raise


def _said_nothing(record: RoundRecord, chat: ChatSession) -> bool:
    try:
        unsaid = chat.stopped_unsaid()
    except StoreError:  # (the store is busy: the line still says where the round is kept)
        return False
    return unsaid is not None and unsaid.index == record.index


def _interrupted(record: RoundRecord, chat: ChatSession, err: TextIO) -> int:
    """Ctrl-C stopped the answer, and the round was kept: one line, the interrupt's code."""
    where = f"in session {chat.session.session_id} (round {record.index + 1}, marked interrupted)"
    if record.answer.strip():
        kept = f"the answer so far is kept {where}"
    elif _said_nothing(record, chat):  # --continue would refuse it
        kept = (f"the question is kept {where}; the model had said nothing, so there is "
                "nothing to continue: ask it again")
    else:  # tool rounds done: --continue goes on from them
        kept = f"the question is kept {where}, without an answer"
    err.write(f"reviewtui: interrupted: {kept}\n")
    err.flush()
    return 130


def run_ask(args: argparse.Namespace, out: TextIO,
            err: TextIO) -> int:
    from reviewtui.conversation.engine import AnswerInterrupted, ChatSession
    from reviewtui.sessions.store import SessionStore

    question = _ask_arguments(args)
    err = shown(err)
    ws = workspace(args)
    client, counter = client_for(ws)
    with SessionStore() as store:
        chat = ChatSession.open(ws, store, client, counter, session_id=args.session,
                                new=args.new, max_tool_rounds=args.max_tool_rounds)
        err.write(f"session {chat.session.session_id} ({chat.session.title})\n")

        printed = _Printed(out)

        def tool(run: ToolRun) -> None:
            printed.end_line()  # what the model said before its tool calls is a line apart
            tool_line(run, err)

        def progress(text: str) -> None:
            printed.end_line()
            err.write(f"{text}…\n")
            err.flush()

        if question is None:
            unfinished = chat.unfinished()
            if unfinished is None:  # (the workbench's c offers exactly what this takes)
                raise chat.nothing_to_continue()
            number = unfinished.index + 1

            def opened(_: object) -> None:  # once this run holds the round, not before
                err.write(f"continuing round {number}\n")

            try:
                with printed.ending_its_line():
                    result = chat.continue_answer(on_delta=printed.write, on_tool=tool,
                                                  on_open=opened, on_progress=progress)
            except AnswerInterrupted as stop:
                return _interrupted(stop.round, chat, err)
        else:
            try:
                with printed.ending_its_line():
                    result = chat.ask(question, on_delta=printed.write, on_tool=tool,
                                      on_progress=progress)
            except AnswerInterrupted as stop:
                return _interrupted(stop.round, chat, err)
        printed.end_line()
        if result.turn.filtered:
            out.write(FILTERED_MARK + "\n")
        elif result.round.cut_off:
            out.write(CUT_OFF_MARK + "\n")
        elif result.round.truncated:
            out.write(TRUNCATED_MARK + "\n")
        out.flush()
        static = chat.static()
        if not static.complete:
            err.write(f"review context: the diffs of {static.diffs_sent} of "
                      f"{static.diffs_kept} kept units (the rest left out to fit [llm] "
                      "context_window; the model is told, and reads them with its tools)\n")
        record = result.round
        inherited = ", ".join(f.path for f in result.context.inherited) or "none"
        stats = chat.rounds.cache_stats().get("inheritance")
        hit_rate = f"{stats.hit_rate:.0%}" if stats is not None else "-"
        counted = (", counted here: the server sent no usage" if result.turn.estimated
                   else "")
        err.write(f"round {record.index + 1}: {record.prompt_tokens} prompt + "
                  f"{record.completion_tokens} completion tokens "
                  f"({record.cached_tokens} cached{counted}); packed {result.packed.tokens}/"
                  f"{result.packed.budget}; inherited: {inherited}; "
                  f"inheritance cache hit rate {hit_rate}\n")
    if result.turn.filtered:
        raise LLMResponseError(
            "the answer was stopped by the provider's content filter (finish_reason "
            "content_filter)",
            hint=f"the partial answer is kept in session {chat.session.session_id}, marked "
                 "incomplete")
    if result.round.cut_off:
        raise LLMResponseError(
            "the answer was cut off: the server closed the stream before it finished",
            hint=f"the partial answer is kept in session {chat.session.session_id}, marked cut "
                 "off; 'reviewtui ask --continue' asks for the rest")
    if result.round.truncated:
        raise LLMTruncatedError(
            "the answer stopped at the model's output token limit (finish_reason length)",
            hint=f"it is kept in session {chat.session.session_id}, marked incomplete; "
                 "'reviewtui ask --continue' asks for the rest (or raise [llm] "
                 "max_output_tokens)")
    if not result.answer.strip():  # nothing streamed, or only tool calls past the cap
        raise LLMResponseError(
            "the model sent no answer: its reply had no text",
            hint=f"the empty round is kept in session {chat.session.session_id}; ask again")
    return 0
