"""External code scanners (ruff, pylint, eslint, golangci-lint, semgrep...) behind one call.

``run_scanners`` runs every enabled and installed tool on the files of the languages it is
configured for, in parallel, with timeouts and a content-addressed cache, and returns a
``ScanReport`` of normalised ``ScannerIssue`` records. The rule engine and the CLI consume it.
"""

from __future__ import annotations

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
from reviewtui.rules.scanners.registry import ADAPTERS
from reviewtui.rules.scanners.runner import run_scanners

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
