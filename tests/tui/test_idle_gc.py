"""The workbench holds full garbage collections for the person's pauses while it runs."""

from __future__ import annotations

import gc
from pathlib import Path

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.idle_gc import NEVER
from tests.conftest import GitRepoBuilder


async def test_full_collections_wait_while_the_workbench_runs(repo: GitRepoBuilder,
                                                              tmp_path: Path) -> None:
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit("base")
    repo.write("a.py", "def f():\n    return 2\n")
    before = gc.get_threshold()
    app = ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)),
                    store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert app.idle_gc.started
        assert gc.get_threshold()[2] == NEVER
        await pilot.press("j", "k")
    assert gc.get_threshold() == before  # given back when the app ends
