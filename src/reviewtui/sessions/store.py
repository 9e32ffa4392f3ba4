"""The persistent session store: conversations, tool memory, overrides and review marks in SQLite.

One file per user (``default_store_path``) serves every repository, so the TUI and
``reviewtui ask`` — two processes — share conversations. Storage keeps everything; what is sent
to the model is decided at send time by the packer. Choices, and why:

* **Atomic writes.** Every public write is one ``BEGIN IMMEDIATE … COMMIT`` transaction (the
  explicit form of ``with conn:``): a message, a round or a decision is either fully in the
  file or not at all. ``IMMEDIATE`` takes the write lock up front, so a second process waits for
  it (``busy_timeout``, 5 s by default) instead of failing with SQLITE_BUSY when a transaction
  that has read would need upgrading to a writer.
* **WAL with synchronous=NORMAL.** In WAL mode a commit appends to the ``-wal`` file, and a
  process killed at any moment loses at most the transaction in flight: SQLite ignores an
  incomplete WAL tail on the next open, so the store is never corrupted. NORMAL skips the fsync
  of every commit that FULL would do; committed data still survives any crash of the *process*
  (it is in the OS's cache), and only an OS crash or power cut may roll back the last few commits,
  which leaves the store consistent, never corrupt. For a chat history written once per streamed
  message that is the right trade. Readers never block the writer, nor the writer the readers.
* **One connection per store object** (``check_same_thread=False``), used behind one lock: the
  TUI calls the store from worker threads.
* **Several processes, one session.** Rounds are numbered by the store inside the write
  transaction and never replaced; a session for a change is found or created in one transaction
  (see ``round_store`` and ``session_for_change``). Two workbenches on one change (or on one
  repository, for the marks) write each decision on its own -- one unit's override
  (``update_overrides``, read and written back in its transaction), one mark, one unmark --
  never the whole set they hold, so neither undoes the other's.
* **No secrets.** API keys are never stored: every text column passes through
  ``redact_secrets``, and a value that is not text (a settings object passed by mistake) is
  refused with ``StoreError`` rather than serialised (``values``).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType

from pydantic import BaseModel, ValidationError

from reviewtui.errors import StoreError
from reviewtui.sessions.decision_store import DecisionStore
from reviewtui.sessions.records import SessionInfo
from reviewtui.sessions.review_store import ReviewStore
from reviewtui.sessions.round_store import RoundStore
from reviewtui.sessions.schema import (
    SCHEMA_VERSION,
    default_store_path,
    describe_error,
    open_connection,
)
from reviewtui.sessions.values import (
    clean_opt_text,
    clean_text,
    redact_secrets,
)

__all__ = [
    "SCHEMA_VERSION",
    "SessionStore",
    "default_store_path",
    "redact_secrets",
]

_BUSY_TIMEOUT = 5.0
_SESSION_COLUMNS = (
    "s.session_id, s.repo_key, s.change_key, s.title, s.created_at, s.updated_at, s.model, "
    "(SELECT count(*) FROM rounds r WHERE r.session_id = s.session_id) AS rounds, "
    "(SELECT count(*) FROM rounds r WHERE r.session_id = s.session_id AND r.answer != '') "
    "AS answered, "
    "(SELECT count(*) FROM rounds r WHERE r.session_id = s.session_id AND r.interrupted = 1) "
    "AS interrupted"
)


class SessionStore(RoundStore, ReviewStore, DecisionStore):
    """The session store at ``path`` (default: ``default_store_path()``), open until closed.

    Sessions are here; rounds in ``RoundStore`` (``round_store``: the store numbers rounds, so
    that processes writing one session at once never share an index), with their messages and
    tool results in ``MessageStore`` (``message_store``); the person's decisions (overrides,
    reviewed marks) in ``DecisionStore`` (``decision_store``: each decision written on its own);
    the person's review records (findings, comments, the verdict) in ``ReviewStore``
    (``review_store``)."""

    def __init__(self, path: Path | None = None, *, busy_timeout: float = _BUSY_TIMEOUT) -> None:
        self.path = (path if path is not None else default_store_path()).expanduser()
        self._lock = threading.RLock()
        self._last = datetime.min.replace(tzinfo=UTC)
        self._conn: sqlite3.Connection | None = open_connection(self.path, busy_timeout)
        self._conn.row_factory = sqlite3.Row

    # -- lifecycle -----------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                conn, self._conn = self._conn, None
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("PRAGMA optimize")
                conn.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"the session store {self.path} is closed")
        return self._conn

    def _now(self) -> str:
        """ISO 8601 UTC, strictly increasing per store so that "latest" is never a tie."""
        now = datetime.now(UTC)
        if now <= self._last:
            now = self._last + timedelta(microseconds=1)
        self._last = now
        return now.isoformat(timespec="microseconds")

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connection()
            try:
                yield conn
            except sqlite3.Error as exc:
                raise describe_error(self.path, exc) from None
            except (ValidationError, json.JSONDecodeError) as exc:
                first = str(exc).splitlines()[0]
                raise StoreError(f"session store {self.path}: a stored record is unreadable "
                                 f"({first})", hint="move the file away to start fresh") from None

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise describe_error(self.path, exc) from None
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise describe_error(self.path, exc) from None
                raise

    def _dump(self, record: BaseModel) -> str:
        """A record as JSON for a row, with anything that looks like a key redacted."""
        return clean_text(record.model_dump_json())

    def _require_session(self, conn: sqlite3.Connection, session_id: str) -> None:
        row = conn.execute("SELECT 1 FROM sessions WHERE session_id = ?",
                           (clean_text(session_id),)).fetchone()
        if row is None:
            raise StoreError(f"no session {session_id} in {self.path}")

    def _touch(self, conn: sqlite3.Connection, session_id: str, now: str) -> None:
        conn.execute("UPDATE sessions SET updated_at = max(updated_at, ?) WHERE session_id = ?",
                     (now, session_id))

    # -- sessions ------------------------------------------------------------------------------

    def create_session(self, repo_key: str, change_key: str, title: str,
                       model: str | None = None) -> SessionInfo:
        values = (clean_text(repo_key), clean_text(change_key), clean_text(title),
                  clean_opt_text(model))
        with self._writing() as conn:
            return self._insert_session(conn, *values)

    def _insert_session(self, conn: sqlite3.Connection, repo_key: str, change_key: str,
                        title: str, model: str | None) -> SessionInfo:
        now = self._now()
        while True:
            session_id = f"s_{secrets.token_hex(4)}"
            if conn.execute("SELECT 1 FROM sessions WHERE session_id = ?",
                            (session_id,)).fetchone() is None:
                break
        conn.execute(
            "INSERT INTO sessions (session_id, repo_key, change_key, title, created_at, "
            "updated_at, model) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session_id, repo_key, change_key, title, now, now, model))
        return SessionInfo(session_id=session_id, repo_key=repo_key, change_key=change_key,
                           title=title, created_at=now, updated_at=now, model=model)

    def session(self, session_id: str) -> SessionInfo | None:
        """The session with this id, or with this unique prefix (``s_`` may be left out).

        ``StoreError`` if the prefix is ambiguous.
        """
        wanted = clean_text(session_id)
        with self._reading() as conn:
            row = conn.execute(f"SELECT {_SESSION_COLUMNS} FROM sessions s "
                               "WHERE s.session_id = ?", (wanted,)).fetchone()
            if row is not None or not wanted:
                return _session_info(row) if row is not None else None
            prefixes = {wanted} if wanted.startswith("s_") else {wanted, f"s_{wanted}"}
            rows: dict[str, sqlite3.Row] = {}
            for prefix in prefixes:
                for found in conn.execute(
                        f"SELECT {_SESSION_COLUMNS} FROM sessions s "
                        "WHERE substr(s.session_id, 1, ?) = ? LIMIT 3", (len(prefix), prefix)):
                    rows[found["session_id"]] = found
        if len(rows) > 1:
            names = ", ".join(sorted(rows)[:3])
            raise StoreError(f"session {session_id!r} is ambiguous: it matches {names}",
                             hint="give more of the id")
        return _session_info(next(iter(rows.values()))) if rows else None

    def latest_session(self, repo_key: str, change_key: str) -> SessionInfo | None:
        """The most recently updated session about this change of this repository."""
        with self._reading() as conn:
            row = conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM sessions s WHERE s.repo_key = ? "
                "AND s.change_key = ? ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1",
                (clean_text(repo_key), clean_text(change_key))).fetchone()
        return _session_info(row) if row is not None else None

    def latest_session_of_range_to(self, repo_key: str, commit: str) -> SessionInfo | None:
        """The most recently updated session about a range that ends at ``commit`` (a pull
        request's head it had before: ``range:BASE..COMMIT``)."""
        if not commit.isalnum():
            return None
        with self._reading() as conn:
            row = conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM sessions s WHERE s.repo_key = ? "
                "AND s.change_key LIKE ? ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1",
                (clean_text(repo_key), f"range:%..{commit}")).fetchone()
        return _session_info(row) if row is not None else None

    def session_for_change(self, repo_key: str, change_key: str, title: str,
                           model: str | None = None) -> SessionInfo:
        """The session of this change (the latest), created when there is none yet — in one
        write transaction, so processes starting together on a new change share one session."""
        values = (clean_text(repo_key), clean_text(change_key), clean_text(title),
                  clean_opt_text(model))
        with self._writing() as conn:
            row = conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM sessions s WHERE s.repo_key = ? "
                "AND s.change_key = ? ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1",
                values[:2]).fetchone()
            return _session_info(row) if row is not None else self._insert_session(conn,
                                                                                   *values)

    def list_sessions(self, repo_key: str | None = None, limit: int = 50) -> list[SessionInfo]:
        """Sessions, most recently updated first, with their round counts; ``limit <= 0``, or
        one beyond what SQLite counts (``--limit 99999999999999999999``): all."""
        where, params = ("", ()) if repo_key is None else ("WHERE s.repo_key = ?",
                                                          (clean_text(repo_key),))
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM sessions s {where} "
                "ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?",
                (*params, limit if 0 < limit < 2**63 else -1)).fetchall()
        return [_session_info(row) for row in rows]

    def delete_session(self, session_id: str) -> bool:
        """Delete a session (exact id) with its rounds, messages, tool results and overrides."""
        with self._writing() as conn:
            cursor = conn.execute("DELETE FROM sessions WHERE session_id = ?",
                                  (clean_text(session_id),))
            return cursor.rowcount > 0


def _session_info(row: sqlite3.Row) -> SessionInfo:
    return SessionInfo.model_validate(dict(row))
