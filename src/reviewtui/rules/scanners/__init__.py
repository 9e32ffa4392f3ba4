"""External code scanners (ruff, pylint, eslint, golangci-lint, semgrep...) behind one call.

``run_scanners`` runs every enabled and installed tool on the files of the languages it is
configured for, in parallel, with timeouts and a content-addressed cache, and returns a
``ScanReport`` of normalised ``ScannerIssue`` records. The rule engine and the CLI consume it.

The rule pack's schema needs only ``config`` (and the engine only ``model``); the tool adapters
and the runner load on first use of ``ADAPTERS`` or ``run_scanners``, so opening a change (the
workbench's first screen) never imports a scanner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewtui import lazy_exports
from reviewtui.rules.scanners.config import (
    ANY_LANGUAGE,
    DEFAULT_SCANNER_CONFIG,
    ScannerToolConfig,
    merge_config,
)
from reviewtui.rules.scanners.model import (
    SEVERITIES,
    ScannerIssue,
    ScanReport,
    ScanTarget,
    normalise_severity,
)

if TYPE_CHECKING:
    from reviewtui.rules.scanners.registry import ADAPTERS
    from reviewtui.rules.scanners.runner import run_scanners

_LAZY = {"ADAPTERS": "reviewtui.rules.scanners.registry",
         "run_scanners": "reviewtui.rules.scanners.runner"}

__all__ = [
    "ADAPTERS",
    "ANY_LANGUAGE",
    "DEFAULT_SCANNER_CONFIG",
    "SEVERITIES",
    "ScanReport",
    "ScanTarget",
    "ScannerIssue",
    "ScannerToolConfig",
    "merge_config",
    "normalise_severity",
    "run_scanners",
]


__getattr__ = lazy_exports(__name__, _LAZY, globals())
