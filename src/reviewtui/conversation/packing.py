"""The one place a chat prompt is assembled: layers packed under a token budget (seed 002).

Storage keeps every message; *what is sent* is decided here, at send time ("在打包阶段统一裁剪，
而不是在消息写入阶段就丢掉信息"). The layers, in prompt order:

1. static — the system prompt and the static review context, joined into the first (system)
   message. Never pruned: if it alone exceeds the budget it is still sent whole and the overflow
   is reported (``PackedPrompt.overflow``) — cutting the diff the model is asked about would
   silently change the question; the caller builds a smaller static context instead.
2. summary — one line per older round ("Earlier in this conversation: …"), appended to that
   same system message: the stored summary, or the extractive one computed on the fly.
   Appended rather than sent as a second system or user message so the sequence stays
   system → user → assistant → … which strict chat templates (Mistral, some local servers)
   require; the system + static prefix stays byte-identical for provider prompt caching.
3. window — the most recent ``window`` rounds in full, as stored (tool results already
   compressed with their ref ids). An assistant message's ``tool_calls`` always travel with
   their tool results: the window holds whole rounds, and a round's stream is repaired on the
   way out (``replay``: calls without a result and results without a call are dropped, as the
   OpenAI API rejects both; an unfinished or empty answer says so).
4. inherited — the files text from earlier rounds, put before the question in the final user
   message.
5. current — the user's message; never dropped.

Over budget, in this order: the window shrinks from its oldest round (that round moves to the
summary layer), then the oldest summaries are dropped, then the inherited text is cut (at line
boundaries, with a marker). Summaries of rounds that were never in the window may take at most
``summary_share`` (25%) of what the static layer and the question leave; the rest of the older
rounds are not mentioned. Token counts use the caller's ``count`` with the same per-message
overheads as ``TokenCounter.count_messages``, so ``PackedPrompt.tokens`` equals that method's
count for the returned messages, and the layers' tokens add up to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reviewtui.conversation.replay import (
    CUT_OFF_MARKER,
    EMPTY_ANSWER_MARKER,
    FILTERED_MARKER,
    INTERRUPTED_MARKER,
    TAIL_MARKER,
    TRUNCATED_MARKER,
    round_messages,
    tail_round,
    tail_text,
)
from reviewtui.conversation.summary import extractive_summary, truncate_tokens
from reviewtui.llm.tokens import MESSAGE_OVERHEAD, REPLY_PRIMING, TOOL_CALL_OVERHEAD
from reviewtui.sessions.records import MessageRecord, RoundRecord

# (the round messages are ``replay``'s: named here too, where the packer's callers look)
__all__ = ["CUT_OFF_MARKER", "EMPTY_ANSWER_MARKER", "FILTERED_MARKER", "INTERRUPTED_MARKER",
           "SHORTENED_MARKER", "SUMMARY_HEADER", "TAIL_MARKER", "TRUNCATED_MARKER",
           "LayerAccount", "PackedPrompt",
           "count_messages", "message_tokens", "pack", "round_messages", "tail_round",
           "tail_text"]

SUMMARY_HEADER = "Earlier in this conversation:"
INHERITED_SEPARATOR = "\n\n---\n\n"
SHORTENED_MARKER = "[… context from earlier rounds shortened to fit the token budget]"

Count = Callable[[str], int]


# how a summary line says its round's answer is not whole (``RoundRecord.ending``)
_CUT = " (its answer was cut off before it was finished: the server stopped sending it)"
_STOPPED = {"interrupted": " (its answer was interrupted by the person)",
            "filtered": " (its answer was stopped before it was finished by the provider's "
                        "content filter)",
            "cut_off": _CUT,
            "truncated": " (its answer stopped at the model's output token limit, unfinished)"}


@dataclass(frozen=True)
class LayerAccount:
    name: str  # static | summary | window | inherited | current
    tokens: int
    items: int  # static: parts; summary: lines; window: rounds; inherited: lines; current: 1
    dropped: int  # summary/window: rounds left out or moved out; inherited: lines cut


@dataclass(frozen=True)
class PackedPrompt:
    messages: list[dict[str, Any]]
    tokens: int
    budget: int
    layers: tuple[LayerAccount, ...]
    summarized_rounds: tuple[int, ...]
    window_rounds: tuple[int, ...]

    @property
    def overflow(self) -> int:
        """Tokens over the budget: only when the static layer and the question alone exceed
        it (nothing else is left to drop)."""
        return max(0, self.tokens - self.budget)

    def layer(self, name: str) -> LayerAccount:
        return next(layer for layer in self.layers if layer.name == name)


def message_tokens(message: Mapping[str, Any], count: Count) -> int:
    """One message's tokens, as ``TokenCounter.count_messages`` counts them."""
    content = message.get("content")
    total = MESSAGE_OVERHEAD + (count(content) if isinstance(content, str) and content else 0)
    for key in ("name", "tool_call_id"):
        value = message.get(key)
        if isinstance(value, str):
            total += count(value)
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping):
            arguments = function.get("arguments")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments)
            total += TOOL_CALL_OVERHEAD + count(str(function.get("name") or "")) + count(arguments)
    return total


def count_messages(messages: Sequence[Mapping[str, Any]], count: Count) -> int:
    if not messages:
        return 0
    return REPLY_PRIMING + sum(message_tokens(message, count) for message in messages)


def _memoised(count: Count) -> Count:
    """``count`` remembering its answers for this call: the final exact count of the prompt
    then only encodes the text that is new (the joined first and last messages)."""
    known: dict[str, int] = {}

    def counted(text: str) -> int:
        tokens = known.get(text)
        if tokens is None:
            tokens = known[text] = count(text)
        return tokens

    return counted


class _Packer:
    """The state of one ``pack`` call: cached per-piece counts and the current cut."""

    def __init__(self, system: str, static_context: str, rounds: Sequence[RoundRecord],
                 messages_by_round: Mapping[int, Sequence[MessageRecord]], current: str,
                 inherited: str, count: Count) -> None:
        self.count = count
        self.rounds = sorted(rounds, key=lambda record: record.index)
        self.by_round = messages_by_round
        self.current = current
        self.inherited = inherited
        self.base = "\n\n".join(part for part in (system, static_context) if part)
        self.base_parts = sum(1 for part in (system, static_context) if part)
        self.base_cost = MESSAGE_OVERHEAD + count(self.base) if self.base else 0
        self._window: dict[int, tuple[list[dict[str, Any]], int]] = {}
        self._lines: dict[int, tuple[str, int]] = {}

    def window_round(self, position: int) -> tuple[list[dict[str, Any]], int]:
        if position not in self._window:
            record = self.rounds[position]
            messages = round_messages(record, self.by_round.get(record.index, ()))
            self._window[position] = (messages,
                                      sum(message_tokens(m, self.count) for m in messages))
        return self._window[position]

    def summary_line(self, position: int) -> tuple[str, int]:
        if position not in self._lines:
            record = self.rounds[position]
            text = record.summary or extractive_summary(record,
                                                        self.by_round.get(record.index, ()))
            stopped = _STOPPED[record.ending] if record.ending else ""
            line = f"- Round {record.index + 1}{stopped}: {' '.join(text.split())}"
            self._lines[position] = (line, self.count(line) + 1)
        return self._lines[position]

    def summary_cost(self, start: int, end: int) -> int:
        if start >= end:
            return 0
        overhead = 2 if self.base else MESSAGE_OVERHEAD  # the "\n\n" join, or a message
        return overhead + self.count(SUMMARY_HEADER) + sum(self.summary_line(p)[1]
                                                    for p in range(start, end))

    def first_message(self, start: int, end: int) -> str:
        lines = [self.summary_line(p)[0] for p in range(start, end)]
        summary = "\n".join([SUMMARY_HEADER, *lines]) if lines else ""
        return "\n\n".join(part for part in (self.base, summary) if part)

    def last_message(self, inherited: str) -> dict[str, Any]:
        content = inherited + INHERITED_SEPARATOR + self.current if inherited else self.current
        return {"role": "user", "content": content}


def pack(*, system: str, static_context: str, rounds: Sequence[RoundRecord],
         messages_by_round: Mapping[int, Sequence[MessageRecord]], current: str,
         inherited_context: str = "", budget: int, count: Callable[[str], int],
         window: int = 6, summary_share: float = 0.25) -> PackedPrompt:
    """Assemble the messages for one request from ``rounds`` (the completed earlier rounds,
    any order) under ``budget`` tokens. Reads its inputs, never changes them."""
    count = _memoised(count)
    packer = _Packer(system, static_context, rounds, messages_by_round, current,
                     inherited_context, count)
    total_rounds = len(packer.rounds)
    bare_cost = message_tokens(packer.last_message(""), count)
    fixed = REPLY_PRIMING + packer.base_cost + bare_cost
    separator_cost = count(INHERITED_SEPARATOR)

    window_start = max(0, total_rounds - max(0, window))
    initial_window = total_rounds - window_start
    summary_cap = summary_share * max(0, budget - fixed)
    summary_from = window_start
    while summary_from > 0 and packer.summary_cost(summary_from - 1, window_start) <= summary_cap:
        summary_from -= 1
    inherited = inherited_context

    def inherited_cost() -> int:
        return message_tokens(packer.last_message(inherited), count) - bare_cost if inherited else 0

    def estimate() -> int:
        window_cost = sum(packer.window_round(p)[1] for p in range(window_start, total_rounds))
        return fixed + packer.summary_cost(summary_from, window_start) + window_cost + (
            inherited_cost())

    def cut(over: int) -> bool:
        """One more cut, in the documented order; False when nothing is left to cut."""
        nonlocal window_start, summary_from, inherited
        if window_start < total_rounds:
            window_start += 1
        elif summary_from < window_start:
            summary_from += 1
        elif inherited:
            room = inherited_cost() - over - separator_cost
            shorter = (truncate_tokens(inherited_context, room, count, SHORTENED_MARKER)
                       if room > 0 else "")
            inherited = shorter if shorter != inherited else ""
        else:
            return False
        return True

    while (over := estimate() - budget) > 0 and cut(over):  # cheap: per-piece counts
        pass
    while True:  # exact: joining pieces may not add up to the sum of their counts
        messages = _assemble(packer, summary_from, window_start, inherited)
        tokens = count_messages(messages, count)
        if tokens <= budget or not cut(tokens - budget):
            break

    summarized = tuple(packer.rounds[p].index for p in range(summary_from, window_start))
    in_window = tuple(packer.rounds[p].index for p in range(window_start, total_rounds))
    layers = _account(packer, messages, summary_from, window_start, inherited, initial_window)
    return PackedPrompt(messages=messages, tokens=tokens, budget=budget, layers=layers,
                        summarized_rounds=summarized, window_rounds=in_window)


def _assemble(packer: _Packer, summary_from: int, window_start: int,
              inherited: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    first = packer.first_message(summary_from, window_start)
    if first:
        messages.append({"role": "system", "content": first})
    for position in range(window_start, len(packer.rounds)):
        messages.extend(dict(m) for m in packer.window_round(position)[0])
    messages.append(packer.last_message(inherited))
    return messages


def _account(packer: _Packer, messages: list[dict[str, Any]], summary_from: int,
             window_start: int, inherited: str, initial_window: int) -> tuple[LayerAccount, ...]:
    """Per-layer tokens that add up to the prompt's exact count."""
    count = packer.count
    has_first = bool(packer.base) or summary_from < window_start
    first_cost = message_tokens(messages[0], count) if has_first else 0
    bare = message_tokens(packer.last_message(""), count)
    window_cost = sum(message_tokens(m, count) for m in messages[int(has_first):-1])
    all_lines = len(packer.inherited.splitlines())
    kept_lines = len(inherited.splitlines())
    if inherited and inherited != packer.inherited:
        kept_lines -= 1  # the marker
    in_window = len(packer.rounds) - window_start
    return (
        LayerAccount("static", REPLY_PRIMING + packer.base_cost, packer.base_parts, 0),
        LayerAccount("summary", first_cost - packer.base_cost, window_start - summary_from,
                     summary_from),
        LayerAccount("window", window_cost, in_window, initial_window - in_window),
        LayerAccount("inherited", message_tokens(messages[-1], count) - bare, kept_lines,
                     all_lines - kept_lines),
        LayerAccount("current", bare, 1, 0),
    )
