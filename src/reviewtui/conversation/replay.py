"""Earlier rounds replayed as the chat messages of a prompt.

Storage keeps a round as it happened: the question, the assistant's tool calls and their
results, the answer. What the model is sent again is a repaired copy (``round_messages``):
every tool call paired with its result (the OpenAI API refuses a call without a result and a
result without a call), and an answer that is not whole, or has no text, says so in brackets,
so that the model neither takes a half answer for all it had to say nor meets an empty
assistant message (some OpenAI-compatible servers refuse one). A continuation of an answer too
long for the prompt whole is sent its end only (``tail_round``). ``packing`` puts these rounds
in the recent window, under the token budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reviewtui.llm.tokens import MESSAGE_OVERHEAD
from reviewtui.sessions.records import MessageRecord, RoundRecord

__all__ = ["CUT_OFF_MARKER", "EMPTY_ANSWER_MARKER", "FILTERED_MARKER", "INTERRUPTED_MARKER",
           "TAIL_MARKER", "TRUNCATED_MARKER", "round_messages", "tail_round", "tail_text",
           "unfinished_marker"]

INTERRUPTED_MARKER = "[interrupted: the person stopped this answer here, before it was finished]"
TRUNCATED_MARKER = ("[cut short: this answer stopped here at the model's output token limit, "
                    "before it was finished]")
# the server stopped sending the answer: the stream closed with no finish reason (a dropped
# connection, ``RoundRecord.cut_off``)
CUT_OFF_MARKER = ("[cut off: the server stopped sending this answer here, before it was "
                  "finished]")
# the provider's content filter ended it (``RoundRecord.filtered``, cut off too): said as such,
# so that the model does not go on as from a dropped connection into the same filter
FILTERED_MARKER = ("[stopped: the provider's content filter ended this answer here, before it "
                   "was finished]")
# what the prompt carries for a round whose answer had no text (the model sent none): an
# assistant message with empty content is refused by some OpenAI-compatible servers, and none
# at all leaves two user messages in a row, which strict chat templates refuse
EMPTY_ANSWER_MARKER = "[no answer: the reply to this question had no text]"
TAIL_MARKER = "[… the start of this answer is left out to fit the context window; it goes on:]"

Count = Callable[[str], int]


def _wire_call(call: Mapping[str, Any]) -> dict[str, Any]:
    function = dict(call.get("function") or {})
    arguments = function.get("arguments", "")
    if not isinstance(arguments, str):
        function["arguments"] = json.dumps(arguments)
    return {"id": str(call.get("id", "")), "type": call.get("type") or "function",
            "function": function}


def _wire(message: MessageRecord) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.role == "tool":
        wire["tool_call_id"] = message.tool_call_id
        if message.name:
            wire["name"] = message.name
    return wire


def round_messages(round: RoundRecord,
                   messages: Sequence[MessageRecord]) -> list[dict[str, Any]]:
    """One round as OpenAI chat messages, with every tool call paired with its result; an
    answer the person stopped ends with ``INTERRUPTED_MARKER``, one the model stopped at its
    output token limit with ``TRUNCATED_MARKER`` and one the server cut off mid-stream with
    ``CUT_OFF_MARKER`` (``FILTERED_MARKER`` when the provider's content filter ended it), so the
    model does not take it for all it had to say, and one that had
    no text is ``EMPTY_ANSWER_MARKER``: never an assistant message with empty content, nor
    none (two user messages in a row).

    Without stored messages the round is rebuilt from its record (question and answer).
    """
    out = _round_messages(round, messages)
    last = out[-1] if out else None
    if last is None or last["role"] != "assistant" or last.get("tool_calls"):
        last = {"role": "assistant", "content": ""}  # no answer after the question or tools
        out.append(last)
    text = last.get("content") or ""
    marker = unfinished_marker(round)
    if marker:
        last["content"] = f"{text}\n\n{marker}" if text else marker
    elif not text:
        last["content"] = EMPTY_ANSWER_MARKER
    return out


_MARKERS = {"interrupted": INTERRUPTED_MARKER, "filtered": FILTERED_MARKER,
            "cut_off": CUT_OFF_MARKER, "truncated": TRUNCATED_MARKER}


def unfinished_marker(round: RoundRecord) -> str:
    """What ends an answer that is not whole in the prompt ("" for a whole one): stopped by
    the person, by the model's output token limit or the provider's content filter, or cut
    off by the server."""
    return _MARKERS[round.ending] if round.ending else ""


def _round_messages(round: RoundRecord,
                    messages: Sequence[MessageRecord]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not messages:
        out.append({"role": "user", "content": round.user_message})
        if round.answer:
            out.append({"role": "assistant", "content": round.answer})
        return out
    if not any(message.role == "user" for message in messages):
        out.append({"role": "user", "content": round.user_message})
    position = 0
    while position < len(messages):
        message = messages[position]
        position += 1
        if message.role == "tool":
            continue  # a result without a call just before it: the API would reject it
        if message.role != "assistant" or not message.tool_calls:
            out.append(_wire(message))
            continue
        calls = [_wire_call(call) for call in message.tool_calls]
        ids = {call["id"] for call in calls}
        results: dict[str, dict[str, Any]] = {}
        while position < len(messages) and messages[position].role == "tool":
            result = messages[position]
            position += 1
            call_id = result.tool_call_id
            if call_id is not None and call_id in ids and call_id not in results:
                results[call_id] = _wire(result)
        answered = [call for call in calls if call["id"] in results]
        if answered:  # without text: null, as the live request sent it (``AgentLoop``)
            out.append({"role": "assistant", "content": message.content or None,
                        "tool_calls": answered})
            out.extend(results[call["id"]] for call in answered)
        elif message.content:
            out.append({"role": "assistant", "content": message.content})
    return out


def tail_text(text: str, max_tokens: int, count: Count) -> str:
    """The shortest-cut suffix of ``text`` that fits in ``max_tokens``: it starts after a
    line break or a space when one is near, never mid-word otherwise."""
    if max_tokens <= 0 or not text:
        return ""
    if count(text) <= max_tokens:
        return text
    low, high = 0, len(text)  # the smallest start whose suffix fits
    while low < high:
        middle = (low + high) // 2
        if count(text[middle:]) <= max_tokens:
            high = middle
        else:
            low = middle + 1
    boundary = max(text.rfind("\n", low, low + 200), text.find(" ", low, low + 40))
    return text[boundary + 1:] if boundary >= low else text[low:]


def tail_round(round: RoundRecord, max_tokens: int,
               count: Count) -> tuple[RoundRecord, list[MessageRecord]] | None:
    """``round`` cut to fit ``max_tokens`` as a window round: its question and the end of its
    answer after ``TAIL_MARKER`` (its tool calls left out) -- what a continuation must see of
    an unfinished answer too long for the prompt whole: where it stopped. None when not even
    the question and a few lines of the answer fit."""
    marker = count(TAIL_MARKER) + 2
    question = round.user_message
    unfinished = unfinished_marker(round)
    stopped = count(unfinished) + 2 if unfinished else 0  # round_messages adds it
    room = max_tokens - 2 * MESSAGE_OVERHEAD - count(question) - marker - stopped
    if room < 32:
        return None
    tail = tail_text(round.answer, room, count)
    answer = f"{TAIL_MARKER}\n\n{tail}" if tail != round.answer else tail
    messages = [MessageRecord(round_index=round.index, role="user", content=question),
                MessageRecord(round_index=round.index, role="assistant", content=answer)]
    return round.model_copy(update={"answer": answer}), messages
