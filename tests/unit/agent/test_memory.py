"""Tool memory: ref ids, records, and the compressed head/tail the message stream keeps."""

from __future__ import annotations

import re

from reviewtui.agent.memory import ToolMemory, compress
from reviewtui.sessions.records import ToolResultRecord

REF = re.compile(r"^tm_[0-9a-f]{8}$")


def listing(lines: int, width: int = 40) -> str:
    return "\n".join(f"{n:05d} " + "x" * width for n in range(lines)) + "\n"


def test_store_and_get() -> None:
    memory = ToolMemory(now=lambda: 1_700_000_000.0)
    record = memory.store(3, "search_in_project", '{"query": "login"}', "a\nb\n")
    assert REF.match(record.ref_id)
    assert (record.round_index, record.tool, record.arguments, record.content) == (
        3, "search_in_project", '{"query": "login"}', "a\nb\n")
    assert record.created_at.startswith("2023-11-14T22:13:20")
    assert memory.get(record.ref_id) == record
    assert memory.get(f'"{record.ref_id}"') == record  # as the model may quote it
    assert memory.get("tm_00000000") is None
    assert record.ref_id in memory and len(memory) == 1


def test_ref_ids_are_unique_and_deterministic() -> None:
    one, two = ToolMemory(), ToolMemory()
    ids_one = [one.store(0, "read", {"path": "a.py"}, "same").ref_id for _ in range(50)]
    ids_two = [two.store(0, "read", {"path": "a.py"}, "same").ref_id for _ in range(50)]
    assert len(set(ids_one)) == 50
    assert ids_one == ids_two
    assert one.records()[0].arguments == '{"path": "a.py"}'  # mappings become JSON


def test_load_from_the_store_then_continue() -> None:
    old = ToolMemory()
    stored = [old.store(0, "read", "{}", f"content {n}") for n in range(3)]
    memory = ToolMemory()
    memory.load(stored)
    assert memory.records() == stored
    new = memory.store(1, "read", "{}", "content 0")
    assert new.ref_id not in {r.ref_id for r in stored}
    assert len(memory) == 4 and isinstance(memory.get(stored[1].ref_id), ToolResultRecord)


def test_small_results_are_kept_whole() -> None:
    text = listing(30)
    assert len(text) < 2000
    assert compress(text, "tm_12345678") == text
    assert compress("", "tm_12345678") == ""


def test_long_results_keep_head_tail_and_the_ref() -> None:
    text = listing(5000)
    out = compress(text, "tm_abcdef12")
    lines = out.splitlines()
    assert lines[:20] == text.splitlines()[:20]
    assert lines[-10:] == text.splitlines()[-10:]
    assert len(lines) == 31
    marker = lines[20]
    kept = text.splitlines(keepends=True)
    omitted = len(text) - len("".join(kept[:20])) - len("".join(kept[-10:]))
    assert marker == (f"… [4,970 lines / {omitted:,} chars omitted — "
                      'full result: get_tool_result("tm_abcdef12")] …')
    assert len(out) <= 2000 + len(marker) + 1


def test_line_counts_and_char_budget_are_respected() -> None:
    text = listing(200, width=300)  # 20 head lines would be 6,000 characters
    out = compress(text, "tm_abcdef12", head_lines=20, tail_lines=10, max_chars=2000)
    marker_line = next(line for line in out.splitlines() if "get_tool_result" in line)
    assert len(out) - len(marker_line) - 2 <= 2000  # the marker and its line breaks
    assert out.startswith(text[:1000])
    assert out.endswith(text[-600:])
    small = compress(listing(100), "tm_abcdef12", head_lines=2, tail_lines=1, max_chars=300)
    assert small.splitlines()[:2] == listing(100).splitlines()[:2]
    assert small.splitlines()[-1] == listing(100).splitlines()[-1]
    assert "97 lines" in small


def test_one_huge_line_is_cut_with_the_marker() -> None:
    text = "{" + "\"k\": 1, " * 20_000 + "}"
    out = compress(text, "tm_00ff00ff", max_chars=900)
    head, marker, tail = out.split("\n")
    assert text.startswith(head) and text.endswith(tail)
    assert len(head) == 600 and len(tail) == 300
    assert "1 lines" in marker and f"{len(text) - 900:,} chars" in marker
    assert 'get_tool_result("tm_00ff00ff")' in marker
