"""Time the conversation packer on synthetic conversations of 10 / 50 / 200 rounds.

Each round: a question, one assistant message with 2 tool calls whose long results (``--tool-
lines`` lines each, a search-result-like listing) go to ``ToolMemory`` while the message stream
keeps the compressed head/tail, and an answer of a few hundred words. The static review context
is about 3,500 tokens. For each size the script reports the median time of ``pack`` (``--runs``
runs, each from scratch: nothing is cached between calls), the packed prompt's tokens, and the
tokens of the naive prompt the seed started from — every message of every round with the full
tool results — with the ratio between the two, and, in between, every message with the tool
results as compressed (what tool memory alone saves, before windows and summaries). It also
times inheritance over the whole history: the first ``start_round`` of a ``RoundManager`` loaded
with the rounds (keywords of the stored rounds computed once) and the median of ``--runs``
further, different questions (cache misses). No extra dependencies, deterministic text, offline
token counting (the tiktoken cl100k encoding shipped with reviewtui).

Usage::

    python benchmarks/bench_packing.py [--rounds 10,50,200] [--runs 7] [--budget 16000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from reviewtui.agent.memory import ToolMemory, compress
from reviewtui.conversation.packing import pack, round_messages
from reviewtui.conversation.rounds import RoundManager
from reviewtui.llm import token_counter
from reviewtui.sessions.records import MessageRecord, RoundRecord

_WORDS = ("token session refresh lock cache review handler request retry timeout parser schema "
         "index budget layer query commit branch merge diff hunk unit rule score level plan "
         "bundle context caller symbol import config secret password login payment invoice "
         "decimal rounding currency migration table column index transaction isolation race "
         "deadlock thread worker queue backoff status error warning finding risk fix should "
         "must because therefore however the a of to in and is that it for on with")
VOCAB = _WORDS.split(" ")
SYSTEM = "You are reviewtui's assistant: you help a developer review one code change."


def prose(rng: random.Random, words: int) -> str:
    out = []
    for n in range(words):
        word = rng.choice(VOCAB)
        out.append(word + ("." if n % 17 == 16 else ""))
    return " ".join(out)


def static_context(rng: random.Random) -> str:
    lines = ["## Review index", ""]
    lines += [f"- u{n:03d} src/pkg/module{n}.py L{n * 3}-{n * 3 + 20} modify risk "
              f"{rng.choice(['low', 'medium', 'high'])}" for n in range(120)]
    lines += ["", "## Diffs", ""]
    for n in range(5):
        lines.append(f"### src/pkg/module{n}.py")
        lines += [f"{rng.choice('+- ')} {prose(rng, 8)}" for _ in range(30)]
    return "\n".join(lines)


def tool_output(rng: random.Random, round_index: int, lines: int) -> str:
    return "".join(f"src/pkg/module{rng.randrange(300)}.py:{rng.randrange(2000)}: "
                   f"{prose(rng, 7)}\n" for _ in range(lines))


def conversation(rounds: int, tool_lines: int, seed: int = 7) -> tuple[
        list[RoundRecord], dict[int, list[MessageRecord]], ToolMemory]:
    rng = random.Random(seed)
    memory = ToolMemory(now=lambda: 1_700_000_000.0)
    records: list[RoundRecord] = []
    by_round: dict[int, list[MessageRecord]] = {}
    for i in range(rounds):
        question = (f"Is the {rng.choice(VOCAB)} handling in src/pkg/module{i % 300}.py "
                    f"correct? {prose(rng, 25)}")
        calls, results = [], []
        for k, tool in enumerate(("search_in_project", "read_file_hunk")):
            arguments = f'{{"query": "{rng.choice(VOCAB)}"}}'
            full = tool_output(rng, i, tool_lines)
            stored = memory.store(i, tool, arguments, full)
            call_id = f"call_{i}_{k}"
            calls.append({"id": call_id, "type": "function",
                          "function": {"name": tool, "arguments": arguments}})
            results.append(MessageRecord(round_index=i, role="tool", tool_call_id=call_id,
                                         name=tool, ref_id=stored.ref_id,
                                         content=compress(full, stored.ref_id)))
        answer = (f"Finding: the {rng.choice(VOCAB)} at src/pkg/module{i % 300}.py:{i + 10} "
                  f"must be fixed. " + prose(rng, 300))
        by_round[i] = [MessageRecord(round_index=i, role="user", content=question),
                       MessageRecord(round_index=i, role="assistant", content="",
                                     tool_calls=calls),
                       *results,
                       MessageRecord(round_index=i, role="assistant", content=answer)]
        records.append(RoundRecord(index=i, user_message=question, answer=answer,
                                   files=[f"src/pkg/module{i % 300}.py"],
                                   started_at="2024-01-01T00:00:00+00:00",
                                   ended_at="2024-01-01T00:01:00+00:00"))
    return records, by_round, memory


def naive_messages(static: str, records: list[RoundRecord],
                   by_round: dict[int, list[MessageRecord]], memory: ToolMemory,
                   current: str) -> list[dict[str, Any]]:
    """Every message of every round, tool results in full (seed 002's starting point)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM},
                                      {"role": "user", "content": static}]
    for record in records:
        for message in round_messages(record, by_round[record.index]):
            if message["role"] == "tool":
                ref = next(m.ref_id for m in by_round[record.index]
                           if m.tool_call_id == message["tool_call_id"])
                stored = memory.get(ref or "")
                message = {**message, "content": stored.content if stored else ""}
            messages.append(message)
    messages.append({"role": "user", "content": current})
    return messages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", default="10,50,200")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--budget", type=int, default=16_000)
    parser.add_argument("--tool-lines", type=int, default=2000)
    args = parser.parse_args()
    counter = token_counter(None)
    static = static_context(random.Random(1))
    current = "Given all of that, which findings should block the merge, and why?"
    print(f"token counter: {counter!r}; static context {counter.count(static):,} tokens; "
          f"budget {args.budget:,}; tool results {args.tool_lines:,} lines each")
    print("| rounds | pack median | packed tokens | window / summarised | all messages, "
          "compressed tools | naive (full tools) | naive / packed | inheritance, first / next "
          "question |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for size in (int(part) for part in args.rounds.split(",")):
        records, by_round, memory = conversation(size, args.tool_lines)
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            packed = pack(system=SYSTEM, static_context=static, rounds=records,
                          messages_by_round=by_round, current=current, budget=args.budget,
                          count=counter.count)
            times.append((time.perf_counter() - start) * 1000)
        assert packed.tokens <= args.budget
        naive = counter.count_messages(naive_messages(static, records, by_round, memory,
                                                      current))
        stream = counter.count_messages(  # every message, tool results as compressed
            [{"role": "system", "content": SYSTEM + "\n\n" + static},
             *(m for r in records for m in round_messages(r, by_round[r.index])),
             {"role": "user", "content": current}])
        manager = RoundManager(records, known_files=[f"src/pkg/module{n}.py"
                                                     for n in range(300)])
        start = time.perf_counter()
        manager.start_round(current + " See src/pkg/module3.py.")
        cold_ms = (time.perf_counter() - start) * 1000
        warm = []
        for n in range(args.runs):  # new questions: cache misses, round keywords known
            start = time.perf_counter()
            manager.preview(f"What about the {VOCAB[n]} in src/pkg/module{n}.py?")
            warm.append((time.perf_counter() - start) * 1000)
        print(f"| {size} | {statistics.median(times):.1f} ms | {packed.tokens:,} | "
              f"{len(packed.window_rounds)} / {len(packed.summarized_rounds)} | {stream:,} | "
              f"{naive:,} | {naive / packed.tokens:.1f}× | {cold_ms:.1f} / "
              f"{statistics.median(warm):.1f} ms |")


if __name__ == "__main__":
    main()
