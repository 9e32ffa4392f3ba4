"""The packer: layer order, budget, pruning order, tool-call pairs (seed 002)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from reviewtui.agent.memory import ToolMemory, compress
from reviewtui.conversation.packing import (
    SHORTENED_MARKER,
    SUMMARY_HEADER,
    PackedPrompt,
    pack,
    round_messages,
    tail_round,
    tail_text,
)
from reviewtui.llm import token_counter
from reviewtui.sessions.records import MessageRecord, RoundRecord

COUNTER = token_counter(None)
COUNT = COUNTER.count
SYSTEM = "You are a careful code reviewer."
STATIC = "## Review index\n\n" + "".join(
    f"- unit u{n}: src/module{n}.py L{n}-{n + 9} modify\n" for n in range(60))


def words(n: int, seed: int) -> str:
    vocab = ["token", "session", "refresh", "lock", "cache", "review", "handler", "request",
             "retry", "timeout", "parser", "schema", "index", "budget", "layer"]
    return " ".join(vocab[(seed * 7 + i * 3) % len(vocab)] for i in range(n))


def build(rounds: int, *, tool_lines: int = 50, answer_words: int = 40,
          memory: ToolMemory | None = None
          ) -> tuple[list[RoundRecord], dict[int, list[MessageRecord]]]:
    memory = ToolMemory() if memory is None else memory
    records: list[RoundRecord] = []
    by_round: dict[int, list[MessageRecord]] = {}
    for i in range(rounds):
        question = f"Round {i}: is the refresh in src/module{i}.py safe? {words(12, i)}"
        answer = (f"Finding: the bug at src/module{i}.py:{i + 10} must be fixed. "
                  + words(answer_words, i + 1))
        full = "".join(f"src/module{i}.py:{n}: {words(6, n)}\n" for n in range(tool_lines))
        stored = memory.store(i, "search_in_project", '{"query": "refresh"}', full)
        call_id = f"call_{i}"
        by_round[i] = [
            MessageRecord(round_index=i, role="user", content=question),
            MessageRecord(round_index=i, role="assistant", content="",
                          tool_calls=[{"id": call_id, "type": "function",
                                       "function": {"name": "search_in_project",
                                                    "arguments": '{"query": "refresh"}'}}]),
            MessageRecord(round_index=i, role="tool", tool_call_id=call_id,
                          name="search_in_project", ref_id=stored.ref_id,
                          content=compress(full, stored.ref_id)),
            MessageRecord(round_index=i, role="assistant", content=answer),
        ]
        records.append(RoundRecord(index=i, user_message=question, answer=answer,
                                   files=[f"src/module{i}.py"], ended_at="2024-01-01"))
    return records, by_round


def assert_pairs_intact(messages: Sequence[Mapping[str, Any]]) -> None:
    """What the OpenAI API checks: every tool_calls message is followed by one tool message
    per call, and no tool message stands anywhere else."""
    position = 0
    while position < len(messages):
        message = messages[position]
        position += 1
        assert message["role"] != "tool", f"orphan tool message at {position - 1}"
        calls = message.get("tool_calls") or []
        if message["role"] == "assistant" and calls:
            ids = [call["id"] for call in calls]
            results = messages[position:position + len(ids)]
            assert [r["role"] for r in results] == ["tool"] * len(ids)
            assert sorted(r["tool_call_id"] for r in results) == sorted(ids)
            position += len(ids)


def check(packed: PackedPrompt, current: str) -> None:
    assert packed.tokens <= packed.budget
    assert packed.tokens == COUNTER.count_messages(packed.messages)
    assert sum(layer.tokens for layer in packed.layers) == packed.tokens
    assert packed.messages[0]["role"] == "system"
    assert packed.messages[0]["content"].startswith(SYSTEM + "\n\n" + STATIC)
    assert packed.messages[-1]["role"] == "user"
    assert packed.messages[-1]["content"].endswith(current)
    assert_pairs_intact(packed.messages)
    json.dumps(packed.messages)  # plain JSON for the wire


def test_layer_order_with_room_for_everything() -> None:
    records, by_round = build(9)
    packed = pack(system=SYSTEM, static_context=STATIC, rounds=records,
                  messages_by_round=by_round, current="And module8?",
                  inherited_context="Files from earlier rounds:\n- src/module1.py",
                  budget=100_000, count=COUNT, window=6)
    check(packed, "And module8?")
    assert packed.window_rounds == (3, 4, 5, 6, 7, 8)
    assert packed.summarized_rounds == (0, 1, 2)
    first = packed.messages[0]["content"]
    static_at, summary_at = first.index(STATIC), first.index(SUMMARY_HEADER)
    assert static_at < summary_at
    assert first.index("- Round 1: Q: Round 0") < first.index("- Round 3: Q: Round 2")
    assert "src/module0.py:10" in first  # the on-the-fly extractive summary keeps refs
    window = packed.messages[1:-1]
    assert [m["content"] for m in window if m["role"] == "user"] == [
        by_round[i][0].content for i in range(3, 9)]
    assert len(window) == 6 * 4
    tool = window[2]
    assert tool["role"] == "tool" and tool["name"] == "search_in_project"
    assert 'get_tool_result("tm_' in tool["content"]
    last = packed.messages[-1]["content"]
    assert last == "Files from earlier rounds:\n- src/module1.py\n\n---\n\nAnd module8?"
    names = [layer.name for layer in packed.layers]
    assert names == ["static", "summary", "window", "inherited", "current"]
    assert all(layer.dropped == 0 for layer in packed.layers)
    assert packed.layer("summary").items == 3 and packed.layer("window").items == 6
    assert packed.overflow == 0


def test_stored_summaries_are_used() -> None:
    records, by_round = build(8)
    records[0] = records[0].model_copy(update={"summary": "Decided: keep module0 as is."})
    packed = pack(system=SYSTEM, static_context=STATIC, rounds=records,
                  messages_by_round=by_round, current="q", budget=100_000, count=COUNT)
    assert "- Round 1: Decided: keep module0 as is." in packed.messages[0]["content"]


def test_budget_holds_over_fifty_rounds_with_long_tool_outputs() -> None:
    memory = ToolMemory()
    records, by_round = build(50, tool_lines=5000, answer_words=250, memory=memory)
    assert len(memory) == 50 and len(memory.records()[0].content.splitlines()) == 5000
    current = "Given all that, which of these findings should block the merge?"
    static = STATIC * 3  # ~2,700 tokens of review context
    naive = 50 * COUNT(memory.records()[0].content)  # every full tool result, once
    assert naive > 400 * 8000
    for n in range(1, 51):
        packed = pack(system=SYSTEM, static_context=static, rounds=records[:n],
                      messages_by_round=by_round, current=current,
                      inherited_context="Files:\n" + "".join(
                          f"- src/module{i}.py\n" for i in range(n)),
                      budget=8000, count=COUNT)
        check(packed, current)
        assert packed.messages[0]["content"].startswith(SYSTEM + "\n\n" + static)
        assert packed.window_rounds, "the latest round always fits this budget"
        assert packed.window_rounds[-1] == n - 1
        assert set(packed.summarized_rounds).isdisjoint(packed.window_rounds)
    assert packed.layer("window").dropped > 0  # 6 such rounds do not fit in 8,000 tokens
    assert packed.layer("summary").dropped > 0


def test_static_context_is_never_pruned_and_overflow_is_reported() -> None:
    records, by_round = build(5)
    static = STATIC * 20
    packed = pack(system=SYSTEM, static_context=static, rounds=records,
                  messages_by_round=by_round, current="The question.",
                  inherited_context="inherited files", budget=1000, count=COUNT)
    assert packed.messages[0]["content"] == SYSTEM + "\n\n" + static
    assert packed.messages[1:] == [{"role": "user", "content": "The question."}]
    assert packed.overflow == packed.tokens - 1000 > 0
    assert packed.window_rounds == () and packed.summarized_rounds == ()
    assert packed.layer("window").dropped == 5 and packed.layer("summary").dropped == 5
    assert packed.layer("inherited").dropped == 1


def test_window_shrinks_before_summaries_drop() -> None:
    records, by_round = build(10, tool_lines=80, answer_words=120)
    roomy = pack(system=SYSTEM, static_context=STATIC, rounds=records,
                 messages_by_round=by_round, current="q", budget=100_000, count=COUNT)
    assert roomy.window_rounds == (4, 5, 6, 7, 8, 9)
    budget = roomy.tokens - 1
    tighter = pack(system=SYSTEM, static_context=STATIC, rounds=records,
                   messages_by_round=by_round, current="q", budget=budget, count=COUNT)
    assert tighter.tokens <= budget
    assert tighter.window_rounds == (5, 6, 7, 8, 9)
    assert tighter.summarized_rounds == (0, 1, 2, 3, 4)  # round 4 moved to the summaries
    assert tighter.layer("summary").dropped == 0
    assert tighter.layer("window").dropped == 1
    # tighter still: the window empties first, then the oldest summaries go
    base = pack(system=SYSTEM, static_context=STATIC, rounds=[], messages_by_round={},
                current="q", budget=100_000, count=COUNT).tokens
    tight = pack(system=SYSTEM, static_context=STATIC, rounds=records,
                 messages_by_round=by_round, current="q", budget=base + 200, count=COUNT)
    assert tight.window_rounds == ()
    assert tight.summarized_rounds and tight.summarized_rounds[-1] == 9
    assert tight.summarized_rounds == tuple(range(10 - len(tight.summarized_rounds), 10))
    assert tight.tokens <= base + 200


def test_inherited_context_is_shortened_last() -> None:
    records, by_round = build(3)
    inherited = "Files from earlier rounds:\n" + "".join(
        f"- src/module{n}.py (relevance 0.{n % 10})\n" for n in range(300))
    base = pack(system=SYSTEM, static_context=STATIC, rounds=[], messages_by_round={},
                current="q", budget=100_000, count=COUNT).tokens
    packed = pack(system=SYSTEM, static_context=STATIC, rounds=records,
                  messages_by_round=by_round, current="q", inherited_context=inherited,
                  budget=base + 300, count=COUNT)
    check(packed, "q")
    assert packed.window_rounds == () and packed.summarized_rounds == ()
    last = packed.messages[-1]["content"]
    assert last.startswith("Files from earlier rounds:\n- src/module0.py")
    assert SHORTENED_MARKER in last and last.endswith("\n\n---\n\nq")
    account = packed.layer("inherited")
    assert 0 < account.items < 301 and account.items + account.dropped == 301


def test_tool_pairs_are_repaired_not_broken() -> None:
    call = {"id": "a", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    lost = {"id": "b", "type": "function", "function": {"name": "read", "arguments": {"x": 1}}}
    record = RoundRecord(index=0, user_message="q0", answer="done")
    messages = [
        MessageRecord(round_index=0, role="tool", tool_call_id="zz", content="orphan"),
        MessageRecord(round_index=0, role="user", content="q0"),
        MessageRecord(round_index=0, role="assistant", content="", tool_calls=[call, lost]),
        MessageRecord(round_index=0, role="tool", tool_call_id="a", name="read", content="A"),
        MessageRecord(round_index=0, role="tool", tool_call_id="a", content="again"),
        MessageRecord(round_index=0, role="assistant", content="thinking",
                      tool_calls=[{"id": "c", "type": "function",
                                   "function": {"name": "read", "arguments": "{}"}}]),
        MessageRecord(round_index=0, role="assistant", content="done"),
    ]
    wire = round_messages(record, messages)
    assert wire == [
        {"role": "user", "content": "q0"},
        {"role": "assistant", "content": None, "tool_calls": [call]},  # as sent live
        {"role": "tool", "content": "A", "tool_call_id": "a", "name": "read"},
        {"role": "assistant", "content": "thinking"},
        {"role": "assistant", "content": "done"},
    ]
    assert_pairs_intact(wire)
    assert round_messages(record, []) == [{"role": "user", "content": "q0"},
                                          {"role": "assistant", "content": "done"}]


def test_storage_is_never_modified() -> None:
    records, by_round = build(12)
    before = ([r.model_dump() for r in records],
              {k: [m.model_dump() for m in v] for k, v in by_round.items()})
    for budget in (100_000, 3000, 500):
        packed = pack(system=SYSTEM, static_context=STATIC, rounds=records,
                      messages_by_round=by_round, current="q", budget=budget, count=COUNT)
        for message in packed.messages:  # the caller may change what it got
            message["content"] = "changed"
            for call in message.get("tool_calls") or []:
                call["function"]["name"] = "changed"
    after = ([r.model_dump() for r in records],
             {k: [m.model_dump() for m in v] for k, v in by_round.items()})
    assert before == after


def test_a_simple_word_counter_works_too() -> None:
    records, by_round = build(20, tool_lines=200)
    packed = pack(system=SYSTEM, static_context=STATIC, rounds=records,
                  messages_by_round=by_round, current="q", budget=3000,
                  count=lambda text: len(text.split()))
    assert packed.tokens <= 3000
    assert_pairs_intact(packed.messages)


@pytest.mark.parametrize("window", [0, 1, 6])
def test_window_size(window: int) -> None:
    records, by_round = build(8)
    packed = pack(system=SYSTEM, static_context=STATIC, rounds=list(reversed(records)),
                  messages_by_round=by_round, current="q", budget=100_000, count=COUNT,
                  window=window)
    assert packed.window_rounds == tuple(range(8 - window, 8))
    assert packed.summarized_rounds == tuple(range(0, 8 - window))


def test_no_system_and_no_rounds() -> None:
    packed = pack(system="", static_context="", rounds=[], messages_by_round={},
                  current="hello", budget=100, count=COUNT)
    assert packed.messages == [{"role": "user", "content": "hello"}]
    assert packed.tokens == COUNTER.count_messages(packed.messages)


def test_the_tail_of_an_answer_fits_and_starts_at_a_word() -> None:
    count = token_counter(None).count
    text = " ".join(f"word{n}" for n in range(500)) + " END"
    tail = tail_text(text, 60, count)
    assert count(tail) <= 60 and tail.endswith(" END") and text.endswith(tail)
    assert tail.split(" ", 1)[0] in text.split(" ")  # a whole word first
    assert tail_text("short", 60, count) == "short" and tail_text(text, 0, count) == ""
    record = RoundRecord(index=2, user_message="walk me through it", answer=text,
                         ended_at="x", truncated=True)
    cut = tail_round(record, 200, count)
    assert cut is not None
    shorter, messages = cut
    assert [m.role for m in messages] == ["user", "assistant"]
    assert shorter.answer == messages[1].content and shorter.answer.endswith(" END")
    assert sum(count(m.content) for m in messages) <= 200
    assert tail_round(record, 20, count) is None  # no room for a useful tail
