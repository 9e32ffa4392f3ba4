"""Collect a change in a thread, so git computes the diff while the caller loads the rest.

``pipeline.load_change`` starts it before the settings, pydantic and the rule stage are even
imported; the thread itself never imports anything.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from reviewtui.git.model import ChangeSet
from reviewtui.git.selector import ChangeSelector

if TYPE_CHECKING:
    from reviewtui.config import Settings
    from reviewtui.git.runner import GitRepo


class Collecting:
    """``collect_change`` in a thread, so git computes the diff while this one loads the rest.

    For a commit, a range or the index, git starts before the settings (and pydantic) are even
    imported; the modes that read settings (untracked files' size limit, the default branch)
    get them from the caller. The thread never imports anything itself.
    """

    def __init__(self, repo: GitRepo | None, selector: ChangeSelector, root: Path,
                 settings: Settings | None) -> None:
        from reviewtui.git.collect import DEFAULT_MAX_FILE_BYTES, collect_change

        self._collect = collect_change
        max_bytes = settings.git.max_file_bytes if settings else DEFAULT_MAX_FILE_BYTES
        branch = settings.git.default_branch if settings else None
        self._args = (repo, selector, root, max_bytes, branch)
        self._result: ChangeSet | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="reviewtui-collect", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        repo, selector, root, max_bytes, branch = self._args
        try:
            self._result = self._collect(repo, selector, patch_root=root,
                                          max_file_bytes=max_bytes, default_branch_name=branch)
        except BaseException as exc:  # handed to the caller of result()
            self._error = exc

    def result(self) -> ChangeSet:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result
