"""The shared pipeline front: repository -> settings -> change -> units -> rules -> index.

The headless commands and the TUI both start here, so they always see the same units and the
same rule suggestions: ``load_change`` (``loading``) gives a ``LoadedChange`` (``change``),
which plans and builds bundles through ``planning``; a commit's or a range's whole analysis is
kept between runs (``snapshot``).
"""

from __future__ import annotations

from reviewtui.pipeline.change import LoadedChange, scanner_cache_dir
from reviewtui.pipeline.loading import load_change
from reviewtui.pipeline.planning import make_planner

__all__ = ["LoadedChange", "load_change", "make_planner", "scanner_cache_dir"]
