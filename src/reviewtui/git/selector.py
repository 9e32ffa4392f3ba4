"""What the user asked to review, and how that maps onto two sides of a ``git diff``.

Selectors (shared by every command): auto, ``--staged``, ``--working``, ``--all``,
``--base [REF]``, ``--commit REV``, ``--range A..B|A...B``, ``--patch FILE|-``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class SelectorMode(StrEnum):
    AUTO = "auto"
    STAGED = "staged"
    WORKING = "working"
    ALL = "all"
    BASE = "pr"
    COMMIT = "commit"
    RANGE = "range"
    PATCH = "patch"


@dataclass(frozen=True, slots=True)
class ChangeSelector:
    mode: SelectorMode = SelectorMode.AUTO
    ref: str | None = None  # --base REF, --commit REV, --range A..B
    patch: str | None = None  # --patch FILE or "-"
    include_untracked: bool = True


DEFAULT_BRANCH_CANDIDATES: tuple[str, ...] = ("main", "master")


def split_range(spec: str) -> tuple[str, str, bool]:
    """Split ``A..B`` / ``A...B`` into (A, B, symmetric); an empty side means HEAD."""
    if "..." in spec:
        left, right = spec.split("...", 1)
        symmetric = True
    elif ".." in spec:
        left, right = spec.split("..", 1)
        symmetric = False
    else:
        return spec, "HEAD", False
    return left or "HEAD", right or "HEAD", symmetric
