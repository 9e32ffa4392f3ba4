"""The merged rule pack of a set of pack files, kept between runs while none of them changes.

Every command that scores or opens a change loads the rule packs: the shipped ``rules/``
folder (13 files, ~1,200 patterns) and the repository's own. Parsing their TOML took ~85 ms of
every run (``tomllib``), more than a warm ``index`` spends on anything else but git -- and the
workbench pays it twice (its analysis process and itself). The files change only when someone
edits them, so the merged, validated tables are kept in ``$XDG_CACHE_HOME/reviewtui/rule-packs``
(JSON: ~2 ms to read), keyed by each file's path, size and modification time; only
``RulePack.model_validate`` runs again (~7 ms).

A file modified in the last two seconds is not cached (an edit in the same clock tick could
keep both its size and its time), a cache that cannot be read or written is ignored, and only
packs that validated are kept: a broken pack is reported from its file every time. A kept pack
that no longer validates (edited by hand, damaged) is a miss: compiled again and written over.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reviewtui.config import user_cache_dir
from reviewtui.git.object_cache import ObjectCache

FORMAT = 1
KEPT = 16  # merged packs kept (one per repository with packs of its own, mostly)
_RACY = 2.0  # seconds


def _cache() -> ObjectCache:
    try:
        folder: Path | None = user_cache_dir() / "rule-packs"
    except RuntimeError:  # no home folder to find: no cache
        folder = None
    return ObjectCache(folder, KEPT)


def pack_key(files: Sequence[Path]) -> str | None:
    """The key of these files as they are now; None when one is missing or just written."""
    digest = hashlib.sha256(f"{FORMAT}\n".encode())
    now = time.time()
    for path in files:
        try:
            info = path.stat()
        except OSError:
            return None
        if now - info.st_mtime < _RACY:
            return None
        digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode(
            "utf-8", "surrogateescape"))
    return digest.hexdigest()


def read_merged(key: str | None) -> dict[str, Any] | None:
    merged = _cache().read(key) if key is not None else {}
    return merged or None


def write_merged(key: str | None, merged: dict[str, Any]) -> None:
    if key is not None:
        _cache().write(key, merged)
