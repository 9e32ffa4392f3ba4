"""The footer composes its keys again only when what it shows changes: opening the workbench
and moving the focus between panes that share their keys keep the same key widgets, while the
chat input (whose keys differ) gets its own."""

from __future__ import annotations

from pathlib import Path

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.key_footer import KeyFooter
from tests.conftest import GitRepoBuilder


def _app(repo: GitRepoBuilder, store: Path) -> ReviewApp:
    repo.write("app/auth.py", "def login(u):\n    return u.ok\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(u):\n    return u.ok and u.active\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b + 0\n")
    return ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)),
                     store_path=store)


async def test_the_footer_keeps_its_keys_until_they_change(repo: GitRepoBuilder,
                                                           tmp_path: Path) -> None:
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        keys = list(footer.query("FooterKey"))
        assert [k.key for k in keys][:3] == ["question_mark", "q", "c"]
        app.refresh_bindings()  # the bindings "changed" to the same keys
        await pilot.pause()
        assert list(footer.query("FooterKey")) == keys  # the same widgets, not new ones
        app.query_one(DetailPane).focus()  # another pane, the same keys
        await pilot.pause()
        assert list(footer.query("FooterKey")) == keys
        await pilot.press("c")  # the chat input: its own first key
        await pilot.pause()
        shown = [(k.key, k.description) for k in footer.query("FooterKey")]
        assert shown[0] == ("escape", "leave chat")
        await pilot.press("escape")
        await pilot.pause()
        assert ("escape", "leave chat") not in [(k.key, k.description)
                                                for k in footer.query("FooterKey")]
        await pilot.click("FooterKey.-compact", offset=(1, 0))  # the first key, clickable
        await pilot.pause()
        assert app.screen.__class__.__name__ == "HelpScreen"
