"""Paths, filter text and reasons are shown as they are: a ``[`` in them is not markup.

Textual and Rich read a ``str`` as markup in a table cell, a ``Static`` and a notification:
``app/[id]/page.py`` (a route folder of Next.js, SvelteKit, Nuxt) lost its ``[id]``, the
detail's ``[rule]`` marks on extra requests vanished, and a closing tag such as ``[/x]`` --
typed into the filter, or in a folder name -- raised out of the app.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from textual.widgets import DataTable, Static

from reviewtui.analysis.progress import ProgressCallback
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.loading_view import LoadingView
from reviewtui.tui.widgets.unit_table import UnitTable
from tests.conftest import GitRepoBuilder

ROUTE = "app/[id]/page.py"
ODD = "x[/y]/z.py"


def _repo(repo: GitRepoBuilder) -> None:
    for path in (ROUTE, ODD):
        repo.write(path, "def view(request):\n    return request.user\n")
    repo.commit("base")
    for path in (ROUTE, ODD):
        repo.write(path, "def view(request):\n    return request.user.name\n")


def _cell_texts(table: DataTable[object], column: int) -> list[str]:
    return [str(table.get_row_at(n)[column]) for n in range(table.row_count)]


def _plain(static: Static) -> str:
    """What ``static`` shows, as text (its content rendered by Rich at a wide width)."""
    console = Console(width=240, file=io.StringIO(), record=True)
    console.print(static.content, markup=False)
    return console.export_text()


async def test_brackets_in_paths_and_the_filter_are_shown_as_typed(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    _repo(repo)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    app = ReviewApp(loaded, store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        table = app.query_one(UnitTable)
        locations = _cell_texts(table, table.fit.columns.index("location"))
        assert any(ROUTE in text for text in locations)
        assert any(ODD in text for text in locations)
        for _ in range(table.row_count):  # each unit's detail, the odd folder's too
            detail = _plain(app.query_one(DetailPane).query_one("#decision", Static))
            unit = app.triage.by_id[app.current() or ""]
            assert unit.location in detail
            if app.triage.item(unit.unit_id).extra_requests:
                assert "[rule]" in detail or "[llm]" in detail
            await pilot.press("j")
        await pilot.press("slash", *"[/x]", "enter")
        await pilot.pause()
        assert app.is_running
        assert "filter: [/x]" in _plain(app.query_one("#status", Static))
        app.notify(f"cannot read {ODD}")
        await pilot.pause()
        assert app.is_running


def _streamed(root: Path) -> Callable[[ProgressCallback], LoadedChange]:
    """The change loaded as the workbench loads it, its streamed rows kept on screen a moment."""

    def load(progress: ProgressCallback) -> LoadedChange:
        loaded = load_change(root, ChangeSelector(SelectorMode.AUTO), use_cache=False,
                             progress=progress)
        time.sleep(0.5)
        return loaded

    return load


async def test_the_loading_view_shows_bracketed_paths(repo: GitRepoBuilder,
                                                      tmp_path: Path) -> None:
    _repo(repo)

    app = ReviewApp(load=_streamed(repo.root), store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 40)) as pilot:
        end = time.monotonic() + 20
        seen: list[str] = []
        while time.monotonic() < end and len(seen) < 2:
            views = app.screen.query(LoadingView)
            if views:
                seen = _cell_texts(views.first().query_one(DataTable), 0)
            await pilot.pause(0.02)
        assert any(ROUTE in text for text in seen) and any(ODD in text for text in seen)


async def test_a_path_opening_with_zero_width_joiners_is_painted(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """Rich raised painting such a path in the loading view's table (``tui.rich_graphemes``):
    the app ended with a traceback as it opened. Then the workbench shows it too."""
    odd = "\u200d\u200d\u4e2d\u4e2d\u4e2d" * 12 + ".py"
    repo.write(odd, "def f():\n    return 1\n")
    repo.write("b.py", "def g():\n    return 1\n")
    repo.commit("base")
    repo.write(odd, "def f():\n    return 2\n")
    repo.write("b.py", "def g():\n    return '\u200d\u200d\u4e2d'\n")
    shown: list[str] = []

    app = ReviewApp(load=_streamed(repo.root), store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(100, 30)) as pilot:
        end = time.monotonic() + 20
        while time.monotonic() < end and not app.rows:
            views = app.screen.query(LoadingView)
            if views:
                shown = _cell_texts(views.first().query_one(DataTable), 0)
            await pilot.pause(0.02)
        assert any(text.startswith("\u200d\u200d") for text in shown)
        table = app.query_one(UnitTable)
        while time.monotonic() < end and not table.row_count:
            await pilot.pause(0.02)  # the rows are added at the table's first refresh
        assert any("\u4e2d" in text for text in _cell_texts(
            table, table.fit.columns.index("location")))
        await pilot.press("j", "k", "j")
        await pilot.pause()
        assert app.is_running


async def test_controls_in_a_path_and_a_line_never_reach_the_terminal(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """A file named with ``ESC [2J`` cleared the screen when the workbench opened, and an OSC
    in a diff line set the terminal's title: every frame is now written without them, the
    path's escape shown as its picture."""
    odd = "a\x1b[2J\x1b[31mred.py"
    repo.write(odd, "def f():\n    return 1\n")
    repo.commit("base")
    repo.write(odd, "def f():\n    return '\x1b]0;pwned\x07'\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    app = ReviewApp(loaded, store_path=tmp_path / "s.sqlite3")
    written: list[str] = []
    display = app._display

    def recorded(screen: object, renderable: object) -> None:
        render = getattr(renderable, "render_segments", None)
        if render is not None:
            written.append(render(app.console))
        display(screen, renderable)  # type: ignore[arg-type]

    app._display = recorded  # type: ignore[method-assign]
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("j", "k")
        await pilot.pause()
    out = "".join(written)
    assert "\u241b[2J\u241b[31mred.py" in out  # shown, as pictures
    assert "\x1b[2J" not in out and "\x1b]0;" not in out and "pwned\x07" not in out
