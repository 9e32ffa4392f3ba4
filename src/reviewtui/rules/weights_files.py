"""Where the learned priority's weights live: shipped beside the rules, refitted per repository.

Apart from ``triage_model`` (which reads them, and imports the features and their patterns) so
that the snapshot's key can name the files without loading any of that.
"""

from __future__ import annotations

from pathlib import Path

WEIGHTS_NAME = "triage_weights.toml"


def shipped_weights_path() -> Path:
    """Inside the package, beside this module (``rules/`` at the top holds only rule packs)."""
    return Path(__file__).resolve().parent / WEIGHTS_NAME


def repository_weights_path(root: Path) -> Path:
    return root / ".reviewtui" / WEIGHTS_NAME
