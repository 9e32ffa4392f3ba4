"""``reviewtui review`` and ``reviewtui sessions``: the agent, headless (``ask`` is in ``ask``).

``review`` prints structured findings (Markdown, JSON or SARIF); ``sessions`` lists the stored
conversations. The change's workspace, the model client and the tool lines on stderr are made
here for ``ask`` too.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, TextIO, cast

from reviewtui.cli.selectors import selector_from_args
from reviewtui.errors import LLMError, UsageError

if TYPE_CHECKING:
    from reviewtui.agent.findings import ReviewResult
    from reviewtui.agent.loop import ToolRun
    from reviewtui.agent.workspace import Workspace
    from reviewtui.llm import LLMClient, TokenCounter


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


def client_for(ws: Workspace) -> tuple[LLMClient, TokenCounter]:
    from reviewtui.llm import LLMClient, resolve_llm, token_counter

    config = resolve_llm(ws.loaded.settings.llm)
    return LLMClient(config), token_counter(config.model)


def tool_line(run: ToolRun, err: TextIO) -> None:
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
    client, counter = client_for(ws)
    units = selected(ws.plan, args.unit) if args.unit else None
    reviewer = Reviewer(ws, client, counter, max_tool_rounds=args.max_tool_rounds)

    def progress(text: str) -> None:
        err.write(f"review: {text}\n")
        err.flush()

    result = reviewer.review(units, prompt=args.prompt or DEFAULT_PROMPT, on_progress=progress,
                             on_tool=lambda run: tool_line(run, err),
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
