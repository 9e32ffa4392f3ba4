"""What ``reviewtui export`` and the workbench's ``X`` hand over: this change's review, whole.

Gathers the session's findings, comments and verdict, which units were reviewed, skipped or left
(the "reviewed" marks follow a unit's content, see ``sessions.marks``; the plan with the
person's overrides says what is skipped), and the quoted lines -- findings and comments first
followed to their lines as they are now (``agent.follow``) --, redacts them (``llm.redact``,
the configured key too), then renders them (``sessions.export``; rdjson in
``sessions.export_rdjson``). The same function serves the command line and the workbench, so
both export the same thing.
"""

from __future__ import annotations

from pathlib import Path

from reviewtui.agent.follow import Followed, checked_fix, follow_session
from reviewtui.agent.workspace import Workspace
from reviewtui.errors import UsageError
from reviewtui.llm import resolve_llm
from reviewtui.llm.redact import redact_value
from reviewtui.sessions.export import (
    ExportedReview,
    ExportedUnit,
    UnitStatus,
    build_export,
    render_export,
)
from reviewtui.sessions.export_intent import ExportedIntent
from reviewtui.sessions.export_rdjson import render_rdjson
from reviewtui.sessions.marks import ReviewMarks, commit_time
from reviewtui.sessions.store import SessionStore
from reviewtui.units.identity import UnitContents

FORMATS = ("markdown", "json", "sarif", "rdjson")


def gather(ws: Workspace, store: SessionStore, session_id: str | None, *,
           everything: bool = False) -> ExportedReview:
    loaded = ws.loaded
    marks = ReviewMarks(store.review_marks(ws.repo_key, {u.file_path for u in loaded.units}),
                        version_time=lambda: commit_time(loaded.repo, loaded.change_set.new_side))
    reviewed = marks.statuses(loaded.units, UnitContents(loaded.units))
    items = {item.unit_id: item for item in ws.plan.plan}
    units: list[ExportedUnit] = []
    for unit in loaded.units:
        item = items.get(unit.unit_id)
        mark = reviewed.get(unit.unit_id, "new")
        status: UnitStatus = (
            "reviewed" if mark == "reviewed" else "changed" if mark == "changed"
            else "skipped" if item is not None and item.skip_review else "left")
        units.append(ExportedUnit(unit_id=unit.unit_id, location=unit.location,
                                  file_path=unit.file_path, status=status,
                                  risk=item.risk if item else None))

    def quote(path: str, side: str, start: int, end: int) -> list[str]:
        lines: list[str] = []
        for number in range(start, end + 1):
            text = ws.side_line(path, side, number)
            if text is not None:
                lines.append(f"{number:>5} | {text}")
        return lines

    # the findings and comments at their lines as they are now (moved with their text, or
    # "fixed?" when it is gone), each fix offered only where its reviewed lines still are
    followed = (follow_session(store, session_id, ws.loaded.units, ws.side_line,
                               ws.file_bytes) if session_id else Followed([], []))
    meta = ws.index.review_metadata
    return build_export(
        f"{meta.mode}: {meta.old} -> {meta.new}", session_id,
        store.verdict(session_id) if session_id else None,
        [checked_fix(f, ws.file_bytes) for f in followed.findings],
        followed.comments, units, quote,
        everything=everything,
        intent=ExportedIntent.of(ws.loaded.intent) if ws.loaded.intent is not None else None)


def redacted(ws: Workspace, review: ExportedReview) -> ExportedReview:
    """``review`` as it may leave the machine (an export, a publish): everything in it, the
    quoted lines too, redacted as the store keeps text -- no secret, nor the configured key,
    whatever its shape."""
    key = resolve_llm(ws.loaded.settings.llm).api_key
    return ExportedReview.model_validate(redact_value(review.model_dump(mode="json"), key))


def export_review(ws: Workspace, store: SessionStore, fmt: str, *,
                  everything: bool = False) -> tuple[str, ExportedReview]:
    """The rendered review of the workspace's change (its latest session), and its data."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown export format {fmt!r}", hint="markdown, json, sarif or rdjson")
    session = store.latest_session(ws.repo_key, ws.change_key)
    review = redacted(ws, gather(ws, store, session.session_id if session else None,
                                 everything=everything))
    text = render_rdjson(review) if fmt == "rdjson" else render_export(review, fmt)
    return text, review


def write_export(text: str, path: str | Path) -> Path:
    """Write ``text`` to ``path`` (folders created); a path that cannot be written is a
    ``UsageError`` naming it, and nothing else is touched."""
    target = Path(path).expanduser()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except (FileExistsError, NotADirectoryError):
        # a file where a folder of the path should be: the OS says "File exists"
        blocking = next((p for p in (target.parent, *target.parent.parents)
                         if p.exists() and not p.is_dir()), target.parent)
        raise UsageError(f"cannot write {target}: {blocking} is a file, not a folder") from None
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    return target
