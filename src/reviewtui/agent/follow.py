"""Findings and comments follow their lines' text when the change is read again.

A finding keeps the hash of its lines' text (``line_hash``, spaces normalised), and so does a
comment of the person's. Whenever the change is read again -- the workbench opening, ``r`` and
``--watch``, ``reviewtui findings``, ``export``, ``publish`` -- each one whose lines no longer
hold that text is looked for: the nearest place whose lines hash the same, on lines the change's
hunks cover, on the same side (in a unit of the same definition first). Found, it moves there,
and a finding's fix with it when the fix's reviewed bytes are there too. Not found, an open or
accepted finding becomes ``fixed`` ("fixed?": its lines changed, someone should look) and stays
where it was, as does a comment. An export offers a fix only where its reviewed bytes still are
(``checked_fix``: the check applying makes). Records without a hash (kept before comments had
one) stay where they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewtui.agent.fixes import holds, moved_fix
from reviewtui.agent.record import SideLine, digest, hashed_count, normalise, side_hash, unit_at
from reviewtui.errors import StoreError
from reviewtui.git.contents import SideLines
from reviewtui.pipeline import LoadedChange
from reviewtui.sessions.review_records import ReviewComment, StoredFinding
from reviewtui.sessions.store import SessionStore
from reviewtui.units.model import ReviewUnit, unit_key

FileBytes = Callable[[str], bytes | None]  # a file after the change (None: no such text)
_LOST_STATES = ("open", "accepted")  # those that become "fixed?" when their text is gone


@dataclass(frozen=True)
class Followed:
    """A session's findings and comments at their lines as they are now."""

    findings: list[StoredFinding]
    comments: list[ReviewComment]
    moved: int = 0  # findings and comments that followed their text to other lines
    lost: int = 0  # open or accepted findings whose text is nowhere: now "fixed?"
    problem: str | None = None  # the store could not keep the new places


class _Texts:
    """The change's files as normalised lines, read once per file and side."""

    def __init__(self, side_line: SideLine) -> None:
        self._side_line = side_line
        self._lines: dict[tuple[str, str], list[str]] = {}

    def lines(self, path: str, side: str) -> list[str]:
        found = self._lines.get((path, side))
        if found is None:
            found = []
            while (line := self._side_line(path, side, len(found) + 1)) is not None:
                found.append(normalise(line))
            self._lines[(path, side)] = found
        return found

    def hash_at(self, path: str, side: str, start: int, end: int) -> str:
        """``side_hash`` of lines ``start``-``end``, from the lines read once."""
        lines = self.lines(path, side)
        window = [lines[n - 1] if 0 < n <= len(lines) else None
                  for n in range(start, start + hashed_count(start, end))]
        return "" if all(line is None for line in window) else digest(
            [line or "" for line in window])


def _ranges(unit: ReviewUnit, path: str, side: str) -> list[tuple[int, int]]:
    """The lines each hunk of ``unit`` shows of ``path`` on ``side``."""
    if path != (unit.file_path if side == "new" else unit.old_path or unit.file_path):
        return []
    spans = [(h.new_start, h.new_count) if side == "new" else (h.old_start, h.old_count)
             for h in unit.hunks]
    return [(first, first + count - 1) for first, count in spans if count]


def _shift(texts: _Texts, units: Sequence[ReviewUnit], path: str, side: str, start: int,
           end: int, anchor: str, key: str | None) -> int | None:
    """How far lines ``start``-``end`` moved: 0 when they still hash to ``anchor`` (or there
    is none), else the nearest shift after which they do, onto lines the change's hunks show
    (a unit of the definition ``key`` first); None when there is none."""
    if not anchor or texts.hash_at(path, side, start, end) == anchor:
        return 0
    mine = [u for u in units if _ranges(u, path, side)]
    for tier in ([u for u in mine if key is not None and unit_key(u) == key], mine):
        starts = {first for u in tier for lo, hi in _ranges(u, path, side)
                  for first in range(max(1, lo - (end - start)), hi + 1)}
        for first in sorted(starts, key=lambda n: (abs(n - start), n < start)):
            if texts.hash_at(path, side, first, first + end - start) == anchor:
                return first - start
    return None


def follow_findings(findings: Sequence[StoredFinding], units: Sequence[ReviewUnit],
                    side_line: SideLine, file_bytes: FileBytes,
                    ) -> list[tuple[StoredFinding, StoredFinding]]:
    """``(before, after)`` for each finding whose place, fix, unit or state changed with the
    change as it is now (``units``; ``side_line`` reads its lines, ``file_bytes`` its files
    after the change)."""
    texts = _Texts(side_line)
    changed: list[tuple[StoredFinding, StoredFinding]] = []
    for finding in findings:
        path, side = finding.file_path, finding.side
        start, end = finding.start_line, finding.end_line
        update: dict[str, object] = {}
        delta = _shift(texts, units, path, side, start, end, finding.line_hash,
                       finding.unit_key)
        if delta is None:
            if finding.state in _LOST_STATES:
                update["state"] = "fixed"
        elif delta:
            start, end = start + delta, end + delta
            update.update(start_line=start, end_line=end)
            fix = finding.fix
            moved = moved_fix(fix, delta, file_bytes(path)) if fix and side == "new" else None
            if moved is not None:
                update["fix"] = moved
        owner = unit_at(units, path, start, end, side)
        if owner is not None and owner.unit_id != finding.unit_id:
            update.update(unit_id=owner.unit_id, unit_key=unit_key(owner))
        if update:
            changed.append((finding, finding.model_copy(update=update)))
    return changed


def follow_comments(comments: Sequence[ReviewComment], units: Sequence[ReviewUnit],
                    side_line: SideLine) -> list[tuple[ReviewComment, ReviewComment]]:
    """``(before, after)`` for each comment whose lines' text moved."""
    texts = _Texts(side_line)
    changed: list[tuple[ReviewComment, ReviewComment]] = []
    for comment in comments:
        delta = _shift(texts, units, comment.file_path, comment.side, comment.start_line,
                       comment.end_line, comment.line_hash, comment.unit_key)
        if delta:
            changed.append((comment, comment.model_copy(update={
                "start_line": comment.start_line + delta,
                "end_line": comment.end_line + delta})))
    return changed


def follow_session(store: SessionStore, session_id: str, units: Sequence[ReviewUnit],
                   side_line: SideLine, file_bytes: FileBytes) -> Followed:
    """The session's findings and comments followed to the change as it is now, and stored
    there (``StoreError`` when they cannot be read; a write that fails is ``problem``)."""
    findings, comments = store.findings(session_id), store.comments(session_id)
    moved_findings = follow_findings(findings, units, side_line, file_bytes)
    moved_comments = follow_comments(comments, units, side_line)
    problem = None
    try:
        store.follow_records(session_id, moved_findings, moved_comments)
    except StoreError as error:
        problem = f"the findings' new places are not kept: {error}"
    by_print = {before.fingerprint: after for before, after in moved_findings}
    by_id = {before.comment_id: after for before, after in moved_comments}
    followed = sorted((by_print.get(f.fingerprint, f) for f in findings),
                      key=lambda f: (f.severity, -f.confidence, f.file_path, f.start_line))
    moved = len(moved_comments) + sum(1 for before, after in moved_findings
                                      if before.start_line != after.start_line)
    lost = sum(1 for b, a in moved_findings if a.state != b.state)
    return Followed(followed, [by_id.get(c.comment_id, c) for c in comments], moved, lost,
                    problem)


def anchored(comment: ReviewComment, side_line: SideLine) -> ReviewComment:
    """``comment`` with the hash of its lines' text, to follow them when lines move."""
    return comment.model_copy(update={"line_hash": side_hash(
        comment.file_path, comment.side, comment.start_line, comment.end_line, side_line)})


def checked_fix(finding: StoredFinding, file_bytes: FileBytes) -> StoredFinding:
    """``finding`` as an export offers it: an applicable fix whose reviewed lines are no longer
    in the file (it changed since, and they were not found elsewhere) is text only, with the
    reason -- never a suggestion that would replace other lines."""
    fix = finding.fix
    if fix is None or not fix.applicable or holds(fix, file_bytes(finding.file_path)):
        return finding
    return finding.model_copy(update={"fix": fix.model_copy(update={
        "applicable": False, "reason": f"the file moved on: {finding.file_path} {fix.lines} "
                                       "are no longer the reviewed lines"})})


def follow_change(store: SessionStore, session_id: str, loaded: LoadedChange) -> Followed:
    """``follow_session`` on ``loaded``, the change as it was just read."""
    lines = SideLines(loaded.change_set, loaded.reader)
    return follow_session(store, session_id, loaded.units, lines.line, lines.data)
