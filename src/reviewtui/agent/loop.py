"""The tool-calling loop shared by ``reviewtui review``, ``reviewtui ask`` and the TUI chat.

The model answers or asks for tools; the tools run (in parallel threads, each with its own
timeout inside the ``ToolBox``), their full output goes to the tool memory, the model sees the
(capped) result for this answer, the stored message stream keeps a compressed head/tail with the
reference id, and the model is asked again. After
``max_tool_rounds`` tool rounds the model must answer with what it has (tools withdrawn), so a
model that keeps calling tools cannot loop forever.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from reviewtui.agent.memory import ToolMemory, compress
from reviewtui.agent.tools import ToolBox, ToolOutcome
from reviewtui.llm import ChatResult, LLMClient, ToolCall

CAP_MESSAGE = ("You have used all tool calls for this answer. Answer now with what you know; "
               "say what you could not check.")


@dataclass(frozen=True)
class ToolRun:
    call: ToolCall
    outcome: ToolOutcome
    ref_id: str


@dataclass
class AgentTurn:
    """What one answer took: the answer, the messages it added, the tools it ran, tokens."""

    answer: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)
    tool_runs: list[ToolRun] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    tool_rounds: int = 0
    capped: bool = False
    cut_off: bool = False  # the server closed the stream mid-answer: ``answer`` is partial
    truncated: bool = False  # the model stopped at its output token limit: ``answer`` is partial
    filtered: bool = False  # the provider's content filter stopped it (``cut_off`` too)
    estimated: bool = False  # the server sent no usage: the tokens were counted here

    @property
    def incomplete(self) -> bool:
        return self.cut_off or self.truncated

    @property
    def files(self) -> list[str]:
        return list(dict.fromkeys(f for run in self.tool_runs for f in run.outcome.files))


class AgentLoop:
    def __init__(self, client: LLMClient, toolbox: ToolBox | None, memory: ToolMemory, *,
                 max_tool_rounds: int = 8, parallel_tools: int = 4,
                 count: Callable[[str], int] | None = None) -> None:
        self.client = client
        self.toolbox = toolbox
        self.memory = memory
        self.max_tool_rounds = max_tool_rounds
        self.parallel_tools = parallel_tools
        self.count = count
        config = client.config
        self.budget = config.context_window - config.max_output_tokens

    def _fit(self, history: list[dict[str, Any]], results: list[tuple[int, ToolRun]]) -> None:
        """Keep this answer's tool loop inside the context window: when the history grows
        past the budget, the oldest tool results of this answer shrink to their compressed
        head/tail (the full text stays readable through get_tool_result)."""
        if self.count is None:
            return
        count = self.count
        total = sum(count(str(m.get("content") or "")) + 4 for m in history)
        for index, run in results:
            if total <= self.budget:
                return
            before = count(str(history[index].get("content") or ""))
            short = compress(run.outcome.full_text, run.ref_id)
            if len(short) < len(str(history[index].get("content") or "")):
                history[index] = {**history[index], "content": short}
                total -= before - count(short)

    def _account(self, turn: AgentTurn, reply: ChatResult,
                 history: list[dict[str, Any]]) -> None:
        if reply.usage is not None:
            turn.prompt_tokens += reply.usage.prompt_tokens
            turn.completion_tokens += reply.usage.completion_tokens
            turn.cached_tokens += reply.usage.cached_tokens
        elif self.count is not None:  # the server said nothing: counted here, and said so
            count = self.count
            turn.prompt_tokens += sum(count(str(m.get("content") or "")) + 4 for m in history)
            turn.completion_tokens += count(reply.content)
            turn.estimated = True

    def _run_tools(self, calls: Sequence[ToolCall], round_index: int,
                   on_tool: Callable[[ToolRun], None] | None) -> list[ToolRun]:
        assert self.toolbox is not None
        toolbox = self.toolbox
        with ThreadPoolExecutor(max_workers=max(1, min(self.parallel_tools, len(calls)))) as pool:
            outcomes = list(pool.map(lambda c: toolbox.run(c.name, c.arguments), calls))
        runs: list[ToolRun] = []
        for call, outcome in zip(calls, outcomes, strict=True):
            record = self.memory.store(round_index, call.name, call.arguments,
                                       outcome.full_text)
            run = ToolRun(call, outcome, record.ref_id)
            runs.append(run)
            if on_tool is not None:
                on_tool(run)
        return runs

    def run(self, messages: Sequence[Mapping[str, Any]], *, round_index: int = 0,
            on_delta: Callable[[str], None] | None = None,
            on_tool: Callable[[ToolRun], None] | None = None,
            cancel: threading.Event | None = None) -> AgentTurn:
        """Answer the conversation ``messages``; raises ``LLMError`` (the caller reports it)."""
        turn = AgentTurn()
        history = [dict(m) for m in messages]
        tools = self.toolbox.schemas() if self.toolbox is not None else None
        results: list[tuple[int, ToolRun]] = []  # this answer's tool results in history
        while True:
            self._fit(history, results)
            offer = tools if tools and turn.tool_rounds < self.max_tool_rounds else None
            reply = self.client.chat(history, tools=offer, on_delta=on_delta, cancel=cancel)
            self._account(turn, reply, history)
            if reply.cut_off or reply.truncated or not reply.tool_calls or offer is None:
                # The tool calls of a reply cut off, or stopped at the token limit, may be
                # half-written: never run them.
                turn.answer = reply.content
                turn.cut_off = reply.cut_off
                turn.truncated = reply.truncated
                turn.filtered = reply.filtered
                final = {"role": "assistant", "content": reply.content}
                turn.messages.append(final)
                return turn
            turn.tool_rounds += 1
            assistant = {"role": "assistant", "content": reply.content or None,
                         "tool_calls": [{"id": c.id, "type": "function",
                                         "function": {"name": c.name, "arguments": c.arguments}}
                                        for c in reply.tool_calls]}
            history.append(assistant)
            turn.messages.append(assistant)
            for run in self._run_tools(reply.tool_calls, round_index, on_tool):
                turn.tool_runs.append(run)
                message = {"role": "tool", "tool_call_id": run.call.id, "name": run.call.name}
                # This answer sees the result (capped by the tool box); the stored history
                # keeps a compressed head/tail with the reference id (seed 002 tool memory).
                results.append((len(history), run))
                history.append({**message, "content": run.outcome.content})
                turn.messages.append({**message,
                                      "content": compress(run.outcome.full_text, run.ref_id)})
            if turn.tool_rounds >= self.max_tool_rounds:
                turn.capped = True
                cap = {"role": "user", "content": CAP_MESSAGE}
                history.append(cap)
                turn.messages.append(cap)
