"""Where the per-file cache lives: ``<git common dir>/reviewtui/index-cache.sqlite3``.

Apart from ``cache`` (the database, the records it holds and what they import) so that
whether a repository keeps one yet can be asked before anything else loads: the workbench
asks it before its first paint.
"""

from __future__ import annotations

from pathlib import Path

FILE_NAME = "index-cache.sqlite3"


def cache_path(git_common_dir: Path) -> Path:
    return git_common_dir / "reviewtui" / FILE_NAME
