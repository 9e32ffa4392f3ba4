"""The persistent session store: conversations, tool memory, overrides and review marks in SQLite.

One file per user (``default_store_path``) serves every repository, so the TUI and
``reviewtui ask`` — two processes — share conversations. Storage keeps everything; what is sent
to the model is decided at send time by the packer. Choices, and why:

* **Atomic writes.** Every public write is one ``BEGIN IMMEDIATE … COMMIT`` transaction (the
  explicit form of ``with conn:``): a message, a round or an override set is either fully in the
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
* **No secrets.** API keys are never stored: every text column passes through
  ``redact_secrets``, and a value that is not text (a settings object passed by mistake) is
  refused with ``StoreError`` rather than serialised.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Literal, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError

from reviewtui.errors import StoreError
from reviewtui.llm.redact import redact_secrets
from reviewtui.sessions.records import (
    MessageRecord,
    RoundRecord,
    SessionInfo,
    ToolResultRecord,
)
from reviewtui.sessions.review_store import ReviewStore
from reviewtui.sessions.schema import (
    SCHEMA_VERSION,
    default_store_path,
    describe_error,
    open_connection,
)

if TYPE_CHECKING:  # imported when used: ``reviewtui.plan`` pulls in the LLM client (slow)
    from reviewtui.plan.schema import OverrideSet

__all__ = [
    "SCHEMA_VERSION",
    "ReviewStatus",
    "SessionStore",
    "default_store_path",
    "redact_secrets",
    "review_status",
]

ReviewStatus = Literal["new", "reviewed", "changed"]

_BUSY_TIMEOUT = 5.0
_SESSION_COLUMNS = (
    "s.session_id, s.repo_key, s.change_key, s.title, s.created_at, s.updated_at, s.model, "
    "(SELECT count(*) FROM rounds r WHERE r.session_id = s.session_id) AS rounds"
)
_ROUND_COLUMNS = (
    "idx, user_message, answer, files, units, inherited_files, keywords, summary, prompt_tokens, "
    "completion_tokens, cached_tokens, started_at, ended_at, cut_off"
)
_ROUND_SLOTS = ", ".join("?" * (_ROUND_COLUMNS.count(",") + 2))  # session_id + the columns
_LIST_FIELDS = ("files", "units", "inherited_files", "keywords")
_R = TypeVar("_R", bound=BaseModel)


def review_status(marks: Mapping[str, str], unit_key: str, content_hash: str) -> ReviewStatus:
    """``reviewed`` if the unit was marked for this content, ``changed`` if for other content."""
    marked = marks.get(unit_key)
    if marked is None:
        return "new"
    return "reviewed" if marked == content_hash else "changed"


def _refuse(value: object) -> NoReturn:
    raise StoreError(f"refusing to store a {type(value).__name__}: the session store keeps "
                     "text and JSON only (settings and API keys are never stored)")


def _text(value: object) -> str:
    if not isinstance(value, str):
        _refuse(value)
    return redact_secrets(value)


def _opt_text(value: object) -> str | None:
    return None if value is None else _text(value)


def _json(value: object) -> str:
    return redact_secrets(json.dumps(value, ensure_ascii=False, default=_refuse))


def _expect(value: object, kind: type[_R]) -> _R:
    if not isinstance(value, kind):
        _refuse(value)
    return value


class SessionStore(ReviewStore):
    """The session store at ``path`` (default: ``default_store_path()``), open until closed.

    Conversations are here; the person's review records (findings, comments, the verdict) are
    in ``ReviewStore`` (``review_store``)."""

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
        return _text(record.model_dump_json())

    def _require_session(self, conn: sqlite3.Connection, session_id: str) -> None:
        row = conn.execute("SELECT 1 FROM sessions WHERE session_id = ?",
                           (_text(session_id),)).fetchone()
        if row is None:
            raise StoreError(f"no session {session_id} in {self.path}")

    def _touch(self, conn: sqlite3.Connection, session_id: str, now: str) -> None:
        conn.execute("UPDATE sessions SET updated_at = max(updated_at, ?) WHERE session_id = ?",
                     (now, session_id))

    # -- sessions ------------------------------------------------------------------------------

    def create_session(self, repo_key: str, change_key: str, title: str,
                       model: str | None = None) -> SessionInfo:
        values = (_text(repo_key), _text(change_key), _text(title), _opt_text(model))
        with self._writing() as conn:
            now = self._now()
            while True:
                session_id = f"s_{secrets.token_hex(4)}"
                if conn.execute("SELECT 1 FROM sessions WHERE session_id = ?",
                                (session_id,)).fetchone() is None:
                    break
            conn.execute(
                "INSERT INTO sessions (session_id, repo_key, change_key, title, created_at, "
                "updated_at, model) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, values[0], values[1], values[2], now, now, values[3]))
        return SessionInfo(session_id=session_id, repo_key=values[0], change_key=values[1],
                           title=values[2], created_at=now, updated_at=now, model=values[3])

    def session(self, session_id: str) -> SessionInfo | None:
        """The session with this id, or with this unique prefix (``s_`` may be left out).

        ``StoreError`` if the prefix is ambiguous.
        """
        wanted = _text(session_id)
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
                (_text(repo_key), _text(change_key))).fetchone()
        return _session_info(row) if row is not None else None

    def session_for_change(self, repo_key: str, change_key: str, title: str,
                           model: str | None = None) -> SessionInfo:
        """The session of this change (the latest), created when there is none yet."""
        found = self.latest_session(repo_key, change_key)
        return found if found is not None else self.create_session(repo_key, change_key, title,
                                                                   model=model)

    def list_sessions(self, repo_key: str | None = None, limit: int = 50) -> list[SessionInfo]:
        """Sessions, most recently updated first, with their round counts; ``limit <= 0``: all."""
        where, params = ("", ()) if repo_key is None else ("WHERE s.repo_key = ?",
                                                          (_text(repo_key),))
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM sessions s {where} "
                "ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?",
                (*params, limit if limit > 0 else -1)).fetchall()
        return [_session_info(row) for row in rows]

    def delete_session(self, session_id: str) -> bool:
        """Delete a session (exact id) with its rounds, messages, tool results and overrides."""
        with self._writing() as conn:
            cursor = conn.execute("DELETE FROM sessions WHERE session_id = ?",
                                  (_text(session_id),))
            return cursor.rowcount > 0

    # -- rounds --------------------------------------------------------------------------------

    def start_round(self, session_id: str, record: RoundRecord) -> None:
        """Record a round in flight (``ended_at`` stays empty until ``end_round``).

        Starting a round that is still in flight again (after a crash) replaces it; starting
        one that has ended is refused: its answer would be lost.
        """
        record = _expect(record, RoundRecord)
        with self._writing() as conn:
            self._require_session(conn, session_id)
            existing = conn.execute("SELECT ended_at FROM rounds WHERE session_id = ? AND idx = ?",
                                    (session_id, record.index)).fetchone()
            if existing is not None and existing["ended_at"] is not None:
                raise StoreError(f"round {record.index} of session {session_id} has already "
                                 "ended")
            now = self._now()
            values = _round_values(record, started_at=record.started_at or now, ended_at=None)
            conn.execute(f"INSERT OR REPLACE INTO rounds (session_id, {_ROUND_COLUMNS}) "
                         f"VALUES ({_ROUND_SLOTS})", (session_id, *values))
            self._touch(conn, session_id, now)

    def end_round(self, session_id: str, record: RoundRecord) -> None:
        """Complete a round: answer, files, units, keywords, tokens and ``ended_at`` (now if
        unset). A round that was never started is inserted whole; a summary is kept if the
        record has none."""
        record = _expect(record, RoundRecord)
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            values = _round_values(record, started_at=record.started_at or now,
                                   ended_at=record.ended_at or now)
            conn.execute(
                f"INSERT INTO rounds (session_id, {_ROUND_COLUMNS}) "
                f"VALUES ({_ROUND_SLOTS}) ON CONFLICT (session_id, idx) DO UPDATE SET "
                "answer = excluded.answer, files = excluded.files, units = excluded.units, "
                "inherited_files = excluded.inherited_files, keywords = excluded.keywords, "
                "summary = coalesce(excluded.summary, rounds.summary), "
                "prompt_tokens = excluded.prompt_tokens, "
                "completion_tokens = excluded.completion_tokens, "
                "cached_tokens = excluded.cached_tokens, ended_at = excluded.ended_at, "
                "cut_off = excluded.cut_off",
                (session_id, *values))
            self._touch(conn, session_id, now)

    def update_round_summary(self, session_id: str, index: int, summary: str) -> None:
        with self._writing() as conn:
            cursor = conn.execute(
                "UPDATE rounds SET summary = ? WHERE session_id = ? AND idx = ?",
                (_text(summary), _text(session_id), int(index)))
            if cursor.rowcount == 0:
                raise StoreError(f"no round {index} in session {session_id}")

    def rounds(self, session_id: str) -> list[RoundRecord]:
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE session_id = ? "
                                "ORDER BY idx", (_text(session_id),)).fetchall()
            return [_round_record(row) for row in rows]

    # -- messages and tool memory --------------------------------------------------------------

    def add_message(self, session_id: str, message: MessageRecord) -> int:
        """Append one message in its own transaction; returns its ``message_id``."""
        message = _expect(message, MessageRecord)
        values = (message.round_index, _text(message.role), _text(message.content),
                  _json(message.tool_calls), _opt_text(message.tool_call_id),
                  _opt_text(message.name), _opt_text(message.ref_id), int(message.tokens))
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            cursor = conn.execute(
                "INSERT INTO messages (session_id, round_index, role, content, tool_calls, "
                "tool_call_id, name, ref_id, tokens, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, *values, _text(message.created_at) or now))
            self._touch(conn, session_id, now)
            message_id = cursor.lastrowid
        assert message_id is not None
        return message_id

    def messages(self, session_id: str, *, since_round: int = 0) -> list[MessageRecord]:
        """The session's messages in order, from round ``since_round`` on."""
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT message_id, round_index, role, content, tool_calls, tool_call_id, name, "
                "ref_id, tokens, created_at FROM messages WHERE session_id = ? "
                "AND round_index >= ? ORDER BY message_id",
                (_text(session_id), int(since_round))).fetchall()
            return [MessageRecord.model_validate({**dict(row),
                                                  "tool_calls": json.loads(row["tool_calls"])})
                    for row in rows]

    def save_tool_result(self, session_id: str, record: ToolResultRecord) -> None:
        """Keep the full output of a tool call under its ``ref_id`` (saving again replaces)."""
        record = _expect(record, ToolResultRecord)
        values = (_text(record.ref_id), record.round_index, _text(record.tool),
                  _text(record.arguments), _text(record.content))
        with self._writing() as conn:
            self._require_session(conn, session_id)
            conn.execute(
                "INSERT OR REPLACE INTO tool_results (session_id, ref_id, round_index, tool, "
                "arguments, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, *values, _text(record.created_at) or self._now()))

    def tool_result(self, session_id: str, ref_id: str) -> ToolResultRecord | None:
        with self._reading() as conn:
            row = conn.execute(
                "SELECT ref_id, round_index, tool, arguments, content, created_at "
                "FROM tool_results WHERE session_id = ? AND ref_id = ?",
                (_text(session_id), _text(ref_id))).fetchone()
            return ToolResultRecord.model_validate(dict(row)) if row is not None else None

    # -- overrides -----------------------------------------------------------------------------

    def set_overrides(self, session_id: str, overrides: OverrideSet) -> None:
        from reviewtui.plan.schema import OverrideSet

        data = _text(_expect(overrides, OverrideSet).model_dump_json())
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            conn.execute("INSERT OR REPLACE INTO overrides (session_id, data, updated_at) "
                         "VALUES (?, ?, ?)", (session_id, data, now))
            self._touch(conn, session_id, now)

    def overrides(self, session_id: str) -> OverrideSet:
        """The session's overrides; empty if it has none."""
        from reviewtui.plan.schema import OverrideSet

        with self._reading() as conn:
            row = conn.execute("SELECT data FROM overrides WHERE session_id = ?",
                               (_text(session_id),)).fetchone()
            return OverrideSet.model_validate_json(row["data"]) if row else OverrideSet()

    # -- review marks (per repository, independent of sessions) ---------------------------------

    def mark_reviewed(self, repo_key: str, unit_key: str, content_hash: str) -> None:
        with self._writing() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO review_marks (repo_key, unit_key, content_hash, "
                "marked_at) VALUES (?, ?, ?, ?)",
                (_text(repo_key), _text(unit_key), _text(content_hash), self._now()))

    def unmark_reviewed(self, repo_key: str, unit_key: str) -> None:
        with self._writing() as conn:
            conn.execute("DELETE FROM review_marks WHERE repo_key = ? AND unit_key = ?",
                         (_text(repo_key), _text(unit_key)))

    def review_marks(self, repo_key: str) -> dict[str, str]:
        """``unit_key -> content_hash`` of every mark in this repository (see ``review_status``)."""
        with self._reading() as conn:
            rows = conn.execute("SELECT unit_key, content_hash FROM review_marks "
                                "WHERE repo_key = ?", (_text(repo_key),)).fetchall()
        return {row["unit_key"]: row["content_hash"] for row in rows}


def _session_info(row: sqlite3.Row) -> SessionInfo:
    return SessionInfo.model_validate(dict(row))


def _round_values(record: RoundRecord, *, started_at: str,
                  ended_at: str | None) -> tuple[object, ...]:
    return (record.index, _text(record.user_message), _text(record.answer),
            *(_json(getattr(record, name)) for name in _LIST_FIELDS),
            _opt_text(record.summary), int(record.prompt_tokens), int(record.completion_tokens),
            int(record.cached_tokens), _text(started_at), _opt_text(ended_at),
            int(record.cut_off))


def _round_record(row: sqlite3.Row) -> RoundRecord:
    data = dict(row)
    data["index"] = data.pop("idx")
    data["cut_off"] = bool(data["cut_off"])
    for name in _LIST_FIELDS:
        data[name] = json.loads(data[name])
    return RoundRecord.model_validate(data)
