"""The git stage: collect the change to review (``collect_change``) and its model."""

from __future__ import annotations

from reviewtui.git.collect import collect_change, default_branch
from reviewtui.git.contents import ContentReader
from reviewtui.git.model import (
    ChangeSet,
    ChangeStatus,
    DiffLine,
    EntryKind,
    FileChange,
    Hunk,
    Side,
    SideKind,
)
from reviewtui.git.runner import GitRepo, open_repository
from reviewtui.git.selector import ChangeSelector, SelectorMode

__all__ = [
    "ChangeSelector",
    "ChangeSet",
    "ChangeStatus",
    "ContentReader",
    "DiffLine",
    "EntryKind",
    "FileChange",
    "GitRepo",
    "Hunk",
    "SelectorMode",
    "Side",
    "SideKind",
    "collect_change",
    "default_branch",
    "open_repository",
]
