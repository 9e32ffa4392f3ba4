"""Keeping every request of a tool loop inside the model's context window.

What a request costs is what it sends: its messages (contents, names, the assistant messages'
``tool_calls`` and their arguments, per-message overheads: ``TokenCounter.count_messages``), the
tool schemas offered with it (``TokenCounter.count_tools``), and the reply it may get
(``max_output_tokens``, sent as ``max_tokens``). When the tool results of the answer under way
push a request past the window, they shrink, oldest first: to their compressed head/tail, then,
if that is not enough, to one line naming the reference id (``get_tool_result`` reads the full
result back either way). A repair request (an answer that was not usable JSON, asked again
without tools) is fitted the same way, and the answer it repairs is cut last.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reviewtui.agent.memory import compress
from reviewtui.llm import LLMConfig, TokenCounter
from reviewtui.llm.tokens import REPLY_PRIMING

__all__ = ["ResultSlot", "cut_answer", "fit_results", "left_out", "prompt_limit",
           "request_tokens"]

ResultSlot = tuple[int, str, str]  # (index in the messages, ref id, the full result)
ANSWER_CUT = "\n[… the rest of this answer was left out to fit the context window]"


def prompt_limit(config: LLMConfig) -> int:
    """Tokens a request's messages and tool schemas may take: the window less the reply."""
    return config.context_window - config.max_output_tokens


def request_tokens(counter: TokenCounter, messages: Sequence[Mapping[str, Any]],
                   tools: Sequence[Mapping[str, Any]] | None) -> int:
    """What a request sends, in the model's tokens: messages (with tool calls) and tools."""
    return counter.count_messages(messages) + counter.count_tools(tools)


def left_out(ref_id: str) -> str:
    """A tool result reduced to its reference: what is left when even its head/tail is too
    much for the window."""
    return (f"[tool result left out to fit the context window — full result: "
            f'get_tool_result("{ref_id}")]')


def _message_tokens(counter: TokenCounter, message: Mapping[str, Any]) -> int:
    return counter.count_messages([message]) - REPLY_PRIMING


def fit_results(messages: list[dict[str, Any]], results: Sequence[ResultSlot],
                counter: TokenCounter, limit: int,
                tools: Sequence[Mapping[str, Any]] | None = None) -> int:
    """Shrink the tool results at ``results`` (oldest first) in ``messages``, in place, until
    the request fits ``limit``; the request's tokens after that (over ``limit`` when nothing
    is left to shrink)."""
    total = request_tokens(counter, messages, tools)
    shorter: tuple[Callable[[str, str], str], ...] = (
        lambda ref_id, full: compress(full, ref_id), lambda ref_id, full: left_out(ref_id))
    for shorten in shorter:
        for index, ref_id, full in results:
            if total <= limit:
                return total
            message = messages[index]
            text = shorten(ref_id, full)
            if len(text) >= len(str(message.get("content") or "")):
                continue
            smaller = {**message, "content": text}
            total += _message_tokens(counter, smaller) - _message_tokens(counter, message)
            messages[index] = smaller
    return total


def cut_answer(messages: list[dict[str, Any]], index: int, counter: TokenCounter,
               over: int) -> None:
    """Cut the text of the answer at ``index`` by ``over`` tokens (at a line boundary, marked):
    the last resort of a repair request."""
    text = str(messages[index].get("content") or "")
    keep = counter.count(text) - over - counter.count(ANSWER_CUT)
    head = counter.truncate(text, keep) if keep > 0 else ""
    messages[index] = {**messages[index], "content": head + ANSWER_CUT}
