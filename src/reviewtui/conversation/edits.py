"""Which files were edited on disk after earlier rounds of a chat about the working tree.

A chat about uncommitted work keeps one session (``all:HEAD..worktree``) while the person edits
files between questions. The earlier rounds sent again with every question hold what was true
when they were answered: file text quoted in answers and tool results read before the edit.
Without a word, the model took that old text for the file as it is. The note built here names
each file edited since and the last round that saw it before, so the model reads it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from reviewtui.sessions.records import RoundRecord

EDITED_NOTE = ("Edited on disk since earlier rounds of this chat (what those rounds quoted or "
               "read of these files, tool results included, is the text from before the "
               "edit; the diffs above and the tools show them as they are now):")
_SHOWN = 20  # files named at most; the rest are counted
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _ended_ns(record: RoundRecord) -> int | None:
    if not record.ended_at:
        return None
    try:
        moment = datetime.fromisoformat(record.ended_at)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # the store writes UTC
    return (moment - _EPOCH) // timedelta(microseconds=1) * 1_000


def _modified_ns(root: Path, path: str) -> int | None:
    try:
        return (root / path).stat().st_mtime_ns
    except (OSError, ValueError):
        return None  # gone (a deleted file is in the diffs as deleted), or not a path


def edited_since(root: Path, rounds: Sequence[RoundRecord],
                 changed: Iterable[str]) -> dict[str, int]:
    """Each file edited after an ended round that could have shown it (any round, for the
    change's files: their diffs go with every question; else a round that mentioned or read
    it), mapped to the index of the last such round that ended before the edit."""
    ended = sorted(((ns, r) for r in rounds if (ns := _ended_ns(r)) is not None),
                   key=lambda pair: pair[0])
    if not ended:
        return {}
    in_change = set(changed)
    candidates = in_change | {path for _, record in ended for path in record.files}
    edited: dict[str, int] = {}
    for path in sorted(candidates):
        modified = _modified_ns(root, path)
        if modified is None:
            continue
        before = [record.index for ns, record in ended if ns < modified
                  and (path in in_change or path in record.files)]
        if before:
            edited[path] = before[-1]
    return edited


def edited_note(edited: dict[str, int]) -> str:
    """The note for the model (empty when nothing was edited); rounds are named from 1."""
    if not edited:
        return ""
    shown = sorted(edited.items(), key=lambda item: (-item[1], item[0]))[:_SHOWN]
    lines = [EDITED_NOTE]
    lines += [f"- {path} (edited after round {index + 1})" for path, index in shown]
    if len(edited) > len(shown):
        lines.append(f"- and {len(edited) - len(shown)} more files")
    return "\n".join(lines)
