"""The shared pipeline front: repository -> settings -> change -> units -> index.

The headless commands and the TUI both start here, so they always see the same units.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reviewtui.config import Settings, load_settings
from reviewtui.errors import NotARepositoryError
from reviewtui.git import (
    ChangeSelector,
    ChangeSet,
    ContentReader,
    GitRepo,
    SelectorMode,
    collect_change,
    open_repository,
)
from reviewtui.models import ReviewIndex
from reviewtui.units import ReviewUnit, build_review_index, build_units


@dataclass(frozen=True)
class LoadedChange:
    repo: GitRepo | None
    settings: Settings
    change_set: ChangeSet
    reader: ContentReader
    units: list[ReviewUnit]

    def review_index(self) -> ReviewIndex:
        return build_review_index(self.change_set, self.units)


def load_change(path: str | Path | None, selector: ChangeSelector) -> LoadedChange:
    """Open the repository at ``path`` and cut the selected change into units."""
    repo: GitRepo | None
    try:
        repo = open_repository(path)
    except NotARepositoryError:
        if selector.mode is not SelectorMode.PATCH:
            raise
        repo = None  # a patch can be reviewed outside a repository, without file contents
    root = repo.root if repo is not None else Path(path or ".").resolve()
    settings = load_settings(root)
    change_set = collect_change(repo, selector, max_file_bytes=settings.git.max_file_bytes,
                                patch_root=root,
                                default_branch_name=settings.git.default_branch)
    reader = ContentReader(repo, change_set, settings.git.max_file_bytes)
    units = build_units(change_set, reader, settings.units)
    return LoadedChange(repo, settings, change_set, reader, units)
