"""Units plus rule suggestions for a whole change, with a per-file cache and worker processes.

``analyse_change`` is the public entry point; ``open_unit_cache`` opens the cache for a run.
It glues the units stage and the rule stage per file, so a file's results can be reused by a
later run and computed anywhere; neither stage knows about the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reviewtui import lazy_exports
from reviewtui.analysis.cache import UnitCache, cache_path
from reviewtui.analysis.fingerprint import run_fingerprint
from reviewtui.config import Settings
from reviewtui.rules.schema import RulePack

if TYPE_CHECKING:
    from reviewtui.analysis.run import Analysis, analyse_change

# When first asked for: reading a kept change (its key, its cache) needs neither the units
# stage, its grammars nor the rule engine.
_LAZY = {"Analysis": "reviewtui.analysis.run", "analyse_change": "reviewtui.analysis.run"}


def open_unit_cache(git_common_dir: Path, settings: Settings,
                    pack: RulePack) -> UnitCache | None:
    """The repository's cache for runs with these settings and rules, or None if unusable."""
    return UnitCache.open(cache_path(git_common_dir), run_fingerprint(settings, pack))


__all__ = ["Analysis", "UnitCache", "analyse_change", "cache_path", "open_unit_cache"]

__getattr__ = lazy_exports(__name__, _LAZY, globals())
