"""Per-file results of earlier runs, in one SQLite file under the repository's git directory.

Re-running ``reviewtui`` on the same change (or on a change that grew by one file) is the normal
way to use it: the TUI, ``plan``, ``bundle`` and ``review`` all start by loading the change.
Parsing and scoring are the expensive part of that, and their results depend only on inputs
the key pins (see ``fingerprint``), so they are kept in ``<git common dir>/reviewtui/``.

The cache is an optimisation and never a reason to fail: a missing, locked, corrupt or
read-only database, or a record that does not decode, just means the work is done again.
Records are pickles. The database sits inside ``.git``, whose hooks already run code for
anyone able to write there, so reading them trusts nobody new.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reviewtui.analysis.cache_file import cache_path
from reviewtui.analysis.cache_layout import prepare, release
from reviewtui.analysis.records import FileRecord, load

if TYPE_CHECKING:
    from reviewtui.config import Settings
    from reviewtui.rules.schema import RulePack

_log = logging.getLogger(__name__)

MAX_ROWS = 10_000
_CHUNK = 500
_DAY = 24 * 3600.0
_TOUCH_AFTER = _DAY  # reused records last marked longer ago are marked used again
_OTHER_RUNS_KEPT = 7 * _DAY  # records of other settings, packs or versions are dropped after
_VERSION = 2  # PRAGMA user_version; any other layout is dropped and rebuilt
_SCHEMA = """
CREATE TABLE files (
    key TEXT PRIMARY KEY,
    run TEXT NOT NULL,
    record BLOB NOT NULL,
    used REAL NOT NULL
) WITHOUT ROWID
"""


def _prepare(db: sqlite3.Connection) -> None:
    if not prepare(db, _VERSION, "files", _SCHEMA):
        return
    # Give the dropped pages back, and let later deletes do so too (incremental_vacuum). A
    # busy file (another process writing already) keeps its pages: that is all it costs.
    try:
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        db.execute("VACUUM")
    except sqlite3.OperationalError:
        pass


class UnitCache:
    """Read many records at once, write the new ones and mark the reused ones in one go."""

    def __init__(self, connection: sqlite3.Connection, path: Path, fingerprint: str,
                 max_rows: int = MAX_ROWS) -> None:
        self._db: sqlite3.Connection | None = connection
        self.path = path
        self.fingerprint = fingerprint
        self._max_rows = max_rows
        self._stale: set[str] = set()  # read records last marked used long ago

    @classmethod
    def open(cls, path: Path, fingerprint: str, *,
             max_rows: int = MAX_ROWS) -> UnitCache | None:
        """The cache at ``path`` (created if needed) for runs with ``fingerprint``, or None."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, timeout=2.0, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            _log.debug("index cache unavailable at %s: %s", path, exc)
            return None
        try:
            _prepare(db)
        except sqlite3.OperationalError as exc:  # busy or locked: not corrupt, keep it
            db.close()
            _log.debug("index cache at %s unavailable for this run: %s", path, exc)
            return None
        except sqlite3.DatabaseError as exc:
            db.close()
            return cls._rebuilt(path, fingerprint, exc, max_rows)
        return cls(db, path, fingerprint, max_rows)

    @classmethod
    def _rebuilt(cls, path: Path, fingerprint: str, exc: Exception,
                 max_rows: int) -> UnitCache | None:
        """A corrupt file is derived data: remove it and start over (once)."""
        _log.debug("index cache at %s is unreadable (%s); starting a new one", path, exc)
        try:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            db = sqlite3.connect(path, timeout=2.0, isolation_level=None)
            _prepare(db)
        except (OSError, sqlite3.Error) as again:
            _log.debug("index cache disabled: %s", again)
            return None
        return cls(db, path, fingerprint, max_rows)

    def get_many(self, keys: Iterable[str]) -> dict[str, FileRecord]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, FileRecord] = {}
        if self._db is None:
            return found
        try:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, record, used FROM files WHERE key IN ({marks})", chunk)
                for key, blob, used in rows:
                    try:
                        found[key] = load(blob)
                    except ValueError:
                        continue  # an unreadable record (other code, torn write) is a miss
                    if used < time.time() - _TOUCH_AFTER:
                        self._stale.add(key)
        except sqlite3.Error as exc:
            self._disable(exc)
        return found

    def save(self, new: Mapping[str, bytes], reused: Iterable[str]) -> None:
        """Store ``new`` pickled records and mark ``reused`` ones used; then drop the records of
        other runs unused for a week, and the least recently used past the cap."""
        if self._db is None:
            return
        now = time.time()
        # Marking every reused record on every run would be a write per file per run; the
        # cap only needs to know which records went unused for long.
        reused_keys = [key for key in reused if key not in new and key in self._stale]
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "INSERT OR REPLACE INTO files(key, run, record, used) VALUES (?, ?, ?, ?)",
                ((key, self.fingerprint, data, now) for key, data in new.items()))
            self._db.executemany("UPDATE files SET used = ? WHERE key = ?",
                                 ((now, key) for key in reused_keys))
            if new:  # an upgrade or a settings change leaves records nothing will ask for
                self._db.execute("DELETE FROM files WHERE run != ? AND used < ?",
                                 (self.fingerprint, now - _OTHER_RUNS_KEPT))
            (count,) = self._db.execute("SELECT count(*) FROM files").fetchone()
            if count > self._max_rows:
                self._db.execute(
                    "DELETE FROM files WHERE key IN "
                    "(SELECT key FROM files ORDER BY used LIMIT ?)", (count - self._max_rows,))
            self._db.execute("COMMIT")
            if new:
                self._db.execute("PRAGMA incremental_vacuum")
        except sqlite3.Error as exc:
            self._disable(exc)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _disable(self, exc: Exception) -> None:
        _log.debug("index cache at %s disabled for this run: %s", self.path, exc)
        if self._db is not None:
            release(self._db)
            self._db = None


def open_unit_cache(git_common_dir: Path, settings: Settings,
                    pack: RulePack) -> UnitCache | None:
    """The repository's cache for runs with these settings and rules, or None if unusable."""
    from reviewtui.analysis.fingerprint import run_fingerprint

    return UnitCache.open(cache_path(git_common_dir), run_fingerprint(settings, pack))
