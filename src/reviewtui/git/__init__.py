"""The git stage: collect the change to review (``collect_change``) and its model.

The model and the selector are plain data and load with the package; collecting and the
repository (found with ``git rev-parse``) load on first use, so a module that only names a
``ChangeSet`` (the workbench's widgets) does not import them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewtui import lazy_exports
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
from reviewtui.git.selector import ChangeSelector, SelectorMode

if TYPE_CHECKING:
    from reviewtui.git.collect import collect_change, default_branch
    from reviewtui.git.contents import ContentReader
    from reviewtui.git.runner import GitRepo, open_repository

_LAZY = {"collect_change": "reviewtui.git.collect", "default_branch": "reviewtui.git.collect",
         "ContentReader": "reviewtui.git.contents", "GitRepo": "reviewtui.git.runner",
         "open_repository": "reviewtui.git.runner"}

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


__getattr__ = lazy_exports(__name__, _LAZY, globals())
