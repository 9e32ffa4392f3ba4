"""The layout of a derived-data SQLite cache (the per-file index cache, the kept plans).

Both are files any number of processes open at once: a workbench and a headless command, two
workbenches on one repository. Each makes its table on first use, and a layout another version
of reviewtui wrote is dropped and made again. The version is asked again under the write lock,
since a process that read "no layout" before another committed one would otherwise drop the
table the other had just made and filled.
"""

from __future__ import annotations

import sqlite3


def prepare(db: sqlite3.Connection, version: int, table: str, schema: str) -> bool:
    """Put ``db`` in WAL mode and make ``table`` with ``schema`` unless the file's
    ``user_version`` is ``version`` already; whether it was made here."""
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    (found,) = db.execute("PRAGMA user_version").fetchone()
    if found == version:
        return False
    db.execute("BEGIN IMMEDIATE")
    try:
        (found,) = db.execute("PRAGMA user_version").fetchone()
        if found == version:  # another process made it meanwhile
            db.execute("COMMIT")
            return False
        db.execute(f"DROP TABLE IF EXISTS {table}")
        db.execute(schema)
        db.execute(f"PRAGMA user_version = {version}")
        db.execute("COMMIT")
    except sqlite3.Error:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return True


def release(db: sqlite3.Connection) -> None:
    """Roll back what ``db`` left open and close it: a cache given up on for this run."""
    try:
        if db.in_transaction:
            db.execute("ROLLBACK")
    except sqlite3.Error:
        pass
    db.close()
