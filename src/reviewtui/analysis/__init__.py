"""Units plus rule suggestions for a whole change, with a per-file cache and worker processes.

``analyse_change`` is the public entry point; ``open_unit_cache`` opens the cache for a run.
It glues the units stage and the rule stage per file, so a file's results can be reused by a
later run and computed anywhere; neither stage knows about the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from reviewtui.analysis.cache import UnitCache, cache_path
from reviewtui.analysis.fingerprint import run_fingerprint
from reviewtui.config import Settings
from reviewtui.rules.schema import RulePack

if TYPE_CHECKING:
    from reviewtui.analysis.run import Analysis, analyse_change


def __getattr__(name: str) -> Any:
    """``Analysis`` and ``analyse_change`` when first asked for: reading a kept change (its
    key, its cache) needs neither the units stage, its grammars nor the rule engine."""
    if name not in ("Analysis", "analyse_change"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from reviewtui.analysis import run

    value = getattr(run, name)
    globals()[name] = value
    return value


def open_unit_cache(git_common_dir: Path, settings: Settings,
                    pack: RulePack) -> UnitCache | None:
    """The repository's cache for runs with these settings and rules, or None if unusable."""
    return UnitCache.open(cache_path(git_common_dir), run_fingerprint(settings, pack))


__all__ = ["Analysis", "UnitCache", "analyse_change", "cache_path", "open_unit_cache"]
