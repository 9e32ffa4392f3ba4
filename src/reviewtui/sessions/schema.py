"""Where the session store lives, its SQL schema, and how a connection is opened and migrated.

Kept apart from ``store.py`` so the API there reads as the record-level operations it offers,
while everything that decides whether a file on disk *is* a usable store lives here:

* the schema is versioned with ``PRAGMA user_version``; ``MIGRATIONS[n]`` takes a store from
  version ``n`` to ``n + 1``, and every pending step runs in one ``BEGIN IMMEDIATE`` transaction
  together with the new version number, so a store is never left half-migrated (a process killed
  during a migration leaves the old version, which the next open migrates again);
* ``PRAGMA application_id`` marks the file as ours, so another program's SQLite database is
  refused instead of being "migrated" into ours;
* every failure to open (not a database, unreadable, from a newer reviewtui, locked) becomes a
  one-line ``StoreError`` that names the file and what to do.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
from pathlib import Path

from reviewtui.errors import StoreError

STORE_FILE_NAME = "sessions.sqlite3"
DATA_DIR_ENV = "REVIEWTUI_DATA_DIR"
APPLICATION_ID = 0x52765475  # "RvTu"

MIGRATIONS: list[tuple[str, ...]] = [
    # v1: sessions, their rounds, messages and tool memory, per-session overrides, and the
    # per-repository review marks (which outlive sessions: a unit stays reviewed across chats).
    (
        """CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY,
            repo_key TEXT NOT NULL,
            change_key TEXT NOT NULL,
            title TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            model TEXT
        )""",
        "CREATE INDEX sessions_by_change ON sessions (repo_key, change_key, updated_at)",
        "CREATE INDEX sessions_by_repo ON sessions (repo_key, updated_at)",
        "CREATE INDEX sessions_by_update ON sessions (updated_at)",
        """CREATE TABLE rounds (
            session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            user_message TEXT NOT NULL,
            answer TEXT NOT NULL DEFAULT '',
            files TEXT NOT NULL DEFAULT '[]',
            units TEXT NOT NULL DEFAULT '[]',
            inherited_files TEXT NOT NULL DEFAULT '[]',
            keywords TEXT NOT NULL DEFAULT '[]',
            summary TEXT,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            cached_tokens INTEGER NOT NULL DEFAULT 0,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            PRIMARY KEY (session_id, idx)
        )""",
        """CREATE TABLE messages (
            message_id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
            round_index INTEGER NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            tool_calls TEXT NOT NULL DEFAULT '[]',
            tool_call_id TEXT,
            name TEXT,
            ref_id TEXT,
            tokens INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX messages_by_session ON messages (session_id, round_index, message_id)",
        """CREATE TABLE tool_results (
            session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
            ref_id TEXT NOT NULL,
            round_index INTEGER NOT NULL,
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            content TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (session_id, ref_id)
        )""",
        """CREATE TABLE overrides (
            session_id TEXT PRIMARY KEY REFERENCES sessions (session_id) ON DELETE CASCADE,
            data TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
        """CREATE TABLE review_marks (
            repo_key TEXT NOT NULL,
            unit_key TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            marked_at TEXT NOT NULL,
            PRIMARY KEY (repo_key, unit_key)
        )""",
    ),
    # v2: a round whose answer the server cut off mid-stream says so.
    (
        "ALTER TABLE rounds ADD COLUMN cut_off INTEGER NOT NULL DEFAULT 0",
    ),
    # v3: the person's review of the change: the agent's findings (kept by fingerprint, with
    # their state), the reviewer's own comments, and the verdict.
    (
        """CREATE TABLE findings (
            session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
            fingerprint TEXT NOT NULL,
            data TEXT NOT NULL,
            state TEXT NOT NULL,
            first_seen TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (session_id, fingerprint)
        )""",
        """CREATE TABLE comments (
            comment_id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
            data TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
        "CREATE INDEX comments_by_session ON comments (session_id, comment_id)",
        """CREATE TABLE verdicts (
            session_id TEXT PRIMARY KEY REFERENCES sessions (session_id) ON DELETE CASCADE,
            data TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
    ),
    # v4: an answer the model stopped at its output token limit (finish_reason "length") says
    # so, and a round that asked the model to go on from one says which round it continues.
    (
        "ALTER TABLE rounds ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE rounds ADD COLUMN continues INTEGER",
    ),
    # v5: the change's stated purpose as the person wrote it in the workbench (``i``), for a
    # change whose commits do not say it (a working-tree change has none).
    (
        """CREATE TABLE descriptions (
            session_id TEXT PRIMARY KEY REFERENCES sessions (session_id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
    ),
    # v6: fixes the person applied from findings: the file's exact bytes before, the hash of
    # what was written and the finding's state before, so each can be undone once.
    (
        """CREATE TABLE applied_fixes (
            apply_id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
            fingerprint TEXT NOT NULL,
            file_path TEXT NOT NULL,
            before BLOB NOT NULL,
            after_sha TEXT NOT NULL,
            state_before TEXT NOT NULL,
            applied_at TEXT NOT NULL,
            undone_at TEXT
        )""",
        "CREATE INDEX applied_fixes_by_finding ON applied_fixes (session_id, fingerprint)",
    ),
    # v7: an unfinished round says which round claimed it to go on with its answer, so two
    # processes that ``ask --continue`` at once do not both continue it.
    (
        "ALTER TABLE rounds ADD COLUMN continued_by INTEGER",
    ),
    # v8: "reviewed" marks kept per unit by its content (``sessions.marks``), no longer one
    # per file and definition by the unit's id (which has its line numbers: a unit that moved
    # lost its mark, and a function's two units shared one). The marks kept so far stay, as
    # marks of the unit id they were made on (their content id), so that unit stays reviewed.
    (
        """CREATE TABLE unit_marks (
            repo_key TEXT NOT NULL,
            file_path TEXT NOT NULL,
            content_id TEXT NOT NULL,
            unit_key TEXT NOT NULL,
            unit_id TEXT NOT NULL,
            first_line INTEGER,
            last_line INTEGER,
            marked_at TEXT NOT NULL,
            PRIMARY KEY (repo_key, file_path, content_id)
        )""",
        """INSERT OR IGNORE INTO unit_marks (repo_key, file_path, content_id, unit_key, unit_id,
                                            marked_at)
            SELECT repo_key,
                   CASE WHEN instr(unit_key, '::') > 0
                        THEN substr(unit_key, 1, instr(unit_key, '::') - 1) ELSE unit_key END,
                   content_hash, unit_key, content_hash, marked_at
            FROM review_marks""",
        "DROP TABLE review_marks",
    ),
    # v9: a round whose answer the person stopped (Ctrl-C, the chat's stop key) keeps what was
    # streamed until then, and says so.
    (
        "ALTER TABLE rounds ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0",
    ),
    # v10: an answer the provider's content filter stopped is kept marked so (it is cut off
    # too), so that reopened it is not said to have been cut off by the server.
    (
        "ALTER TABLE rounds ADD COLUMN filtered INTEGER NOT NULL DEFAULT 0",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)


def default_store_path() -> Path:
    """The per-user store: ``$REVIEWTUI_DATA_DIR``, else the platform's data directory."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser() / STORE_FILE_NAME
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        xdg = os.environ.get("XDG_DATA_HOME")
        # The XDG spec says a relative value is invalid and must be ignored.
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".local" / "share"
    return base / "reviewtui" / STORE_FILE_NAME


def describe_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """One line for a SQLite failure, with what the person can do about it."""
    name = getattr(exc, "sqlite_errorname", "")
    if name == "SQLITE_NOTADB" or "not a database" in str(exc):
        return not_a_store(path, str(exc))
    if name.startswith("SQLITE_CORRUPT"):
        return StoreError(f"the session store {path} is damaged ({exc}); "
                          "move it away to start fresh")
    if name.startswith("SQLITE_BUSY") or "locked" in str(exc):
        return StoreError(f"the session store {path} is busy: another reviewtui holds it ({exc})",
                          hint="try again in a moment")
    if name.startswith("SQLITE_FULL"):
        return StoreError(f"cannot write the session store {path}: the disk is full")
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_READONLY", "SQLITE_IOERR",
                        "SQLITE_AUTH")):
        return StoreError(f"cannot use the session store {path}: {exc}",
                          hint=f"check its permissions, or set {DATA_DIR_ENV}")
    return StoreError(f"session store {path}: {exc}")


def not_a_store(path: Path, why: str) -> StoreError:
    return StoreError(f"{path} is not a reviewtui session store ({why}); "
                      "move it away to start fresh")


def _prepare_file(path: Path) -> None:
    """Create the folder (0o700) and an empty file (0o600) so SQLite's files inherit the mode."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.exists():
        return
    with contextlib.suppress(FileExistsError):  # another process won the race: fine
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def open_connection(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """Open, configure and migrate the store at ``path``; ``StoreError`` if it is unusable.

    The connection is in autocommit mode (``isolation_level=None``): the store issues its own
    ``BEGIN IMMEDIATE`` / ``COMMIT`` around every write.
    """
    try:
        _prepare_file(path)
    except OSError as exc:
        # a file where a folder of the path should be: the OS says 'File exists' (the data
        # dir itself) or 'Not a directory' (one above it); name it
        blocker = next((parent for parent in path.parents if parent.is_file()), None)
        why = f"{blocker} is a file, not a folder" if blocker else exc.strerror or str(exc)
        raise StoreError(f"cannot create the session store {path}: {why}",
                         hint=f"set {DATA_DIR_ENV} to a writable folder") from None
    try:
        conn = sqlite3.connect(str(path), timeout=busy_timeout, isolation_level=None,
                               check_same_thread=False)
    except sqlite3.Error as exc:
        raise describe_error(path, exc) from None
    try:
        _configure(conn, busy_timeout)
        _migrate(conn, path)
    except sqlite3.Error as exc:
        conn.close()
        raise describe_error(path, exc) from None
    except BaseException:
        conn.close()
        raise
    return conn


def _configure(conn: sqlite3.Connection, busy_timeout: float) -> None:
    conn.execute(f"PRAGMA busy_timeout = {max(0, int(busy_timeout * 1000))}")
    conn.execute("PRAGMA foreign_keys = ON")
    # The first statement that reads the file: garbage fails here with SQLITE_NOTADB.
    conn.execute("PRAGMA journal_mode = WAL").fetchone()
    conn.execute("PRAGMA synchronous = NORMAL")


def _pragma_int(conn: sqlite3.Connection, name: str) -> int:
    row = conn.execute(f"PRAGMA {name}").fetchone()
    return int(row[0]) if row else 0


def _check_ours(conn: sqlite3.Connection, path: Path) -> int:
    """The schema version of a file that is ours (or empty); ``StoreError`` otherwise."""
    version = _pragma_int(conn, "user_version")
    app_id = _pragma_int(conn, "application_id")
    if app_id not in (0, APPLICATION_ID) or (version > 0 and app_id != APPLICATION_ID):
        raise not_a_store(path, "it belongs to another program")
    if version == 0:
        objects = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if objects:
            raise not_a_store(path, "it holds unknown tables")
    if version > SCHEMA_VERSION:
        raise StoreError(f"the session store {path} was written by a newer reviewtui "
                         f"(schema {version}; this version knows up to {SCHEMA_VERSION})",
                         hint="upgrade reviewtui, or set "
                              f"{DATA_DIR_ENV} to use another store")
    return version


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    # One read transaction: the version, the id and the tables from one snapshot. Read one by
    # one, a process opening the store while another creates it could see version 0 and then
    # the new tables, and take a fresh store for another program's database.
    conn.execute("BEGIN")
    try:
        version = _check_ours(conn, path)
    finally:
        conn.execute("COMMIT")
    if version == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = _check_ours(conn, path)  # again, under the write lock: another process may
        for step in MIGRATIONS[version:]:  # have migrated while we waited for it
            for statement in step:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise
