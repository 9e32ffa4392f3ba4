"""The session store's messages and tool memory: what each round said, and the full output of
every tool call the agent made, under the reference id the conversation keeps in its place.

A mixin of ``SessionStore`` (same file, same transactions), split from ``round_store`` because
messages and tool results are plain appends with no rules of their own: ``RoundStore`` writes
them inside a round's transaction (the question when it opens, the answer's when it ends), and
``add_message`` / ``save_tool_result`` write one on its own.
"""

from __future__ import annotations

import json
import sqlite3

from reviewtui.sessions.records import MessageRecord, ToolResultRecord
from reviewtui.sessions.store_parts import StorePart
from reviewtui.sessions.values import (
    clean_json,
    clean_opt_text,
    clean_text,
    expect,
)

__all__ = ["MessageStore", "message_records"]

_MESSAGE_COLUMNS = ("round_index, role, content, tool_calls, tool_call_id, name, ref_id, tokens, "
                    "created_at")


class MessageStore(StorePart):
    """Messages and tool results of a session (a mixin of ``SessionStore``, through
    ``RoundStore``)."""

    def add_message(self, session_id: str, message: MessageRecord) -> int:
        """Append one message in its own transaction; returns its ``message_id``."""
        message = expect(message, MessageRecord)
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            message_id = self._insert_message(conn, session_id, message, now)
            self._touch(conn, session_id, now)
        return message_id

    def _insert_message(self, conn: sqlite3.Connection, session_id: str,
                        message: MessageRecord, now: str) -> int:
        values = (message.round_index, clean_text(message.role), clean_text(message.content),
                  clean_json(message.tool_calls), clean_opt_text(message.tool_call_id),
                  clean_opt_text(message.name), clean_opt_text(message.ref_id),
                  int(message.tokens), clean_text(message.created_at) or now)
        cursor = conn.execute(
            f"INSERT INTO messages (session_id, {_MESSAGE_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (session_id, *values))
        message_id = cursor.lastrowid
        assert message_id is not None
        return message_id

    def messages(self, session_id: str, *, since_round: int = 0) -> list[MessageRecord]:
        """The session's messages in order, from round ``since_round`` on."""
        with self._reading() as conn:
            return message_records(conn, clean_text(session_id), int(since_round))

    def save_tool_result(self, session_id: str, record: ToolResultRecord) -> None:
        """Keep the full output of a tool call under its ``ref_id`` (saving again replaces:
        the id is a hash of the call and its output, so the same id is the same result)."""
        record = expect(record, ToolResultRecord)
        with self._writing() as conn:
            self._require_session(conn, session_id)
            self._insert_tool_result(conn, session_id, record, self._now())

    def _insert_tool_result(self, conn: sqlite3.Connection, session_id: str,
                            record: ToolResultRecord, now: str) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO tool_results (session_id, ref_id, round_index, tool, "
            "arguments, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session_id, clean_text(record.ref_id), record.round_index, clean_text(record.tool),
             clean_text(record.arguments), clean_text(record.content),
             clean_text(record.created_at) or now))

    def tool_result(self, session_id: str, ref_id: str) -> ToolResultRecord | None:
        with self._reading() as conn:
            row = conn.execute(
                "SELECT ref_id, round_index, tool, arguments, content, created_at "
                "FROM tool_results WHERE session_id = ? AND ref_id = ?",
                (clean_text(session_id), clean_text(ref_id))).fetchone()
            return ToolResultRecord.model_validate(dict(row)) if row is not None else None


def message_records(conn: sqlite3.Connection, session_id: str, since_round: int, *,
                     only: bool = False) -> list[MessageRecord]:
    """The session's messages in order from round ``since_round`` on (``only``: of it alone)."""
    rows = conn.execute(f"SELECT message_id, {_MESSAGE_COLUMNS} FROM messages WHERE "
                        f"session_id = ? AND round_index {'=' if only else '>='} ? "
                        "ORDER BY message_id", (session_id, since_round)).fetchall()
    return [MessageRecord.model_validate({**dict(row), "tool_calls": json.loads(row["tool_calls"])})
            for row in rows]
