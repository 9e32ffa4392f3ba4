"""``reviewtui review``, ``reviewtui ask`` and ``reviewtui sessions``: the agent, headless.

``review`` prints structured findings (Markdown, JSON or SARIF); ``ask`` streams an answer to
stdout and continues the last session of this change (tool calls and the round's bookkeeping go
to stderr, so stdout is just the answer); ``sessions`` lists the stored conversations.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO, cast

from reviewtui.cli.parser import typed_text
from reviewtui.cli.selectors import selector_from_args
from reviewtui.errors import (
    LLMError,
    LLMResponseError,
    LLMTruncatedError,
    StoreError,
    UsageError,
)

if TYPE_CHECKING:
    from reviewtui.agent.findings import ReviewResult
    from reviewtui.agent.loop import ToolRun
    from reviewtui.agent.workspace import Workspace
    from reviewtui.conversation.engine import ChatSession
    from reviewtui.llm import LLMClient, TokenCounter
    from reviewtui.sessions.records import RoundRecord


CUT_OFF_MARK = "[answer cut off: the server closed the stream before it finished]"
FILTERED_MARK = "[answer stopped by the provider's content filter]"
TRUNCATED_MARK = ("[answer incomplete: the model stopped at its output token limit; "
                  "reviewtui ask --continue goes on]")


def shown(err: TextIO) -> TextIO:
    """stderr is the person's: the paths, titles and tool arguments written there (a file
    named with ESC [2J, an argument the model wrote) show their controls as pictures."""
    from reviewtui.app.terminal_text import ShownStream

    return err if isinstance(err, ShownStream) else cast(TextIO, ShownStream(err))


def workspace(args: argparse.Namespace) -> Workspace:
    from reviewtui.agent.workspace import Workspace
    from reviewtui.cli.intent import loaded_with_intent
    from reviewtui.cli.plan import (
        overrides_from_args,
        print_override_problems,
        print_planner_report,
    )
    from reviewtui.cli.progress import load_change

    if args.max_tool_rounds < 0:
        raise UsageError("--max-tool-rounds must be 0 or more")
    overrides = overrides_from_args(args)
    loaded = load_change(args.path, selector_from_args(args), use_cache=not args.no_cache)
    loaded = loaded_with_intent(loaded, args)
    plan = loaded.plan(use_llm=not args.rules_plan, overrides=overrides, fresh=args.replan)
    if plan.planner.endpoint_error:
        # The agent would wait on the same silent or refusing endpoint all over again.
        raise LLMError(plan.planner.endpoint_error,
                       hint="the planner could not use the model; --rules-plan skips it")
    print_planner_report(plan.planner, plan.conflicts, sys.stderr)
    print_override_problems(overrides, plan, sys.stderr)
    return Workspace(loaded, plan)


def _client_for(ws: Workspace) -> tuple[LLMClient, TokenCounter]:
    from reviewtui.llm import LLMClient, resolve_llm, token_counter

    config = resolve_llm(ws.loaded.settings.llm)
    return LLMClient(config), token_counter(config.model)


def _tool_line(run: ToolRun, err: TextIO) -> None:
    args = run.call.arguments if len(run.call.arguments) <= 80 else (
        run.call.arguments[:77] + "...")
    status = "ok" if run.outcome.ok else "failed"
    err.write(f"  tool {run.call.name}({args}) {status}, {len(run.outcome.content)} chars "
              f"[{run.ref_id}]\n")
    err.flush()


def run_review(args: argparse.Namespace, out: TextIO,
               err: TextIO) -> int:
    from reviewtui.agent.report import render
    from reviewtui.agent.review import DEFAULT_PROMPT, Reviewer
    from reviewtui.cli.plan import selected

    err = shown(err)
    ws = workspace(args)
    client, counter = _client_for(ws)
    units = selected(ws.plan, args.unit) if args.unit else None
    reviewer = Reviewer(ws, client, counter, max_tool_rounds=args.max_tool_rounds)

    def progress(text: str) -> None:
        err.write(f"review: {text}\n")
        err.flush()

    result = reviewer.review(units, prompt=args.prompt or DEFAULT_PROMPT, on_progress=progress,
                             on_tool=lambda run: _tool_line(run, err),
                             all_batches=args.all_batches)
    if result.not_reviewed:
        from reviewtui.agent.report import not_reviewed_summary

        err.write(f"review: {not_reviewed_summary(result)}\n")
    wanted = units if units is not None else [
        i.unit_id for i in ws.plan.plan if not i.skip_review]
    left_out = {u.unit_id for u in result.not_reviewed}
    _keep_findings(ws, result, [u for u in wanted if u not in left_out], err)
    text = render(result, args.format)
    if args.output:
        write_output(args.output, text)
        err.write(f"review: {len(result.findings)} findings written to {args.output}\n")
    else:
        out.write(text)
    out.flush()
    if args.fail_on and any(f.severity <= args.fail_on for f in result.findings):
        err.write(f"review: findings at {args.fail_on} or worse\n")
        return 1
    return 0


def _keep_findings(ws: Workspace, result: ReviewResult, reviewed: list[str],
                   err: TextIO) -> None:
    """Merge the findings into the change's session; a store problem is a warning: the review
    itself is still printed."""
    from reviewtui.agent.record import record_review
    from reviewtui.errors import StoreError
    from reviewtui.sessions import SessionStore

    meta = ws.index.review_metadata
    try:
        with SessionStore() as store:
            session = store.session_for_change(ws.repo_key, ws.change_key,
                                               f"{meta.mode}: {meta.old} -> {meta.new}",
                                               model=result.model)
            merged = record_review(store, session.session_id, result, ws.loaded.units,
                                   reviewed, ws.side_line)
    except StoreError as error:
        err.write(f"review: findings not kept: {error}\n")
        return
    err.write(f"review: findings kept in session {session.session_id}: {merged.new} new, "
              f"{merged.seen_again} seen before, {merged.reopened} back, {merged.gone} gone\n")


def write_output(path: str, text: str) -> None:
    """Write a report to ``path``; a path that cannot be written is one line, not a
    traceback."""
    from pathlib import Path

    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


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
    client, counter = _client_for(ws)
    with SessionStore() as store:
        chat = ChatSession.open(ws, store, client, counter, session_id=args.session,
                                new=args.new, max_tool_rounds=args.max_tool_rounds)
        err.write(f"session {chat.session.session_id} ({chat.session.title})\n")

        printed = _Printed(out)

        def tool(run: ToolRun) -> None:
            printed.end_line()  # what the model said before its tool calls is a line apart
            _tool_line(run, err)

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


def run_sessions(args: argparse.Namespace, out: TextIO) -> int:
    from reviewtui.errors import NotARepositoryError
    from reviewtui.git import open_repository
    from reviewtui.sessions.store import SessionStore

    repo_key: str | None = None
    if not args.all:
        try:
            repo_key = str(open_repository(args.path).root)
        except NotARepositoryError:
            if args.path is not None:
                raise
    with SessionStore() as store:
        sessions = store.list_sessions(repo_key, limit=args.limit)
    if args.json:
        out.write(json.dumps([s.model_dump(mode="json") for s in sessions], indent=2,
                             ensure_ascii=False) + "\n")
        return 0
    if not sessions:
        out.write("no sessions yet (start one with: reviewtui ask \"...\")\n")
        return 0
    for s in sessions:
        where = "" if repo_key else f"  {s.repo_key}"
        when = s.updated_at[:16].replace("T", " ")
        # Rounds that got no answer (interrupted, left empty by the model, in flight now) are
        # no conversation to go on with: counted apart, not as rounds.
        open_rounds = s.rounds - s.answered
        unanswered = f" (+{open_rounds} unanswered)" if open_rounds else ""
        rounds = "round" if s.answered == 1 else "rounds"
        stopped = f", {s.interrupted} interrupted" if s.interrupted else ""
        out.write(f"{s.session_id}  {when}  {s.answered:>3} {rounds}{stopped}{unanswered}  "
                  f"{s.title}{where}\n")
    return 0
