"""The session store's review records: findings by fingerprint, comments, the verdict, and the
description of the change the person wrote in the workbench.

A mixin of ``SessionStore`` (same file, same transactions), kept in its own module so the store
reads as conversations and this as a review. Merging a new review: a finding seen before keeps
the person's decision (accepted, dismissed with its reason) and gets the new position; one that
had gone or been fixed and is found again is open again; an open finding of a reviewed unit
that the new review does not repeat is ``gone`` — kept, never silently dropped. A finding seen
again keeps the fix it had (one the person asked for) unless the new review brings its own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterable, Sequence

from reviewtui.errors import CommentGoneError, StoreError
from reviewtui.sessions.review_records import (
    AppliedFix,
    FindingState,
    MergeReport,
    ReviewComment,
    ReviewVerdict,
    StoredFinding,
)
from reviewtui.sessions.store_parts import StorePart
from reviewtui.sessions.values import clean_text

_DECIDED: frozenset[str] = frozenset({"accepted", "dismissed"})


class ReviewStore(StorePart):
    """Findings, comments and the verdict of a session (a mixin of ``SessionStore``)."""

    # -- findings ---------------------------------------------------------------------------

    def findings(self, session_id: str) -> list[StoredFinding]:
        """Every finding kept for the session, most severe first."""
        with self._reading() as conn:
            rows = conn.execute("SELECT data FROM findings WHERE session_id = ?",
                                (session_id,)).fetchall()
            found = [StoredFinding.model_validate_json(row["data"]) for row in rows]
        return sorted(found, key=lambda f: (f.severity, -f.confidence, f.file_path,
                                            f.start_line))

    def merge_findings(self, session_id: str, incoming: Iterable[StoredFinding],
                       reviewed: Callable[[StoredFinding], bool]) -> MergeReport:
        """Merge one review's findings; ``reviewed(old)`` says whether that review covered an
        old finding's place (only then can it be ``gone``)."""
        report = MergeReport()
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            kept = {row["fingerprint"]: StoredFinding.model_validate_json(row["data"])
                    for row in conn.execute("SELECT fingerprint, data FROM findings "
                                            "WHERE session_id = ?", (session_id,))}
            seen: set[str] = set()
            for finding in incoming:
                seen.add(finding.fingerprint)
                old = kept.get(finding.fingerprint)
                if old is None:
                    report.new += 1
                    merged = finding.model_copy(update={"state": "open", "first_seen": now,
                                                        "updated_at": now, "reason": None})
                else:
                    state: FindingState = old.state if old.state in _DECIDED else "open"
                    if old.state in ("gone", "fixed"):
                        report.reopened += 1
                    else:
                        report.seen_again += 1
                    merged = finding.model_copy(update={"state": state, "reason": old.reason,
                                                        "first_seen": old.first_seen,
                                                        "updated_at": now,
                                                        "fix": finding.fix or old.fix})
                self._put_finding(conn, session_id, merged)
            for fingerprint, old in kept.items():
                if fingerprint not in seen and old.state == "open" and reviewed(old):
                    report.gone += 1
                    self._put_finding(conn, session_id,
                                      old.model_copy(update={"state": "gone",
                                                             "updated_at": now}))
            self._touch(conn, session_id, now)
        return report

    def set_finding_state(self, session_id: str, fingerprint: str, state: FindingState,
                          reason: str | None = None) -> StoredFinding:
        with self._writing() as conn:
            row = conn.execute("SELECT data FROM findings WHERE session_id = ? AND "
                               "fingerprint = ?", (session_id, fingerprint)).fetchone()
            if row is None:
                raise StoreError(f"no finding {fingerprint[:12]} in session {session_id}")
            now = self._now()
            updated = StoredFinding.model_validate_json(row["data"]).model_copy(
                update={"state": state, "reason": reason if state == "dismissed" else None,
                        "updated_at": now})
            self._put_finding(conn, session_id, updated)
            self._touch(conn, session_id, now)
        return updated

    def update_findings(self, session_id: str, findings: Collection[StoredFinding]) -> None:
        """Store findings as they are now (positions after a refresh, ``fixed`` states)."""
        if not findings:
            return
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            for finding in findings:
                self._put_finding(conn, session_id, finding.model_copy(
                    update={"updated_at": now}))
            self._touch(conn, session_id, now)

    def follow_records(self, session_id: str,
                       findings: Sequence[tuple[StoredFinding, StoredFinding]],
                       comments: Sequence[tuple[ReviewComment, ReviewComment]]) -> int:
        """Store findings and comments at the places their lines moved to: each ``(before,
        after)`` pair is written only where the record is still ``before`` (one another
        process changed meanwhile -- a state set, a comment edited -- is left as it is, to
        be followed the next time). How many were written."""
        if not findings and not comments:
            return 0
        written = 0
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            for before, after in findings:
                row = conn.execute("SELECT data FROM findings WHERE session_id = ? AND "
                                   "fingerprint = ?", (session_id, before.fingerprint)).fetchone()
                if row is not None and StoredFinding.model_validate_json(row["data"]) == before:
                    self._put_finding(conn, session_id, after.model_copy(
                        update={"updated_at": now}))
                    written += 1
            for old, new in comments:
                row = conn.execute("SELECT data FROM comments WHERE session_id = ? AND "
                                   "comment_id = ?", (session_id, old.comment_id)).fetchone()
                if row is not None and ReviewComment.model_validate_json(row["data"]).model_copy(
                        update={"comment_id": old.comment_id}) == old:
                    conn.execute("UPDATE comments SET data = ? WHERE session_id = ? AND "
                                 "comment_id = ?", (self._dump(new), session_id, old.comment_id))
                    written += 1
            if written:
                self._touch(conn, session_id, now)
        return written

    def _put_finding(self, conn: sqlite3.Connection, session_id: str,
                     finding: StoredFinding) -> None:
        conn.execute("INSERT OR REPLACE INTO findings (session_id, fingerprint, data, state, "
                     "first_seen, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                     (session_id, finding.fingerprint, self._dump(finding), finding.state,
                      finding.first_seen or finding.updated_at, finding.updated_at))

    # -- applied fixes ----------------------------------------------------------------------

    def record_applied_fix(self, session_id: str, applied: AppliedFix,
                           finding: StoredFinding) -> AppliedFix:
        """Keep ``applied`` (to undo it) and store ``finding`` as it is after the fix, in one
        transaction."""
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            cursor = conn.execute(
                "INSERT INTO applied_fixes (session_id, fingerprint, file_path, before, "
                "after_sha, state_before, applied_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, applied.fingerprint, applied.file_path, applied.before,
                 applied.after_sha, applied.state_before, now))
            self._put_finding(conn, session_id, finding.model_copy(update={"updated_at": now}))
            self._touch(conn, session_id, now)
        return applied.model_copy(update={"apply_id": cursor.lastrowid, "applied_at": now})

    def applied_fix(self, session_id: str, fingerprint: str | None = None) -> AppliedFix | None:
        """The latest fix applied and not undone (of the finding ``fingerprint``, or any)."""
        query = ("SELECT * FROM applied_fixes WHERE session_id = ? AND undone_at IS NULL"
                 + (" AND fingerprint = ?" if fingerprint else "")
                 + " ORDER BY apply_id DESC LIMIT 1")
        params = (session_id, fingerprint) if fingerprint else (session_id,)
        with self._reading() as conn:
            row = conn.execute(query, params).fetchone()
        if row is None:
            return None
        return AppliedFix(apply_id=row["apply_id"], fingerprint=row["fingerprint"],
                          file_path=row["file_path"], before=bytes(row["before"]),
                          after_sha=row["after_sha"], state_before=row["state_before"],
                          applied_at=row["applied_at"], undone_at=row["undone_at"])

    def record_undone_fix(self, session_id: str, applied: AppliedFix,
                          finding: StoredFinding | None) -> None:
        """Mark ``applied`` undone (it cannot be undone twice) and store ``finding`` back."""
        with self._writing() as conn:
            now = self._now()
            cursor = conn.execute("UPDATE applied_fixes SET undone_at = ? WHERE apply_id = ? "
                                  "AND session_id = ? AND undone_at IS NULL",
                                  (now, applied.apply_id, session_id))
            if cursor.rowcount == 0:
                raise StoreError(f"the fix {applied.apply_id} was already undone")
            if finding is not None:
                self._put_finding(conn, session_id, finding.model_copy(update={"updated_at": now}))
            self._touch(conn, session_id, now)

    # -- comments ---------------------------------------------------------------------------

    def comments(self, session_id: str) -> list[ReviewComment]:
        with self._reading() as conn:
            rows = conn.execute("SELECT comment_id, data FROM comments WHERE session_id = ? "
                                "ORDER BY comment_id", (session_id,)).fetchall()
            return [ReviewComment.model_validate_json(row["data"]).model_copy(
                update={"comment_id": row["comment_id"]}) for row in rows]

    def save_comment(self, session_id: str, comment: ReviewComment) -> ReviewComment:
        """Add the comment (no ``comment_id``) or replace the one with its id."""
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            if comment.comment_id is None:
                saved = comment.model_copy(update={"created_at": now, "updated_at": now})
                cursor = conn.execute("INSERT INTO comments (session_id, data, created_at, "
                                      "updated_at) VALUES (?, ?, ?, ?)",
                                      (session_id, self._dump(saved), now, now))
                saved = saved.model_copy(update={"comment_id": cursor.lastrowid})
            else:
                saved = comment.model_copy(update={"updated_at": now})
                cursor = conn.execute("UPDATE comments SET data = ?, updated_at = ? WHERE "
                                      "session_id = ? AND comment_id = ?",
                                      (self._dump(saved), now, session_id, comment.comment_id))
                if cursor.rowcount == 0:
                    raise CommentGoneError(f"no comment {comment.comment_id} in session "
                                           f"{session_id}")
            self._touch(conn, session_id, now)
        return saved

    def delete_comment(self, session_id: str, comment_id: int) -> bool:
        with self._writing() as conn:
            cursor = conn.execute("DELETE FROM comments WHERE session_id = ? AND comment_id = ?",
                                  (session_id, comment_id))
            return cursor.rowcount > 0

    # -- verdict ----------------------------------------------------------------------------

    def verdict(self, session_id: str) -> ReviewVerdict | None:
        with self._reading() as conn:
            row = conn.execute("SELECT data FROM verdicts WHERE session_id = ?",
                               (session_id,)).fetchone()
            return ReviewVerdict.model_validate_json(row["data"]) if row else None

    def set_verdict(self, session_id: str, verdict: ReviewVerdict) -> ReviewVerdict:
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            saved = verdict.model_copy(update={"updated_at": now})
            conn.execute("INSERT OR REPLACE INTO verdicts (session_id, data, updated_at) "
                         "VALUES (?, ?, ?)", (session_id, self._dump(saved), now))
            self._touch(conn, session_id, now)
        return saved

    # -- the change's description (its stated purpose, written in the workbench) ---------------

    def description(self, session_id: str) -> str | None:
        with self._reading() as conn:
            row = conn.execute("SELECT text FROM descriptions WHERE session_id = ?",
                               (session_id,)).fetchone()
            return str(row["text"]) if row else None

    def change_description(self, repo_key: str, change_key: str) -> str | None:
        """The description last written for this change, in any of its sessions (``ask
        --new`` starts a session; the change's description stays the same)."""
        with self._reading() as conn:
            row = conn.execute(
                "SELECT d.text FROM descriptions d JOIN sessions s USING (session_id) "
                "WHERE s.repo_key = ? AND s.change_key = ? ORDER BY d.updated_at DESC, "
                "d.rowid DESC LIMIT 1", (clean_text(repo_key), clean_text(change_key))).fetchone()
            return str(row["text"]) if row else None

    def set_description(self, session_id: str, text: str) -> None:
        """Keep ``text`` (redacted) as the change's description; blank text removes it."""
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            if text.strip():
                conn.execute("INSERT OR REPLACE INTO descriptions (session_id, text, updated_at) "
                             "VALUES (?, ?, ?)", (session_id, clean_text(text), now))
            else:
                conn.execute("DELETE FROM descriptions WHERE session_id = ?", (session_id,))
            self._touch(conn, session_id, now)
