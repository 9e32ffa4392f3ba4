"""The per-repository evidence log: what the LLM planner and the person said about units,
against the rules. The input of the self-learning step (``reviewtui rules learn``).

One JSON object per line in ``<git dir>/reviewtui/conflicts.jsonl`` (inside the git directory,
so it is per repository, shared by its worktrees' common dir, and never shows up as an untracked
file). A record is appended only when it says something new about its unit: the same verdict
as the unit's latest record from the same source, under the same rule pack, is not written
again, so running ``reviewtui plan`` twice does not double-count, while a person who changes
their mind (and back) is recorded each time. Writes are whole lines appended with a single
``write`` call, so a crash leaves at most one partial last line; readers skip it (and report
it) and the next append starts on a new line. Nothing here rewrites or truncates the file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from reviewtui.plan.schema import ConflictRecord

LOG_NAME = "conflicts.jsonl"
_VERDICT = ("kind", "rule_context_level", "llm_context_level", "llm_skip_review", "user_level",
            "user_skip", "user_requests", "pack")


def conflict_log_path(git_dir: Path) -> Path:
    return git_dir / "reviewtui" / LOG_NAME


@dataclass(frozen=True)
class EvidenceRead:
    """The readable records of a log, and what could not be read (line numbers, 1-based)."""

    records: list[ConflictRecord] = field(default_factory=list)
    unreadable: list[int] = field(default_factory=list)
    unstamped: int = 0  # records from a version that did not stamp source and rule pack
    error: str | None = None  # the file itself could not be read

    def problems(self, path: Path) -> list[str]:
        """One line per problem, for the person (nothing is changed in the file)."""
        out = [f"{path}: cannot read: {self.error}"] if self.error else []
        if self.unreadable:
            shown = ", ".join(str(n) for n in self.unreadable[:5])
            more = ", ..." if len(self.unreadable) > 5 else ""
            out.append(f"{path}: {len(self.unreadable)} unreadable line"
                       f"{'s' if len(self.unreadable) != 1 else ''} skipped (line "
                       f"{shown}{more}); the file is left as it is")
        return out


def read_evidence(path: Path) -> EvidenceRead:
    """Every well-formed record of the log; torn, foreign or corrupt lines are counted."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return EvidenceRead()
    except OSError as exc:
        return EvidenceRead(error=exc.strerror or type(exc).__name__)
    records: list[ConflictRecord] = []
    unreadable: list[int] = []
    unstamped = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = ConflictRecord.model_validate_json(line)
        except ValidationError:
            unreadable.append(number)
            continue
        if "pack" not in record.model_fields_set:
            unstamped += 1
        records.append(record)
    return EvidenceRead(records, unreadable, unstamped)


def read_conflicts(path: Path) -> list[ConflictRecord]:
    """Every well-formed record of the log (a torn or foreign line is skipped)."""
    return read_evidence(path).records


def _verdict(data: dict[str, Any]) -> tuple[str, ...]:
    return tuple(json.dumps(data.get(name), sort_keys=True) for name in _VERDICT)


def _latest_verdicts(path: Path) -> dict[tuple[str, str], tuple[str, ...]]:
    """(source, unit id) -> the verdict of its latest record (plain JSON: no validation)."""
    latest: dict[tuple[str, str], tuple[str, ...]] = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return latest
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("unit_id"), str):
            latest[(str(data.get("source", "llm")), data["unit_id"])] = _verdict(data)
    return latest


def append_conflicts(path: Path, records: Iterable[ConflictRecord], *,
                     only_new: bool = True) -> int:
    """Append the records that say something new about their unit (every record when
    ``only_new`` is off: the caller knows they are new, and the log is not read); returns how
    many were written. ``OSError`` when the log cannot be read or written."""
    latest = _latest_verdicts(path) if only_new else {}
    fresh: list[ConflictRecord] = []
    for record in records:
        key = (record.source, record.unit_id)
        verdict = _verdict(record.model_dump(mode="json"))
        if not only_new or latest.get(key) != verdict:
            latest[key] = verdict
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


@dataclass(frozen=True)
class EvidenceLog:
    """Where a change's evidence goes, and what each record is stamped with: the identity of
    the rule pack its units were scored under and the change they belong to."""

    path: Path
    pack: str | None = None
    change: str | None = None

    def append(self, records: Iterable[ConflictRecord], *, only_new: bool = True) -> int:
        stamp = {"pack": self.pack, "change": self.change}
        return append_conflicts(self.path, [r.model_copy(update=stamp) for r in records],
                                only_new=only_new)
