"""The tool-calling loop shared by ``reviewtui review``, ``reviewtui ask`` and the TUI chat.

The model answers or asks for tools; the tools run (in parallel threads, each with its own
timeout inside the ``ToolBox``), their full output goes to the tool memory, the model sees the
(capped) result for this answer, the stored message stream keeps a compressed head/tail with the
reference id, and the model is asked again. Every request is kept inside the model's context
window (``window``): messages, tool calls, tool schemas and the reply it may get. After
``max_tool_rounds`` tool rounds -- or sooner, when even shrunk tool results leave no room for
another round -- the model must answer with what it has (tools withdrawn), so a model that keeps
calling tools cannot loop forever.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from reviewtui.agent.memory import ToolMemory, compress
from reviewtui.agent.tools import ToolBox, ToolOutcome
from reviewtui.agent.window import cut_answer, fit_results, prompt_limit, request_tokens
from reviewtui.llm import ChatResult, LLMClient, TokenCounter, ToolCall

CAP_MESSAGE = ("You have used all tool calls for this answer. Answer now with what you know; "
               "say what you could not check.")
FULL_MESSAGE = ("The context window is full: no more tool calls for this answer. Answer now "
                "with what you know; say what you could not check.")


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
    # the pieces the reply in flight has streamed so far (``streaming``)
    pieces: list[str] = field(default_factory=list)

    @property
    def incomplete(self) -> bool:
        return self.cut_off or self.truncated

    @property
    def streaming(self) -> str:
        """What the reply in flight has streamed so far: the answer, should it be stopped."""
        return "".join(self.pieces)

    @property
    def files(self) -> list[str]:
        return list(dict.fromkeys(f for run in self.tool_runs for f in run.outcome.files))


def _distinct_ids(calls: Sequence[ToolCall]) -> list[ToolCall]:
    """The calls, each id once: a server that gives parallel calls one id (``call_0`` twice)
    left their results to be paired by that id, and a later round's history gave both calls
    the first result. A repeated id gets a suffix (``call_0~2``)."""
    seen: set[str] = set()
    out: list[ToolCall] = []
    for call in calls:
        unique, number = call.id, 1
        while unique in seen:
            number += 1
            unique = f"{call.id}~{number}"
        seen.add(unique)
        out.append(call if unique == call.id else replace(call, id=unique))
    return out


class AgentLoop:
    def __init__(self, client: LLMClient, toolbox: ToolBox | None, memory: ToolMemory, *,
                 max_tool_rounds: int = 8, parallel_tools: int = 4,
                 counter: TokenCounter | None = None) -> None:
        self.client = client
        self.toolbox = toolbox
        self.memory = memory
        self.max_tool_rounds = max_tool_rounds
        self.parallel_tools = parallel_tools
        self.counter = counter
        self.budget = prompt_limit(client.config)  # messages + tool schemas, less the reply

    def schemas(self) -> list[dict[str, Any]] | None:
        """The tool schemas every tool round sends."""
        return self.toolbox.schemas() if self.toolbox is not None else None

    def _fit(self, history: list[dict[str, Any]], results: list[tuple[int, ToolRun]],
             tools: Sequence[Mapping[str, Any]] | None) -> int:
        """Keep this request inside the context window -- its messages (tool calls
        included), the tool schemas it offers and the reply it may get: when the history
        grows past that, the oldest tool results of this answer shrink to their compressed
        head/tail, then to their reference id (the full text stays readable through
        get_tool_result). The request's tokens (0 when nothing counts them)."""
        if self.counter is None:
            return 0
        slots = [(index, run.ref_id, run.outcome.full_text) for index, run in results]
        return fit_results(history, slots, self.counter, self.budget, tools)

    def repair_request(self, messages: Sequence[Mapping[str, Any]], turn: AgentTurn,
                       repair: str) -> list[dict[str, Any]]:
        """``messages``, the turn's messages and the ``repair`` question, fitted to the
        window like a tool round (no tools are offered): the turn's tool results shrink
        first, then the answer being repaired is cut."""
        retry = [*(dict(m) for m in messages), *(dict(m) for m in turn.messages),
                 {"role": "user", "content": repair}]
        if self.counter is None:
            return retry
        start = len(messages)
        tool_indexes = [start + i for i, m in enumerate(turn.messages) if m.get("role") == "tool"]
        slots = [(index, run.ref_id, run.outcome.full_text)
                 for index, run in zip(tool_indexes, turn.tool_runs, strict=False)]
        total = fit_results(retry, slots, self.counter, self.budget)
        if total > self.budget and turn.messages and turn.messages[-1].get("content"):
            cut_answer(retry, len(retry) - 2, self.counter, total - self.budget)
        return retry

    def _account(self, turn: AgentTurn, reply: ChatResult, history: list[dict[str, Any]],
                 tools: Sequence[Mapping[str, Any]] | None) -> None:
        if reply.usage is not None:
            turn.prompt_tokens += reply.usage.prompt_tokens
            turn.completion_tokens += reply.usage.completion_tokens
            turn.cached_tokens += reply.usage.cached_tokens
        elif self.counter is not None:  # the server said nothing: counted here, and said so
            counter = self.counter
            turn.prompt_tokens += request_tokens(counter, history, tools)
            turn.completion_tokens += counter.count(reply.content) + sum(
                counter.count(call.name) + counter.count(call.arguments)
                for call in reply.tool_calls)
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
            cancel: threading.Event | None = None,
            turn: AgentTurn | None = None) -> AgentTurn:
        """Answer the conversation ``messages``; raises ``LLMError`` (the caller reports it).

        ``turn``, when given, is filled as the answer goes (and returned): a caller whose run
        is stopped (a cancel, Ctrl-C) still has the tool rounds done and, in ``streaming``,
        the text of the reply in flight."""
        turn = turn if turn is not None else AgentTurn()
        heard = on_delta

        if on_delta is not None:
            def heard(text: str) -> None:
                turn.pieces.append(text)
                on_delta(text)

        history = [dict(m) for m in messages]
        tools = self.schemas()
        results: list[tuple[int, ToolRun]] = []  # this answer's tool results in history
        while True:
            offer = (tools if tools and not turn.capped
                     and turn.tool_rounds < self.max_tool_rounds else None)
            if self._fit(history, results, offer) > self.budget and offer is not None and results:
                # Even shrunk, this answer's tool results leave no room for another round:
                # the model answers with what it has, without the tool schemas.
                self._cap(turn, history, FULL_MESSAGE)
                offer = None
                self._fit(history, results, offer)
            turn.pieces.clear()
            reply = self.client.chat(history, tools=offer, on_delta=heard, cancel=cancel)
            turn.pieces.clear()
            self._account(turn, reply, history, offer)
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
            calls = _distinct_ids(reply.tool_calls)
            assistant = {"role": "assistant", "content": reply.content or None,
                         "tool_calls": [{"id": c.id, "type": "function",
                                         "function": {"name": c.name, "arguments": c.arguments}}
                                        for c in calls]}
            history.append(assistant)
            turn.messages.append(assistant)
            for run in self._run_tools(calls, round_index, on_tool):
                turn.tool_runs.append(run)
                message = {"role": "tool", "tool_call_id": run.call.id, "name": run.call.name}
                # This answer sees the result (capped by the tool box); the stored history
                # keeps a compressed head/tail with the reference id (seed 002 tool memory).
                results.append((len(history), run))
                history.append({**message, "content": run.outcome.content})
                turn.messages.append({**message,
                                      "content": compress(run.outcome.full_text, run.ref_id)})
            if turn.tool_rounds >= self.max_tool_rounds:
                self._cap(turn, history, CAP_MESSAGE)

    @staticmethod
    def _cap(turn: AgentTurn, history: list[dict[str, Any]], text: str) -> None:
        """No more tools for this answer: say so to the model."""
        turn.capped = True
        cap = {"role": "user", "content": text}
        history.append(cap)
        turn.messages.append(cap)
