"""Keep a review's findings in the change's session.

``reviewtui review`` and the workbench's ``R`` both end here: the findings go into the session of
this change (the one ``ask`` and the workbench continue), merged by fingerprint with what an
earlier review found (see ``sessions.review_store``). Each finding remembers the text of its
lines (``line_hash``); ``agent.follow`` moves it with that text when the code changes, or marks
it ``fixed`` -- shown as "fixed?": its lines changed since, someone should look.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence

from reviewtui.agent.findings import Finding, ReviewResult
from reviewtui.sessions.review_records import MergeReport, StoredFinding
from reviewtui.sessions.store import SessionStore
from reviewtui.units.model import ReviewUnit, unit_key

LineText = Callable[[str, int], str | None]
SideLine = Callable[[str, str, int], str | None]  # path, "new" or "old", number -> text
MAX_HASHED_LINES = 20


def hashed_count(start: int, end: int) -> int:
    """How many of the lines ``start``-``end`` their hash reads (the first ones)."""
    return min(end, start + MAX_HASHED_LINES) - start + 1


def digest(normalised: Sequence[str]) -> str:
    """The hash of lines whose spaces are normalised (``normalise``)."""
    return hashlib.sha256("\n".join(normalised).encode("utf-8", "replace")).hexdigest()[:16]


def normalise(line: str | None) -> str:
    return " ".join((line or "").split())


def line_hash(path: str, start: int, end: int, line_text: LineText) -> str:
    """The flagged lines' text (spaces normalised), hashed; "" when none can be read."""
    lines = [line_text(path, n) for n in range(start, start + hashed_count(start, end))]
    if all(line is None for line in lines):
        return ""
    return digest([normalise(line) for line in lines])


def side_hash(path: str, side: str, start: int, end: int, side_line: SideLine) -> str:
    """``line_hash`` of lines of ``side`` (``new``: after the change, ``old``: before it)."""
    return line_hash(path, start, end, lambda p, n: side_line(p, side, n))


def unit_at(units: Iterable[ReviewUnit], path: str, start: int, end: int,
            side: str = "new") -> ReviewUnit | None:
    """The unit whose hunks cover any of the lines ``start``-``end`` of ``path`` on ``side``
    (the old side by the unit's old path)."""
    return next((u for u in units if path == (u.file_path if side == "new"
                                               else u.old_path or u.file_path)
                 and u.covers(start, end, side)), None)


def stored(finding: Finding, units: Sequence[ReviewUnit], side_line: SideLine,
           model: str | None) -> StoredFinding:
    owner = next((u for u in units if u.unit_id == finding.unit_id), None) or unit_at(
        units, finding.file_path, finding.start_line, finding.end_line, finding.side)
    return StoredFinding(
        fingerprint=finding.fingerprint, title=finding.title, body=finding.body,
        severity=finding.severity, confidence=finding.confidence,
        file_path=finding.file_path, side=finding.side, start_line=finding.start_line,
        end_line=finding.end_line, unit_id=owner.unit_id if owner else finding.unit_id,
        unit_key=unit_key(owner) if owner else None, category=finding.category,
        suggestion=finding.suggestion, fix=finding.fix, model=model,
        line_hash=side_hash(finding.file_path, finding.side, finding.start_line,
                            finding.end_line, side_line))


def record_review(store: SessionStore, session_id: str, result: ReviewResult,
                  units: Sequence[ReviewUnit], reviewed_unit_ids: Iterable[str],
                  side_line: SideLine) -> MergeReport:
    """Merge ``result`` into the session; findings of the reviewed units it does not repeat
    become ``gone``. ``side_line`` reads the change's lines on either side."""
    reviewed = {u.unit_id for u in units if u.unit_id in set(reviewed_unit_ids)}
    keys = {unit_key(u) for u in units if u.unit_id in reviewed}
    incoming = [stored(f, units, side_line, result.model) for f in result.findings]

    def covered(old: StoredFinding) -> bool:
        return old.unit_id in reviewed or (old.unit_key is not None and old.unit_key in keys)

    return store.merge_findings(session_id, incoming, covered)
