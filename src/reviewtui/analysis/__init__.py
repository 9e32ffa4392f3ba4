"""Units plus rule suggestions for a whole change, with a per-file cache and worker processes.

``analyse_change`` is the public entry point; ``open_unit_cache`` opens the cache for a run.
It glues the units stage and the rule stage per file, so a file's results can be reused by a
later run and computed anywhere; neither stage knows about the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewtui import lazy_exports

if TYPE_CHECKING:
    from reviewtui.analysis.cache import UnitCache, open_unit_cache
    from reviewtui.analysis.cache_file import cache_path
    from reviewtui.analysis.run import Analysis, analyse_change

# Every name when first asked for: reading a kept change (its key, its cache) needs neither
# the units stage, its grammars nor the rule engine, and whether a repository keeps a cache at
# all (``cache_file``) is asked before the workbench's first paint, when nothing else is loaded.
_LAZY = {"Analysis": "reviewtui.analysis.run", "analyse_change": "reviewtui.analysis.run",
         "UnitCache": "reviewtui.analysis.cache", "open_unit_cache": "reviewtui.analysis.cache",
         "cache_path": "reviewtui.analysis.cache_file"}

__all__ = ["Analysis", "UnitCache", "analyse_change", "cache_path", "open_unit_cache"]

__getattr__ = lazy_exports(__name__, _LAZY, globals())
