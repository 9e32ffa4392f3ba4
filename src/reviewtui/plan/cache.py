"""Plans the model already made, kept so that asking again for the same change costs nothing.

Planning a change takes the model seconds to minutes and costs money; opening the workbench
again, or running ``plan`` then ``review`` on the same change, asked it all over again for an
answer already given. A complete plan (every batch answered) is kept under a key of everything
it depends on (``plan_key``) in ``<git common dir>/reviewtui/plan-cache.sqlite3``, beside the
per-file unit cache, and returned instead of asking when the key comes again. A partial or
failed plan is never kept: the next run asks again.

The cache is an optimisation and never a reason to fail: a missing, locked, corrupt or
read-only database, or a kept plan that does not validate, just means the model is asked.
Plans are stored as JSON (validated on the way back in), never pickles, and neither the API key
nor the base URL (which may hold a password) is stored: the key is a digest.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewtui import __version__
from reviewtui.analysis.cache_layout import prepare, release
from reviewtui.plan.schema import LLMPlanItem, PlannerReport

if TYPE_CHECKING:
    from reviewtui.git.intent import ChangeIntent
    from reviewtui.models import PlannerIndex
    from reviewtui.plan.planner import Planner, PlannerOutcome

_log = logging.getLogger(__name__)

FILE_NAME = "plan-cache.sqlite3"
MAX_PLANS = 200  # the least recently used go first
FORMAT = 1  # what a kept plan is (``KeptPlan``) and what its key covers; another: not read
_VERSION = 1  # PRAGMA user_version; any other layout is dropped and rebuilt
_SCHEMA = """
CREATE TABLE plans (
    key TEXT PRIMARY KEY,
    plan TEXT NOT NULL,
    made REAL NOT NULL,
    used REAL NOT NULL
) WITHOUT ROWID
"""


def plan_cache_path(git_common_dir: Path) -> Path:
    return git_common_dir / "reviewtui" / FILE_NAME


class KeptPlan(BaseModel):
    """A complete plan as the planner gave it (before fusion: the rules' side is fused anew)."""

    model_config = ConfigDict(extra="forbid")

    items: list[LLMPlanItem] = Field(default_factory=list)
    planned: list[str] = Field(default_factory=list)
    report: PlannerReport


def plan_key(planner: Planner, index: PlannerIndex, intent: ChangeIntent | None,
             change: str) -> str:
    """A digest of everything the plan of ``index`` depends on: the change (``change``, its
    key; the unit ids pin the content of every changed line), each unit's rule-side facts as
    sent, the change's metadata (not the moment it was indexed), its stated purpose as sent,
    the model, the endpoint, the settings that shape the requests (context window, output
    limit, JSON mode, temperature), the prompt (its version and its text) and reviewtui's
    version (which reads the reply)."""
    from reviewtui.plan.prompt import (
        PROMPT_VERSION,
        REPAIR_PROMPT,
        SYSTEM_PROMPT,
        header_json,
        plan_schema,
        unit_json,
        user_message,
    )

    config = planner.client.config
    metadata = index.review_metadata.model_copy(update={"timestamp": ""})
    header = header_json(index.model_copy(update={"review_metadata": metadata}))
    digest = hashlib.sha256()
    parts = (f"plan-cache:{FORMAT}", __version__, f"prompt:{PROMPT_VERSION}", SYSTEM_PROMPT,
             REPAIR_PROMPT, json.dumps(plan_schema(), sort_keys=True),
             user_message("H", ["U"], 1, 1, "I"), user_message("H", ["U"], 1, 2, "I"),
             config.model or "", config.endpoint, str(config.context_window),
             str(config.max_output_tokens), config.json_mode, repr(config.temperature),
             change, header, planner.purpose(intent))
    for part in (*parts, *(unit_json(unit) for unit in index.units)):
        digest.update(part.encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
    return digest.hexdigest()


def _prepare(db: sqlite3.Connection) -> None:
    prepare(db, _VERSION, "plans", _SCHEMA)


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=2.0, isolation_level=None)
    try:
        _prepare(db)
    except sqlite3.Error:
        db.close()
        raise
    return db


class PlanCache:
    """Kept plans by key; every failure reads as a miss and writes nothing."""

    def __init__(self, connection: sqlite3.Connection, path: Path,
                 max_plans: int = MAX_PLANS) -> None:
        self._db: sqlite3.Connection | None = connection
        self.path = path
        self._max_plans = max_plans

    @classmethod
    def open(cls, path: Path, *, max_plans: int = MAX_PLANS) -> PlanCache | None:
        """The cache at ``path`` (created if needed), or None when it cannot be used. A file
        that is no database (or a damaged one) is derived data: removed and started again."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return cls(_connect(path), path, max_plans)
        except sqlite3.OperationalError as exc:  # locked, read-only, no room: not this run
            _log.debug("plan cache unavailable at %s: %s", path, exc)
            return None
        except sqlite3.DatabaseError as exc:
            _log.debug("plan cache at %s is unreadable (%s); starting a new one", path, exc)
        except OSError as exc:
            _log.debug("plan cache unavailable at %s: %s", path, exc)
            return None
        try:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            return cls(_connect(path), path, max_plans)
        except (OSError, sqlite3.Error) as again:
            _log.debug("plan cache disabled: %s", again)
            return None

    def get(self, key: str) -> tuple[KeptPlan, float] | None:
        """The plan kept under ``key`` and when it was made (seconds since the epoch)."""
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT plan, made FROM plans WHERE key = ?",
                                   (key,)).fetchone()
        except sqlite3.Error as exc:
            self._failed(exc)
            return None
        if row is None:
            return None
        try:
            kept = KeptPlan.model_validate_json(row[0])
        except ValidationError:
            return None  # a torn or foreign record: asked again, and written over
        try:  # (for the cap: a plan in use is kept; a busy database only skips the mark)
            self._db.execute("UPDATE plans SET used = ? WHERE key = ?", (time.time(), key))
        except sqlite3.Error as exc:
            _log.debug("plan cache at %s: not marked used: %s", self.path, exc)
        return kept, float(row[1])

    def put(self, key: str, plan: KeptPlan) -> None:
        """Keep ``plan`` under ``key``; then drop the least recently used past the cap."""
        if self._db is None:
            return
        now = time.time()
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT OR REPLACE INTO plans(key, plan, made, used) VALUES (?, ?, ?, ?)",
                (key, plan.model_dump_json(), now, now))
            self._db.execute(
                "DELETE FROM plans WHERE key IN (SELECT key FROM plans ORDER BY used DESC "
                "LIMIT -1 OFFSET ?)", (self._max_plans,))
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._failed(exc)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _failed(self, exc: sqlite3.Error) -> None:
        """Not used again this run; a damaged file (not merely busy or read-only) is removed
        too, so that the next run starts a new one instead of missing for ever."""
        _log.debug("plan cache at %s disabled for this run: %s", self.path, exc)
        if self._db is not None:
            release(self._db)
            self._db = None
        if not isinstance(exc, sqlite3.OperationalError):
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    Path(f"{self.path}{suffix}").unlink(missing_ok=True)


def cached_plan(planner: Planner, index: PlannerIndex, intent: ChangeIntent | None,
                cache: PlanCache, *, change: str, fresh: bool = False) -> PlannerOutcome:
    """The plan kept for these inputs (its report's ``cached_at`` says when it was made; no
    tokens were spent on it), else -- or when ``fresh`` -- the planner's, kept if complete."""
    from reviewtui.plan.planner import PlannerOutcome

    key = plan_key(planner, index, intent, change)
    found = None if fresh else cache.get(key)
    if found is not None:
        kept, made = found
        report = kept.report.model_copy(update={
            "cached_at": datetime.fromtimestamp(made, UTC), "prompt_tokens": 0,
            "completion_tokens": 0})
        return PlannerOutcome({item.unit_id: item for item in kept.items},
                              frozenset(kept.planned), report)
    outcome = planner.plan(index, intent)
    if outcome.report.status == "ok":  # a partial plan is asked again, not kept as whole
        cache.put(key, KeptPlan(items=list(outcome.items.values()),
                                planned=sorted(outcome.planned_ids), report=outcome.report))
    return outcome


def age_text(seconds: float) -> str:
    """How long ago, in the largest unit that fits: ``40 s ago``, ``5 min ago``, ``3 h ago``,
    ``2 days ago``."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{int(seconds)} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    return f"{days} day{'s' if days != 1 else ''} ago"
