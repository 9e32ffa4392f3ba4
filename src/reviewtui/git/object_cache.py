"""A folder of small JSON files named by a git object id (a tree, a base commit).

What is computed from one commit or tree never changes, so it can be kept by its id: the reach
of names (per tree) and the history of a change's lines (per base commit) keep theirs here. The
most recently written ``keep`` files stay; writes go through a temporary file, so a reader never
sees half of one; an unreadable or unwritable folder costs a recomputation, never an error.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

_log = logging.getLogger(__name__)


class ObjectCache:
    def __init__(self, folder: Path | None, keep: int = 16) -> None:
        self.folder = folder
        self.keep = keep

    def _path(self, object_id: str) -> Path | None:
        return self.folder / f"{object_id}.json" if self.folder is not None else None

    def read(self, object_id: str) -> dict[str, Any]:
        path = self._path(object_id)
        try:
            data = json.loads(path.read_text(encoding="utf-8")) if path else {}
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def write(self, object_id: str, data: dict[str, Any]) -> None:
        path = self._path(object_id)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(data), encoding="utf-8")
            temporary.replace(path)
            kept = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime,
                          reverse=True)
            for old in kept[self.keep:]:
                old.unlink(missing_ok=True)
        except (OSError, TypeError, ValueError) as exc:  # a read-only .git (compute again
            # next time), or a value JSON cannot hold
            _log.info("cache %s not written: %s", path.parent, exc)
