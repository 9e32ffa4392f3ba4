"""The packer marks an answer that is not whole, so the model never takes it for complete.

An answer the person stopped already ended with ``INTERRUPTED_MARKER``; one the model stopped
at its output token limit (finish_reason "length", ``RoundRecord.truncated``), and one the
server cut off mid-stream (no finish reason, ``RoundRecord.cut_off``), went into every later
prompt as they were, with nothing to say they were half an answer.
"""

from __future__ import annotations

import pytest

from reviewtui.conversation.packing import (
    CUT_OFF_MARKER,
    EMPTY_ANSWER_MARKER,
    FILTERED_MARKER,
    INTERRUPTED_MARKER,
    SUMMARY_HEADER,
    TRUNCATED_MARKER,
    message_tokens,
    pack,
    round_messages,
    tail_round,
)
from reviewtui.llm import token_counter
from reviewtui.sessions.records import MessageRecord, RoundRecord

COUNTER = token_counter(None)
COUNT = COUNTER.count
HALF = "login() now also checks user.active, and the session cookie is"


def _truncated(index: int = 0, answer: str = HALF) -> tuple[RoundRecord, list[MessageRecord]]:
    record = RoundRecord(index=index, user_message="What does login check?", answer=answer,
                         ended_at="2026-01-01", truncated=True)
    messages = [MessageRecord(round_index=index, role="user", content=record.user_message),
                MessageRecord(round_index=index, role="assistant", content=answer)]
    return record, messages


def test_a_truncated_answer_ends_with_its_marker_and_the_marker_is_counted() -> None:
    record, messages = _truncated()
    packed = pack(system="You review code.", static_context="", rounds=[record],
                  messages_by_round={0: messages}, current="And logout?", budget=10_000,
                  count=COUNT)
    assert packed.window_rounds == (0,)
    answer = packed.messages[2]
    assert answer["role"] == "assistant"
    assert answer["content"] == f"{HALF}\n\n{TRUNCATED_MARKER}"
    assert INTERRUPTED_MARKER not in answer["content"]
    # counted in the budget: the prompt's count and its layers' include the marker
    assert packed.tokens == COUNTER.count_messages(packed.messages)
    assert sum(layer.tokens for layer in packed.layers) == packed.tokens
    assert packed.layer("window").tokens == sum(message_tokens(m, COUNT)
                                                for m in packed.messages[1:-1])
    # a budget one token short of the marked round moves it out of the window
    tight = pack(system="You review code.", static_context="", rounds=[record],
                 messages_by_round={0: messages}, current="And logout?",
                 budget=packed.tokens - 1, count=COUNT)
    assert tight.window_rounds == ()


def test_a_truncated_answer_rebuilt_from_its_record_or_without_text_is_marked() -> None:
    record, _ = _truncated()
    assert round_messages(record, [])[-1] == {
        "role": "assistant", "content": f"{HALF}\n\n{TRUNCATED_MARKER}"}
    empty, messages = _truncated(answer="")  # the limit hit before any text
    assert round_messages(empty, messages)[-1] == {"role": "assistant",
                                                   "content": TRUNCATED_MARKER}
    whole = record.model_copy(update={"truncated": False})
    assert round_messages(whole, [])[-1]["content"] == HALF
    assert EMPTY_ANSWER_MARKER not in str(round_messages(empty, messages))


def test_the_summary_line_of_a_truncated_round_says_so() -> None:
    record, messages = _truncated()
    whole, whole_messages = _truncated(1, "It checks the password.")
    whole = whole.model_copy(update={"truncated": False})
    packed = pack(system="You review code.", static_context="", rounds=[record, whole],
                  messages_by_round={0: messages, 1: whole_messages}, current="q",
                  budget=10_000, count=COUNT, window=0)
    assert packed.summarized_rounds == (0, 1)
    first = packed.messages[0]["content"]
    lines = first[first.index(SUMMARY_HEADER):].splitlines()
    assert lines[1].startswith("- Round 1 (its answer stopped at the model's output token "
                               "limit, unfinished): ")
    assert lines[2].startswith("- Round 2: ")
    assert packed.tokens == COUNTER.count_messages(packed.messages)


def _cut_off(index: int = 0, answer: str = HALF) -> tuple[RoundRecord, list[MessageRecord]]:
    """A round whose stream the server closed mid-answer, with no finish reason."""
    record, messages = _truncated(index, answer)
    return record.model_copy(update={"truncated": False, "cut_off": True}), messages


def _filtered(index: int = 0, answer: str = HALF) -> tuple[RoundRecord, list[MessageRecord]]:
    """A round whose answer the provider's content filter ended (``cut_off`` too)."""
    record, messages = _cut_off(index, answer)
    return record.model_copy(update={"filtered": True}), messages


_ROUNDS = {"truncated": _truncated, "cut_off": _cut_off, "filtered": _filtered}
_MARKERS = {"truncated": TRUNCATED_MARKER, "cut_off": CUT_OFF_MARKER,
            "filtered": FILTERED_MARKER}


# A content filter's stop is said as such: "the server stopped sending this answer" reads as a
# dropped connection the model may simply go on from, into the same filter.
@pytest.mark.parametrize(("kind", "summary"), [
    ("cut_off", "cut off before it was finished: the server stopped sending it"),
    ("filtered", "stopped before it was finished by the provider's content filter"),
])
def test_an_answer_stopped_mid_stream_ends_with_its_own_marker_counted_and_summarized(
        kind: str, summary: str) -> None:
    record, messages = _ROUNDS[kind]()
    marker = _MARKERS[kind]
    assert len(set(_MARKERS.values()) | {INTERRUPTED_MARKER}) == 4  # each its own words
    packed = pack(system="You review code.", static_context="", rounds=[record],
                  messages_by_round={0: messages}, current="And logout?", budget=10_000,
                  count=COUNT)
    assert packed.window_rounds == (0,)
    assert packed.messages[2] == {"role": "assistant", "content": f"{HALF}\n\n{marker}"}
    assert packed.tokens == COUNTER.count_messages(packed.messages)
    assert sum(layer.tokens for layer in packed.layers) == packed.tokens
    tight = pack(system="You review code.", static_context="", rounds=[record],
                 messages_by_round={0: messages}, current="And logout?",
                 budget=packed.tokens - 1, count=COUNT)
    assert tight.window_rounds == ()
    # rebuilt from its record alone, marked the same
    assert round_messages(record, [])[-1]["content"] == f"{HALF}\n\n{marker}"
    summarized = pack(system="You review code.", static_context="", rounds=[record],
                      messages_by_round={0: messages}, current="q", budget=10_000,
                      count=COUNT, window=0)
    assert summarized.summarized_rounds == (0,)
    first = summarized.messages[0]["content"]
    line = first[first.index(SUMMARY_HEADER):].splitlines()[1]
    assert line.startswith(f"- Round 1 (its answer was {summary}): ")


@pytest.mark.parametrize("kind", ["truncated", "cut_off", "filtered"])
def test_the_tail_of_an_unfinished_answer_leaves_room_for_its_marker(kind: str) -> None:
    """A continuation sends the end of a long unfinished answer: with its marker, the round
    must still fit the room it was cut for."""
    text = " ".join(f"word{n}" for n in range(2000))
    record, _ = _ROUNDS[kind](answer=text)
    marker = _MARKERS[kind]
    for room in (120, 200, 400):
        cut = tail_round(record, room, COUNT)
        assert cut is not None
        shorter, messages = cut
        sent = round_messages(shorter, messages)
        assert sent[-1]["content"].endswith(marker)
        assert sum(message_tokens(m, COUNT) for m in sent) <= room
