"""Tool memory: full tool results kept aside, the message stream gets a head/tail (seed 002).

Long tool outputs (file listings, search results, whole files) were the seed's main source of
history blow-up: every one was re-sent in full with every request. Here the full output is stored
once under a reference id (``tm_<8 hex>``) and the message stream keeps ``compress()``-ed text:
the first and last lines, how much was left out, and how to get it back —
``get_tool_result("tm_…")``. The session store persists the records; the agent's
``get_tool_result`` tool reads them back.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from reviewtui.sessions.records import ToolResultRecord

__all__ = ["ToolMemory", "compress", "omission_marker"]


def omission_marker(lines: int, chars: int, ref_id: str) -> str:
    return (f"… [{lines:,} lines / {chars:,} chars omitted — full result: "
            f'get_tool_result("{ref_id}")] …')


def compress(content: str, ref_id: str, *, head_lines: int = 20, tail_lines: int = 10,
             max_chars: int = 2000) -> str:
    """What the message stream keeps of a tool result.

    Content of at most ``max_chars`` characters is returned unchanged. Otherwise: the first
    ``head_lines`` and last ``tail_lines`` lines, cut so that together they take at most
    ``max_chars`` characters (two thirds for the head; a very long line is cut mid-line), and
    between them one marker line with what was omitted and the ref id to get it back.
    """
    if len(content) <= max_chars:
        return content
    lines = content.splitlines(keepends=True)
    head_budget = max_chars * 2 // 3
    tail_budget = max_chars - head_budget
    head_end = 0  # the head is content[:head_end]
    for line in lines[:head_lines]:
        if head_end + len(line) > head_budget:
            head_end += max(0, head_budget - head_end)
            break
        head_end += len(line)
    tail_start = len(content)  # the tail is content[tail_start:]
    for line in reversed(lines[-tail_lines:] if tail_lines > 0 else []):
        if len(content) - tail_start + len(line) > tail_budget:
            tail_start -= max(0, tail_budget - (len(content) - tail_start))
            break
        tail_start -= len(line)
    tail_start = max(tail_start, head_end)
    if tail_start <= head_end:
        return content
    head, middle, tail = content[:head_end], content[head_end:tail_start], content[tail_start:]
    omitted_lines = middle.count("\n") + (0 if middle.endswith("\n") else 1)
    if head and not head.endswith("\n"):
        head += "\n"
    return f"{head}{omission_marker(omitted_lines, len(middle), ref_id)}\n{tail}"


def _arguments_text(arguments: str | Mapping[str, Any]) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False)


class ToolMemory:
    """Full tool results by ref id, in the order they were stored. Thread-safe."""

    def __init__(self, *, now: Callable[[], float] = time.time) -> None:
        self._now = now
        self._records: dict[str, ToolResultRecord] = {}
        self._counter = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)

    def __contains__(self, ref_id: object) -> bool:
        with self._lock:
            return ref_id in self._records

    def store(self, round_index: int, tool: str, arguments: str | Mapping[str, Any],
              content: str) -> ToolResultRecord:
        """Keep one full result; its ``ref_id`` is a hash of the call, the content and a
        counter (deterministic for a given sequence of calls, unique within the memory)."""
        args = _arguments_text(arguments)
        created = datetime.fromtimestamp(self._now(), UTC).isoformat(timespec="microseconds")
        with self._lock:
            while True:
                self._counter += 1
                digest = hashlib.sha1(
                    f"{self._counter}\0{round_index}\0{tool}\0{args}\0{content}".encode(
                        "utf-8", "surrogatepass")).hexdigest()
                ref_id = f"tm_{digest[:8]}"
                if ref_id not in self._records:
                    break
            record = ToolResultRecord(ref_id=ref_id, round_index=round_index, tool=tool,
                                      arguments=args, content=content, created_at=created)
            self._records[ref_id] = record
            return record

    def get(self, ref_id: str) -> ToolResultRecord | None:
        with self._lock:
            return self._records.get(ref_id.strip().strip("\"'"))

    def load(self, records: Iterable[ToolResultRecord]) -> None:
        """Add records read back from the session store (new ids never collide with them)."""
        with self._lock:
            for record in records:
                self._records[record.ref_id] = record
                self._counter += 1

    def records(self) -> list[ToolResultRecord]:
        with self._lock:
            return list(self._records.values())
