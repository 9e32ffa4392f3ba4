"""A code file a ``-diff`` gitattribute makes binary: the workbench's detail pane says why the
unit has no lines (README, "Tags": ``binary_by_attribute``)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.detail_pane import DetailPane
from tests.conftest import GitRepoBuilder


def _plain(static: Static) -> str:
    console = Console(width=240, file=io.StringIO(), record=True)
    console.print(static.content, markup=False)
    return console.export_text()


async def test_the_detail_pane_says_a_gitattribute_made_the_file_binary(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    repo.write(".gitattributes", "*.py -diff\n")
    repo.write("app/core.py", "def charge(amount):\n    return amount\n")
    repo.commit("base")
    repo.write("app/core.py", "def charge(amount):\n    return amount * 3\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    app = ReviewApp(loaded, store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.pause()
        detail = _plain(app.query_one(DetailPane).query_one("#decision", Static))
        assert "binary_by_attribute" in detail
        assert ("treated as binary because of a gitattribute ('-diff', 'binary', or a diff "
                "driver set binary; git shows no lines, the content may be code)") in detail
