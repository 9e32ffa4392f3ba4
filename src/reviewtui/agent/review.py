"""``reviewtui review``: the review agent over the kept units' bundles (seed 001 §5).

Input: the user's prompt, the change's stated purpose (commit messages, description: see
``git.intent``), the review index as Markdown, the bundles (JSON+Markdown). The agent
may call the read-only tools, then answers with JSON findings. The units reviewed are those the
review budget holds, by priority (``context.allocate``; more budgets with ``review_batches`` or
``all_batches``), and the result names the others. They are sent in batches whose bundles fit
the model's context; findings are merged, checked against the
change (a finding must sit on a changed line) and sorted by severity. A reply without usable
JSON is repaired once, like the planner's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reviewtui.agent.findings import ReviewResult, check_findings, findings_schema
from reviewtui.agent.loop import AgentLoop, AgentTurn, ToolRun
from reviewtui.agent.memory import ToolMemory
from reviewtui.agent.window import request_tokens
from reviewtui.agent.workspace import Workspace
from reviewtui.context import render_bundle_markdown
from reviewtui.errors import ReviewError
from reviewtui.llm import LLMClient, TokenCounter
from reviewtui.models import BundleSet, ContextBundle
from reviewtui.plan.extract import PlanParseError, extract_object

DEFAULT_PROMPT = "Review this change for correctness, security and maintainability."

SYSTEM_PROMPT = """\
You are a meticulous senior code reviewer. You review one change of a repository, given as an \
index of review units and, per unit, a context bundle: the diff with line numbers and the \
surrounding code the planner chose. You can call read-only tools to read more of the project \
(read_file_hunk, search_in_project, list_project_files, get_dependencies, get_scanner_issues, \
get_unit, get_bundle, get_tool_result); use them when the bundle is not enough to be sure.

Report only real problems introduced or exposed by the change: bugs, security issues, broken \
contracts with callers, missing error handling, data loss, races, and clear maintainability \
problems. No praise, no style nits unless they hide a bug. Every finding must point at lines of \
the change (the new line numbers of the diff; for removed code the old ones).

When the change's stated purpose is given (commit messages, description, linked issues), check \
the implementation against it: parts it promises that are missing or incomplete, parts nobody \
asked for (unrelated edits riding along), and tests that do not test the stated fix. Report \
those with "category": "intent_mismatch", on the lines concerned (for something missing, the \
changed lines where it should have been, with their unit_id).

Severity: P0 breaks production or security now; P1 a real bug or a serious risk; P2 a problem \
worth fixing; P3 a minor issue. Confidence: 0.0-1.0, how sure you are it is a real problem.

Finish with one JSON object and nothing else:
{"verdict": "approve" | "comment" | "request_changes", "summary": "two or three sentences", \
"findings": [{"title": "...", "body": "what is wrong and why", "severity": "P1", \
"confidence": 0.8, "file_path": "src/a.py", "start_line": 10, "end_line": 12, \
"unit_id": "u_...", "category": "bug", "suggestion": "how to fix (optional)", \
"fix": {"start_line": 10, "end_line": 11, "replacement": "exact new text of those lines"}}]}
category is one of: bug, security, intent_mismatch, maintainability, performance, test.
"fix" is optional: only when you are sure of the exact code. start_line and end_line are lines \
of the file after the change (as numbered in the diff's new side); replacement is the complete \
new text of those lines, with their indentation (an empty string deletes them). You cannot \
write files: the person previews and applies a fix."""

REPAIR = ("Your answer could not be used: {problem}. Answer again with only the JSON object "
          "{{\"verdict\", \"summary\", \"findings\"}} described in the instructions.")
_RESERVE = 1_500  # tokens the tool rounds may add (calls, shrunk results) to the first request
_MANY = 999  # "part 999 of 999": the longest part label a request is measured with


def batch_bundles(bundles: Sequence[ContextBundle], cost: Callable[[ContextBundle, str], int],
                  budget: int) -> list[list[tuple[ContextBundle, str]]]:
    """Consecutive groups of (bundle, rendered text) whose costs (``cost(bundle, text)``: the
    text and what else the bundle brings to the request) fit ``budget`` tokens."""
    batches: list[list[tuple[ContextBundle, str]]] = []
    current: list[tuple[ContextBundle, str]] = []
    used = 0
    for bundle in bundles:
        text = render_bundle_markdown(bundle)
        size = cost(bundle, text)
        if current and used + size > budget:
            batches.append(current)
            current, used = [], 0
        current.append((bundle, text))
        used += size
    if current:
        batches.append(current)
    return batches


@dataclass(frozen=True)
class PreparedReview:
    """A review's requests before they are sent (what an estimate counts)."""

    wanted: list[str]  # the units asked for
    allocated: BundleSet  # their bundles within the review budget, and the rest deferred
    messages: list[list[dict[str, Any]]]  # the first request of each batch
    sizes: list[int]  # units per batch


class Reviewer:
    def __init__(self, workspace: Workspace, client: LLMClient, counter: TokenCounter, *,
                 max_tool_rounds: int = 8) -> None:
        self.workspace = workspace
        self.client = client
        self.counter = counter
        self.memory = ToolMemory()
        self.loop = AgentLoop(client, workspace.toolbox(self.memory), self.memory,
                              max_tool_rounds=max_tool_rounds, counter=counter)

    def _messages(self, prompt: str, batch: list[tuple[ContextBundle, str]], number: int,
                  total: int, purpose: str = "") -> list[dict[str, Any]]:
        ids = [bundle.unit_id for bundle, _ in batch]
        part = f" (part {number} of {total}: review only these units)" if total > 1 else ""
        intent = f"{purpose}\n\n" if purpose else ""
        user = (f"{prompt}\n\n{intent}## Review index{part}\n\n"
                f"{self.workspace.index_markdown(ids)}"
                "\n\n## Context bundles\n\n" + "\n\n".join(text for _, text in batch))
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]

    def _batch(self, messages: list[dict[str, Any]], on_tool: Callable[[ToolRun], None] | None,
               cancel: threading.Event | None,
               ) -> tuple[dict[str, Any], AgentTurn, AgentTurn | None]:
        turn = self.loop.run(messages, on_tool=on_tool, cancel=cancel)
        try:
            value, _ = extract_object(turn.answer, "findings")
            return value, turn, None
        except PlanParseError as problem:
            retry = self.loop.repair_request(messages, turn, REPAIR.format(problem=problem))
            reply = self.client.chat(retry, json_schema=findings_schema(),
                                     schema_name="review", cancel=cancel)
            repair = AgentTurn(answer=reply.content)
            if reply.usage is not None:
                repair.prompt_tokens = reply.usage.prompt_tokens
                repair.completion_tokens = reply.usage.completion_tokens
            value, _ = extract_object(reply.content, "findings")
            return value, turn, repair

    def prepare(self, unit_ids: Sequence[str] | None = None, *, prompt: str = DEFAULT_PROMPT,
                all_batches: bool = False) -> PreparedReview:
        """The requests ``review`` would start with, built and not sent: the units (default:
        the kept ones) whose bundles fit the review budget, by priority -- ``[context]
        review_batches`` budgets of them, or all with ``all_batches`` -- in batches that fit
        the model's context."""
        ws = self.workspace
        wanted = list(unit_ids) if unit_ids is not None else [
            i.unit_id for i in ws.plan.plan if not i.skip_review]
        allocated = ws.allocate(
            wanted, batches=None if all_batches else ws.loaded.settings.context.review_batches)
        config = self.client.config
        counter = self.counter
        purpose = ws.intent_markdown(counter.count, config.context_window)
        tools = self.loop.schemas()
        # Each batch's first request must fit the window: messages (the prompt, the purpose,
        # the index rows and the bundles of the batch), the tool schemas and the reply.
        fixed = request_tokens(counter, self._messages(prompt, [], _MANY, _MANY, purpose), tools)
        budget = max(1_000, self.loop.budget - fixed - _RESERVE)

        def cost(bundle: ContextBundle, text: str) -> int:
            return counter.count(text) + counter.count(ws.index_row(bundle.unit_id)) + 2

        pending = batch_bundles(allocated.bundles, cost, budget)
        batches: list[list[tuple[ContextBundle, str]]] = []
        while pending:  # counts need not add up exactly: a batch over the window is split
            batch = pending.pop(0)
            request = self._messages(prompt, batch, _MANY, _MANY, purpose)
            if len(batch) > 1 and request_tokens(counter, request, tools) > self.loop.budget:
                half = len(batch) // 2
                pending[:0] = [batch[:half], batch[half:]]
                continue
            batches.append(batch)
        messages = [self._messages(prompt, batch, number, len(batches), purpose)
                    for number, batch in enumerate(batches, start=1)]
        return PreparedReview(wanted, allocated, messages,
                              [len(batch) for batch in batches])

    def first_request_tokens(self, prepared: PreparedReview) -> int:
        """Tokens of the first request of each batch (messages and tool definitions): what a
        review costs at least, before any tool round."""
        tools = self.loop.schemas()
        return sum(request_tokens(self.counter, m, tools) for m in prepared.messages)

    def review(self, unit_ids: Sequence[str] | None = None, *, prompt: str = DEFAULT_PROMPT,
               on_progress: Callable[[str], None] | None = None,
               on_tool: Callable[[ToolRun], None] | None = None,
               cancel: threading.Event | None = None,
               all_batches: bool = False,
               prepared: PreparedReview | None = None) -> ReviewResult:
        """Review the units (default: the kept ones) whose bundles fit the review budget, by
        priority -- ``[context] review_batches`` budgets of them, or all with
        ``all_batches`` -- and list the rest in ``not_reviewed``; ``prepared`` (from
        ``prepare``) saves building the bundles again."""
        ws = self.workspace
        if prepared is None:
            prepared = self.prepare(unit_ids, prompt=prompt, all_batches=all_batches)
        wanted = prepared.wanted
        allocated = prepared.allocated
        bundles = allocated.bundles
        config = self.client.config
        raw: list[Any] = []
        verdicts: list[str] = []
        summaries: list[str] = []
        dropped: list[str] = []
        tokens = [0, 0]
        total = len(prepared.messages)
        for number, (messages, size) in enumerate(zip(prepared.messages, prepared.sizes,
                                                      strict=True), start=1):
            if on_progress is not None:
                on_progress(f"reviewing part {number} of {total} ({size} units)")
            try:
                value, turn, repair = self._batch(messages, on_tool, cancel)
            except PlanParseError as problem:
                dropped.append(f"part {number}: no usable answer after one repair ({problem})")
                continue
            if turn.incomplete and on_progress is not None:
                why = ("stopped at the model's output token limit" if turn.truncated
                       else "was cut off by the server")
                on_progress(f"part {number}: the answer {why}; its findings may be incomplete")
            for t in (turn, repair):
                if t is not None:
                    tokens[0] += t.prompt_tokens
                    tokens[1] += t.completion_tokens
            findings = value.get("findings")
            raw += findings if isinstance(findings, list) else []
            verdicts.append(str(value.get("verdict", "comment")))
            summaries.append(str(value.get("summary", "")).strip())
        if total and len(dropped) == total:
            raise ReviewError("the model gave no usable review: " + dropped[0])
        findings, left_out = check_findings(
            raw, [u for u in ws.loaded.units if u.unit_id in wanted], ws.line_text,
            ws.file_bytes, old_text=lambda path, n: ws.side_line(path, "old", n))
        return ReviewResult(
            verdict=_overall(verdicts, findings, len(left_out)),
            summary=" ".join(s for s in summaries if s),
            findings=findings, model=config.model, units_reviewed=len(bundles),
            dropped=dropped + left_out, not_reviewed=allocated.allocation.deferred,
            prompt_tokens=tokens[0], completion_tokens=tokens[1])


_VERDICTS = {
    "approve": "approve", "approved": "approve", "lgtm": "approve", "accept": "approve",
    "comment": "comment", "commented": "comment",
    "request_changes": "request_changes", "changes_requested": "request_changes",
    "request_change": "request_changes", "reject": "request_changes",
    "rejected": "request_changes", "block": "request_changes", "needs_changes": "request_changes",
    "needs_work": "request_changes",
}


def verdict_of(said: object) -> str | None:
    """The verdict a model's answer names (``REQUEST_CHANGES``, ``request-changes``,
    ``Approved``...), or None for one it does not."""
    key = "_".join(str(said).strip().lower().replace("-", " ").split())
    return _VERDICTS.get(key)


def _overall(verdicts: Sequence[str], findings: Sequence[Any], dropped: int = 0) -> Any:
    """One verdict for the parts: changes requested if any part asks for them (or a finding
    is P0/P1); approve only when every part approves in words the prompt allows and nothing
    it found was dropped -- an answer that is not understood never approves a change."""
    named = [verdict_of(v) for v in verdicts]
    if any(f.severity in ("P0", "P1") for f in findings) or "request_changes" in named:
        return "request_changes"
    if findings or dropped or not named or any(v != "approve" for v in named):
        return "comment"
    return "approve"


def run_review(workspace: Workspace, client: LLMClient, counter: TokenCounter,
               unit_ids: Sequence[str] | None = None, *, prompt: str = DEFAULT_PROMPT,
               max_tool_rounds: int = 8,
               on_progress: Callable[[str], None] | None = None) -> ReviewResult:
    """Review the change; LLM errors (bad key, no server...) propagate to the caller."""
    reviewer = Reviewer(workspace, client, counter, max_tool_rounds=max_tool_rounds)
    return reviewer.review(unit_ids, prompt=prompt, on_progress=on_progress)
