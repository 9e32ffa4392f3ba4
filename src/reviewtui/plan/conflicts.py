"""The per-repository log of rule/LLM disagreements: the input of the self-learning step.

One JSON object per line in ``<git dir>/reviewtui/conflicts.jsonl`` (inside the git directory,
so it is per repository, shared by its worktrees' common dir, and never shows up as an untracked
file). Appending the same disagreement again (same unit content, kind and levels) is a no-op, so
running ``reviewtui plan`` twice does not double-count. Writes are whole lines appended with a
single ``write`` call, so a crash leaves at most one partial last line, which readers skip.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from reviewtui.plan.schema import ConflictRecord

LOG_NAME = "conflicts.jsonl"


def conflict_log_path(git_dir: Path) -> Path:
    return git_dir / "reviewtui" / LOG_NAME


def _key(record: ConflictRecord) -> tuple[str, ...]:
    return (record.unit_id, record.kind, str(record.rule_context_level),
            str(record.llm_context_level), str(record.llm_skip_review))


def read_conflicts(path: Path) -> list[ConflictRecord]:
    """Every well-formed record of the log (a torn or foreign line is skipped)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    records: list[ConflictRecord] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            records.append(ConflictRecord.model_validate_json(line))
        except ValidationError:
            continue
    return records


def append_conflicts(path: Path, records: Iterable[ConflictRecord]) -> int:
    """Append the records not already logged; returns how many were written."""
    known = {_key(r) for r in read_conflicts(path)}
    fresh: list[ConflictRecord] = []
    for record in records:
        key = _key(record)
        if key not in known:
            known.add(key)
            fresh.append(record)
    if not fresh:
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = "".join(r.model_dump_json() + "\n" for r in fresh).encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if os.fstat(fd).st_size and not _ends_with_newline(path):
            payload = b"\n" + payload
        os.write(fd, payload)
    finally:
        os.close(fd)
    return len(fresh)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"
