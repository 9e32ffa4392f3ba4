"""The session store's part for the person's decisions: overrides and "reviewed" marks.

A mixin of ``SessionStore`` (same file, same transactions). Overrides are kept per session (a
change), as one set; "reviewed" marks per repository, apart from sessions (a unit stays
reviewed across chats and changes).

Several workbenches may be open on one change, or on one repository, at once. Each writes every
decision on its own, in its own transaction: one unit's override (``update_overrides`` reads
the set as stored and writes it back with that one unit changed), one mark, one unmark. None
writes the whole set it holds in memory, which would undo what the others decided since it
read it (the last writer would win).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from reviewtui.errors import StoreError
from reviewtui.sessions.marks import ReviewMark
from reviewtui.sessions.store_parts import StorePart
from reviewtui.sessions.values import clean_text, expect, refuse

if TYPE_CHECKING:  # imported when used: ``reviewtui.plan`` pulls in the LLM client (slow)
    from reviewtui.plan.schema import OverrideSet, UnitOverride


_PATHS_PER_QUERY = 500  # below SQLite's oldest limit of 999 bound variables
_MARK_COLUMNS = ("SELECT file_path, content_id, unit_key, unit_id, first_line, last_line, "
                 "marked_at FROM unit_marks WHERE repo_key = ?")


class DecisionStore(StorePart):
    """Overrides per session, reviewed marks per repository (a mixin of ``SessionStore``)."""

    # -- overrides -----------------------------------------------------------------------------

    def set_overrides(self, session_id: str, overrides: OverrideSet) -> None:
        """Replace the session's whole set (an import). The workbench never does: two of
        them on one change would undo each other's decisions; it writes each decision with
        ``update_overrides``."""
        from reviewtui.plan.schema import OverrideSet

        data = clean_text(expect(overrides, OverrideSet).model_dump_json())
        with self._writing() as conn:
            self._require_session(conn, session_id)
            self._write_overrides(conn, session_id, data)

    def update_overrides(self, session_id: str, changes: Mapping[str, UnitOverride | None], *,
                         moves: Mapping[str, str] | None = None,
                         start: OverrideSet | None = None) -> None:
        """The person's decisions on single units, in one transaction over the set as it is
        stored now: each ``moves`` old id's decision goes to its new id (a refresh: the unit
        was edited; not when the new id has one, nor when another process took it back), then
        each unit of ``changes`` gets its override (None or empty: none). Every other unit's
        decision, whoever wrote it, stays. A session with no set yet starts from ``start``
        (the decisions the workbench carried over from the repository's other changes)."""
        from reviewtui.plan.schema import OverrideSet, UnitOverride

        with self._writing() as conn:
            self._require_session(conn, session_id)
            row = conn.execute("SELECT data FROM overrides WHERE session_id = ?",
                               (session_id,)).fetchone()
            stored = (OverrideSet.model_validate_json(row["data"]) if row is not None
                      else expect(start, OverrideSet) if start is not None else OverrideSet())
            units = dict(stored.units)
            for old, new in (moves or {}).items():
                if old in units and new not in units:
                    units[new] = units.pop(old)
            for unit_id, override in changes.items():
                if override is None or expect(override, UnitOverride).is_empty:
                    units.pop(unit_id, None)
                else:
                    units[unit_id] = override
            data = clean_text(OverrideSet(units=units).model_dump_json())
            self._write_overrides(conn, session_id, data)

    def _write_overrides(self, conn: sqlite3.Connection, session_id: str, data: str) -> None:
        now = self._now()
        conn.execute("INSERT OR REPLACE INTO overrides (session_id, data, updated_at) "
                     "VALUES (?, ?, ?)", (session_id, data, now))
        self._touch(conn, session_id, now)

    def overrides(self, session_id: str) -> OverrideSet:
        """The session's overrides; empty if it has none."""
        from reviewtui.plan.schema import OverrideSet

        return self.saved_overrides(session_id) or OverrideSet()

    def saved_overrides(self, session_id: str) -> OverrideSet | None:
        """The session's overrides, or None when none were ever saved (not even emptied)."""
        from reviewtui.plan.schema import OverrideSet

        with self._reading() as conn:
            row = conn.execute("SELECT data FROM overrides WHERE session_id = ?",
                               (clean_text(session_id),)).fetchone()
            return OverrideSet.model_validate_json(row["data"]) if row else None

    def overrides_of_units(self, repo_key: str, unit_ids: Collection[str],
                           sessions: int = 50) -> OverrideSet:
        """The person's latest decisions on these units in any change of the repository: a
        unit's id is its content (paths, hunks, changed lines), so the same unit in the change
        a commit made of the working tree, or in a rebased range, gets them back."""
        from reviewtui.plan.schema import OverrideSet

        wanted, found = set(unit_ids), OverrideSet()
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT o.data FROM overrides o JOIN sessions s ON s.session_id = o.session_id "
                "WHERE s.repo_key = ? ORDER BY o.updated_at DESC, o.rowid DESC LIMIT ?",
                (clean_text(repo_key), sessions)).fetchall()
        for row in rows:
            for unit_id, override in OverrideSet.model_validate_json(row["data"]).units.items():
                if unit_id in wanted and unit_id not in found.units and not override.is_empty:
                    found.units[unit_id] = override
        return found

    # -- review marks (per repository, independent of sessions) ---------------------------------

    def mark_reviewed(self, repo_key: str, mark: ReviewMark) -> None:
        """Keep one mark (``sessions.marks``); the same content marked again is one mark."""
        if not isinstance(mark, ReviewMark):
            refuse(mark)
        with self._writing() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO unit_marks (repo_key, file_path, content_id, unit_key, "
                "unit_id, first_line, last_line, marked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (clean_text(repo_key), clean_text(mark.file_path), clean_text(mark.content_id),
                 clean_text(mark.unit_key), clean_text(mark.unit_id), _line(mark.first_line),
                 _line(mark.last_line), self._now()))

    def unmark_reviewed(self, repo_key: str, file_path: str, content_id: str) -> None:
        """Take back one mark: this content of this file (no other mark is touched)."""
        with self._writing() as conn:
            conn.execute("DELETE FROM unit_marks WHERE repo_key = ? AND file_path = ? "
                         "AND content_id = ?",
                         (clean_text(repo_key), clean_text(file_path), clean_text(content_id)))

    def review_marks(self, repo_key: str,
                     paths: Collection[str] | None = None) -> list[ReviewMark]:
        """The marks in this repository, oldest first (see ``sessions.marks``): every one, or
        those of the files at ``paths``. A change is matched against the marks of its own files
        only, and a repository's marks only grow: read whole, 50,000 of them (a year of
        marking) took 0.39 s on each opening and each refresh; those of a 100-file change
        among them, 0.02 s."""
        key = clean_text(repo_key)
        wanted = {clean_text(p) for p in paths} if paths is not None else None
        with self._reading() as conn:
            if wanted is not None and len(wanted) <= _PATHS_PER_QUERY:
                rows = conn.execute(
                    f"{_MARK_COLUMNS} AND file_path IN ({', '.join('?' * len(wanted))}) "
                    "ORDER BY marked_at, rowid", (key, *sorted(wanted))).fetchall()
            else:  # all of them (more paths than one query binds: filtered here)
                rows = conn.execute(f"{_MARK_COLUMNS} ORDER BY marked_at, rowid",
                                    (key,)).fetchall()
                if wanted is not None:
                    rows = [row for row in rows if row["file_path"] in wanted]
        return [ReviewMark(row["file_path"], row["content_id"], row["unit_key"], row["unit_id"],
                           row["first_line"], row["last_line"], row["marked_at"])
                for row in rows]


def _line(number: object) -> int | None:
    if number is None:
        return None
    if not isinstance(number, int) or isinstance(number, bool):
        raise StoreError(f"a line number must be a whole number, not {number!r}")
    return number
