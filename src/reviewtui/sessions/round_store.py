"""The session store's conversations: their rounds (the messages and tool memory a round writes
are ``message_store``'s).

A mixin of ``SessionStore`` (same file, same transactions), kept in its own module so that the
rules about rounds are in one place. Several processes write one session at once (the workbench
is open while ``reviewtui ask`` runs in another shell, or many ``ask`` runs start together), so:

* **The store numbers rounds.** ``open_round`` takes the next index inside its ``BEGIN
  IMMEDIATE`` transaction (the write lock is held from the ``SELECT max`` to the ``INSERT``), so
  two processes never get the same index and each question is its own round. An index the
  caller chose (``start_round``) that is taken is refused.
* **A round is never replaced.** There is no ``INSERT OR REPLACE`` on rounds: starting a taken
  index is an error, and ending a round that has already ended is an error (its answer would be
  lost).
* **A reader sees whole rounds.** A round is written twice, each time in one transaction: the
  question opens it (the round in flight, with the user's message), and the answer closes it
  together with every message and tool result the answer produced. A reader that opens the
  session in between sees the question in flight, never half an answer; a process killed while
  the model streams leaves just that round in flight, which the next ``open_round`` steps over.
* **One continuation per unfinished answer.** A round that goes on with an unfinished answer
  (``continues``) claims that round in the transaction that opens it: a conditional ``UPDATE``
  of the round's ``continued_by``, which only succeeds while nobody holds it, so of two
  processes that ``ask --continue`` at once one opens its round and the other is refused
  (``RoundClaimedError``) without writing anything. A continuation that fails gives its claim
  back (``release_claim``); one whose process was killed holds it until it is older than the
  ``claim_stale_after`` seconds the caller allows a round to take.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import datetime, timedelta

from reviewtui.errors import RoundClaimedError, StoreError
from reviewtui.sessions.message_store import MessageStore, message_records
from reviewtui.sessions.records import (
    MessageRecord,
    RoundRecord,
    ToolResultRecord,
    said_nothing,
)
from reviewtui.sessions.values import (
    clean_json,
    clean_opt_text,
    clean_text,
    expect,
)

_ROUND_COLUMNS = (
    "idx, user_message, answer, files, units, inherited_files, keywords, summary, prompt_tokens, "
    "completion_tokens, cached_tokens, started_at, ended_at, cut_off, truncated, continues, "
    "interrupted, filtered"
)
_ROUND_SLOTS = ", ".join("?" * (_ROUND_COLUMNS.count(",") + 2))  # session_id + the columns
_LIST_FIELDS = ("files", "units", "inherited_files", "keywords")


class RoundStore(MessageStore):
    """Rounds of a session (a mixin of ``SessionStore``); a round is written together with its
    messages and tool results (``MessageStore``), in one transaction."""

    # -- rounds --------------------------------------------------------------------------------

    def open_round(self, session_id: str, record: RoundRecord,
                   messages: Iterable[MessageRecord] = (), *,
                   claim_stale_after: float | None = None) -> RoundRecord:
        """Record a round in flight under the session's next free index, with its first
        ``messages`` (the question), in one transaction; returns the record with that index
        (``record.index`` is only the caller's guess). A round that ``continues`` another
        claims it in the same transaction: ``RoundClaimedError`` (nothing written) when
        another round holds the claim -- one that ended, or one in flight that started less
        than ``claim_stale_after`` seconds ago (None: however long ago)."""
        record = expect(record, RoundRecord)
        messages = [expect(m, MessageRecord) for m in messages]
        with self._writing() as conn:
            self._require_session(conn, session_id)
            row = conn.execute("SELECT coalesce(max(idx) + 1, 0) FROM rounds "
                               "WHERE session_id = ?", (session_id,)).fetchone()
            now = self._now()
            record = record.model_copy(update={"index": int(row[0]),
                                               "started_at": record.started_at or now,
                                               "ended_at": None})
            if record.continues is not None:
                self._claim(conn, session_id, record.continues, record.index,
                            _before(now, claim_stale_after))
            self._insert_round(conn, session_id, record)
            for message in messages:
                self._insert_message(conn, session_id, message.model_copy(
                    update={"round_index": record.index}), now)
            self._touch(conn, session_id, now)
        return record

    def _claim(self, conn: sqlite3.Connection, session_id: str, continued: int, by: int,
               stale: str) -> None:
        """Round ``by`` claims unfinished round ``continued``: one conditional UPDATE inside
        the caller's write transaction, so exactly one of two racing processes gets it. A
        round stopped before the model said anything (``said_nothing``) is never claimed."""
        self._refuse_unsaid(conn, session_id, continued)
        cursor = conn.execute(
            "UPDATE rounds SET continued_by = ? WHERE session_id = ? AND idx = ? "
            "AND ended_at IS NOT NULL AND (cut_off = 1 OR truncated = 1 OR interrupted = 1) "
            "AND (continued_by IS NULL OR continued_by IN (SELECT idx FROM rounds "
            "WHERE session_id = ? AND ended_at IS NULL AND started_at < ?))",
            (by, session_id, continued, session_id, stale))
        if cursor.rowcount == 1:
            return
        row = conn.execute("SELECT ended_at, cut_off, truncated, interrupted, continued_by "
                           "FROM rounds WHERE session_id = ? AND idx = ?",
                           (session_id, continued)).fetchone()
        if row is None or row["ended_at"] is None or not (
                row["cut_off"] or row["truncated"] or row["interrupted"]):
            raise StoreError(f"round {continued + 1} of session {session_id} has no "
                             "unfinished answer to continue")
        holder = conn.execute("SELECT ended_at, started_at FROM rounds WHERE session_id = ? "
                              "AND idx = ?", (session_id, row["continued_by"])).fetchone()
        taken = f"round {continued + 1} of session {session_id}"
        if holder is not None and holder["ended_at"] is not None:
            raise RoundClaimedError(f"{taken} was already continued, in round "
                                    f"{row['continued_by'] + 1}",
                                    hint="'reviewtui ask --continue' goes on from the last "
                                         "answer if that one is unfinished too")
        since = holder["started_at"][11:19] if holder is not None else "?"
        raise RoundClaimedError(f"{taken} is already being continued by another run "
                                f"(round {row['continued_by'] + 1}, started {since} UTC)",
                                hint="wait for it to end")

    def _refuse_unsaid(self, conn: sqlite3.Connection, session_id: str, continued: int) -> None:
        row = conn.execute(f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE session_id = ? AND "
                           "idx = ?", (session_id, continued)).fetchone()
        if row is not None and said_nothing(_round_record(row), message_records(
                conn, session_id, continued, only=True)):
            raise StoreError(f"round {continued + 1} of session {session_id} was stopped "
                             "before the model said anything: there is nothing to continue",
                             hint="ask the question again")

    def release_claim(self, session_id: str, continued: int, by: int) -> None:
        """Round ``by`` gives back its claim on round ``continued`` (its request failed), so
        the unfinished answer can be continued again."""
        with self._writing() as conn:
            conn.execute("UPDATE rounds SET continued_by = NULL WHERE session_id = ? AND "
                         "idx = ? AND continued_by = ?", (session_id, continued, by))

    def start_round(self, session_id: str, record: RoundRecord) -> None:
        """Record a round in flight under ``record.index`` (``ended_at`` stays empty until
        ``end_round``). An index that is taken is refused: a round is never replaced (use
        ``open_round`` to be given a free one)."""
        record = expect(record, RoundRecord)
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            self._insert_round(conn, session_id, record.model_copy(
                update={"started_at": record.started_at or now, "ended_at": None}))
            self._touch(conn, session_id, now)

    def _insert_round(self, conn: sqlite3.Connection, session_id: str,
                      record: RoundRecord) -> None:
        taken = conn.execute("SELECT ended_at FROM rounds WHERE session_id = ? AND idx = ?",
                             (session_id, record.index)).fetchone()
        if taken is not None:
            state = "has already ended" if taken["ended_at"] is not None else "is in flight"
            raise StoreError(f"round {record.index} of session {session_id} {state}; a round "
                             "is never replaced")
        conn.execute(f"INSERT INTO rounds (session_id, {_ROUND_COLUMNS}) "
                     f"VALUES ({_ROUND_SLOTS})", (session_id, *_round_values(record)))

    def end_round(self, session_id: str, record: RoundRecord,
                  messages: Iterable[MessageRecord] = (),
                  tool_results: Iterable[ToolResultRecord] = ()) -> None:
        """Complete a round in flight: answer, files, units, keywords, tokens, whether it is
        incomplete, ``ended_at`` (now if unset) — with the ``messages`` and ``tool_results`` of
        its answer, all in one transaction. A round that was never started is inserted whole; a
        summary is kept if the record has none; a round that has ended is refused."""
        record = expect(record, RoundRecord)
        messages = [expect(m, MessageRecord) for m in messages]
        results = [expect(r, ToolResultRecord) for r in tool_results]
        with self._writing() as conn:
            self._require_session(conn, session_id)
            now = self._now()
            existing = conn.execute("SELECT ended_at, summary FROM rounds WHERE session_id = ? "
                                    "AND idx = ?", (session_id, record.index)).fetchone()
            if existing is not None and existing["ended_at"] is not None:
                raise StoreError(f"round {record.index} of session {session_id} has already "
                                 "ended; a round is never replaced")
            done = record.model_copy(update={"started_at": record.started_at or now,
                                             "ended_at": record.ended_at or now})
            if existing is not None:
                done = done.model_copy(update={"summary": done.summary or existing["summary"]})
                conn.execute("DELETE FROM rounds WHERE session_id = ? AND idx = ?",
                             (session_id, record.index))
            conn.execute(f"INSERT INTO rounds (session_id, {_ROUND_COLUMNS}) "
                         f"VALUES ({_ROUND_SLOTS})", (session_id, *_round_values(done)))
            for result in results:
                self._insert_tool_result(conn, session_id, result, now)
            for message in messages:
                self._insert_message(conn, session_id, message, now)
            self._touch(conn, session_id, now)

    def update_round_summary(self, session_id: str, index: int, summary: str) -> None:
        with self._writing() as conn:
            cursor = conn.execute(
                "UPDATE rounds SET summary = ? WHERE session_id = ? AND idx = ?",
                (clean_text(summary), clean_text(session_id), int(index)))
            if cursor.rowcount == 0:
                raise StoreError(f"no round {index} in session {session_id}")

    def keep_round_summary(self, session_id: str, index: int, summary: str) -> str:
        """Keep ``summary`` as the round's unless it has one already (another process wrote
        it first: that one stays, and is returned)."""
        with self._writing() as conn:
            sid, idx = clean_text(session_id), int(index)
            conn.execute("UPDATE rounds SET summary = ? WHERE session_id = ? AND idx = ? "
                         "AND summary IS NULL", (clean_text(summary), sid, idx))
            row = conn.execute("SELECT summary FROM rounds WHERE session_id = ? AND idx = ?",
                               (sid, idx)).fetchone()
            if row is None:
                raise StoreError(f"no round {index} in session {session_id}")
            return str(row["summary"])

    def rounds(self, session_id: str) -> list[RoundRecord]:
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE session_id = ? "
                                "ORDER BY idx", (clean_text(session_id),)).fetchall()
            return [_round_record(row) for row in rows]


def _before(now: str, seconds: float | None) -> str:
    """``now`` (the store's ISO time) less ``seconds``; with None, a time no round started
    before (every claim in flight holds), as with a span longer than the calendar reaches
    (``ask --max-tool-rounds 999999999999``, a huge ``[llm] timeout``)."""
    if seconds is None:
        return ""
    try:
        return (datetime.fromisoformat(now) - timedelta(seconds=seconds)).isoformat(
            timespec="microseconds")
    except OverflowError:
        return ""


def _round_values(record: RoundRecord) -> tuple[object, ...]:
    return (record.index, clean_text(record.user_message), clean_text(record.answer),
            *(clean_json(getattr(record, name)) for name in _LIST_FIELDS),
            clean_opt_text(record.summary), int(record.prompt_tokens),
            int(record.completion_tokens), int(record.cached_tokens),
            clean_text(record.started_at), clean_opt_text(record.ended_at),
            int(record.cut_off), int(record.truncated), record.continues,
            int(record.interrupted), int(record.filtered))


def _round_record(row: sqlite3.Row) -> RoundRecord:
    data = dict(row)
    data["index"] = data.pop("idx")
    data["cut_off"] = bool(data["cut_off"])
    data["truncated"] = bool(data["truncated"])
    data["interrupted"] = bool(data["interrupted"])
    data["filtered"] = bool(data["filtered"])
    for name in _LIST_FIELDS:
        data[name] = json.loads(data[name])
    return RoundRecord.model_validate(data)
