"""A change opened again shows its first rows as the person left them, before it is loaded."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from textual import events
from textual.color import Color
from textual.events import Resize
from textual.widgets import Static

from reviewtui.analysis.progress import ProgressCallback
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.kept_screen import read_kept
from reviewtui.tui.widgets.kept_table import KeptTable
from reviewtui.tui.widgets.loading_view import LoadingView
from reviewtui.tui.widgets.unit_table import UnitTable
from tests.conftest import GitRepoBuilder
from tests.support.opening import until as _until
from tests.support.opening import write_change

FILES = 12


def _change(repo: GitRepoBuilder) -> None:
    write_change(repo, FILES)


def _load(root: Path, gate: threading.Event | None = None
          ) -> Callable[[ProgressCallback], LoadedChange]:
    def load(progress: ProgressCallback) -> LoadedChange:
        if gate is not None:
            gate.wait(30)  # however quick the load, the test looks while it has not ended
        return load_change(root, ChangeSelector(SelectorMode.AUTO),
                           progress=progress).with_reach()

    return load


def _painted(table: UnitTable | KeptTable) -> list[list[str]]:
    """The table's visible rows as its cells' text."""
    return [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]


async def test_the_next_open_shows_the_rows_as_left_then_the_workbench_in_their_place(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    _change(repo)
    kept_path = tmp_path / "screens" / "change.json"
    store = tmp_path / "s.sqlite3"
    first = ReviewApp(load=_load(repo.root), store_path=store, kept_path=kept_path)
    async with first.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(first.rows))
        await _until(pilot, kept_path.exists)  # kept as soon as the workbench is on screen
        opened_order = [row.unit.unit_id for row in first.rows]
        await pilot.press("j", "s")  # the second unit skipped
        skipped = first.rows[1].unit.unit_id
        first.theme = "nord"
        await pilot.pause()
        left = _painted(first.table)
        left_region = first.table.region
        await pilot.press("slash", *"m0", "enter")  # left with a filter on
        await _until(pilot, lambda: len(first.rows) < FILES)
    kept = read_kept(kept_path)  # as the app was left: every row, the decision, the theme
    assert kept is not None and [row.unit_id for row in kept.rows] == opened_order
    assert kept.theme is not None and kept.theme.name == "nord"

    gate = threading.Event()
    second = ReviewApp(load=_load(repo.root, gate), store_path=store, kept_path=kept_path)
    async with second.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(second.screen.query(KeptTable))
                     and second.screen.query_one(KeptTable).row_count == FILES)
        assert second.load is not None  # still loading: these are the kept rows
        assert second.theme == "nord"  # painted in the theme they were left in
        assert "-theme-nord" in second.classes
        assert second.screen.query_one(KeptTable).styles.background == Color.parse(
            second.get_css_variables()["surface"])
        table = second.screen.query_one(KeptTable)
        assert _painted(table) == left  # the same cells, the skipped row's glyph included
        assert table.region == left_region  # where the workbench's table will be
        title = str(second.screen.query_one("#loading-title", Static).render())
        assert title.startswith("reviewtui — all: HEAD -> worktree")  # the header's line
        line = str(second.screen.query_one("#loading-line", Static).render())
        assert f"{FILES} units as you left them" in line
        await pilot.press("j", "j", "down")  # the cursor moves on them
        chosen = second.screen.query_one(LoadingView).selected_unit
        assert chosen == opened_order[3]
        gate.set()
        await _until(pilot, lambda: bool(second.rows) and second.table.row_count > 0)
        assert not second.screen.query(KeptTable)
        assert second.current() == chosen  # the workbench keeps the row the person moved to
        assert second.triage.row(skipped).status == "skipped"
        assert _painted(second.table) == left
        await pilot.pause(0.1)


async def test_a_change_that_changed_since_is_shown_as_it_is_now(repo: GitRepoBuilder,
                                                                 tmp_path: Path) -> None:
    _change(repo)
    kept_path = tmp_path / "screens" / "change.json"
    store = tmp_path / "s.sqlite3"
    first = ReviewApp(load=_load(repo.root), store_path=store, kept_path=kept_path)
    async with first.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(first.rows) and kept_path.exists())
    repo.write("app/new.py", "def g():\n    return 0\n")  # an edit since: one more unit
    second = ReviewApp(load=_load(repo.root), store_path=store, kept_path=kept_path)
    async with second.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(second.rows) and second.table.row_count > 0)
        assert second.table.row_count == FILES + 1
        assert any(row.unit.file_path == "app/new.py" for row in second.rows)
        await pilot.pause(0.1)
    kept = read_kept(kept_path)
    assert kept is not None and kept.total == FILES + 1


async def test_without_a_kept_screen_the_loading_view_streams_as_before(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    _change(repo)
    kept_path = tmp_path / "screens" / "change.json"
    kept_path.parent.mkdir()
    kept_path.write_text("{ not a kept screen")
    gate = threading.Event()
    app = ReviewApp(load=_load(repo.root, gate), store_path=tmp_path / "s.sqlite3",
                    kept_path=kept_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(app.screen.query(LoadingView)))
        assert not app.screen.query(KeptTable)
        assert "as you left them" not in str(app.screen.query_one("#loading-line",
                                                                  Static).render())
        gate.set()
        await _until(pilot, lambda: bool(app.rows))
        await pilot.pause(0.1)
    assert read_kept(kept_path) is not None  # written whole over the broken one


async def _kept_then_loading(repo: GitRepoBuilder, tmp_path: Path,
                             between: Callable[[], None] | None = None
                             ) -> tuple[ReviewApp, threading.Event, list[str]]:
    """A first open (keeping its rows), ``between`` run, then a second app whose load waits
    for the returned gate; and the first open's order."""
    _change(repo)
    kept_path = tmp_path / "screens" / "change.json"
    first = ReviewApp(load=_load(repo.root), store_path=tmp_path / "s.sqlite3",
                      kept_path=kept_path)
    async with first.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(first.rows) and kept_path.exists())
        order = [row.unit.unit_id for row in first.rows]
    if between is not None:
        between()
    gate = threading.Event()
    return (ReviewApp(load=_load(repo.root, gate), store_path=tmp_path / "s.sqlite3",
                      kept_path=kept_path), gate, order)


async def test_keys_pressed_on_the_kept_rows_apply_once_the_workbench_opens(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    app, gate, order = await _kept_then_loading(repo, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(app.screen.query(KeptTable))
                     and app.screen.query_one(KeptTable).row_count == FILES)
        for key in "jsj":  # skip the second unit, then move on: typed at once, as a person
            app.post_message(events.Key(key, key))  # does (Pilot waits after each key)
        await pilot.pause()
        assert app.load is not None  # pressed before the workbench could answer
        gate.set()
        await _until(pilot, lambda: bool(app.rows) and app.table.row_count > 0)
        await _until(pilot, lambda: app.triage.row(order[1]).status == "skipped")
        await _until(pilot, lambda: app.current() == order[2])
        assert [app.triage.row(unit).status for unit in order[:3]] == ["new", "skipped", "new"]
        await pilot.pause(0.1)


async def test_keys_held_for_a_unit_the_change_no_longer_has_are_dropped_and_said(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    def revert_first_file() -> None:  # the unit on the kept first row is gone
        repo.write("app/m00.py", "def f0():\n    return 0\n")

    app, gate, order = await _kept_then_loading(repo, tmp_path, revert_first_file)
    notes: list[str] = []
    async with app.run_test(size=(140, 40)) as pilot:
        original = app.notify
        app.notify = lambda message, **kw: (notes.append(message), original(message, **kw))[1]
        await _until(pilot, lambda: bool(app.screen.query(KeptTable)))
        await pilot.press("s")  # on the kept first row
        gate.set()
        await _until(pilot, lambda: bool(app.rows) and app.table.row_count > 0)
        await _until(pilot, lambda: bool(notes))
        assert order[0] not in {row.unit.unit_id for row in app.rows}
        assert all(row.status == "new" for row in app.rows)  # nothing skipped
        assert "1 key(s) pressed while the change loaded were not applied" in notes[0]
        await pilot.pause(0.1)


async def test_q_quits_on_the_kept_rows_even_after_held_keys(repo: GitRepoBuilder,
                                                             tmp_path: Path) -> None:
    app, gate, _ = await _kept_then_loading(repo, tmp_path)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await _until(pilot, lambda: bool(app.screen.query(KeptTable)))
            await pilot.press("s", "slash", "q")
            await _until(pilot, lambda: not app.is_running)
        assert app.load is not None and app.open_error is None  # left before it loaded
    finally:
        gate.set()


async def test_a_light_theme_kept_is_painted_light(tmp_path: Path) -> None:
    from textual.theme import BUILTIN_THEMES

    from reviewtui.errors import ReviewTuiError
    from reviewtui.tui.kept_screen import KeptScreen, write_kept

    kept_path = tmp_path / "screens" / "change.json"
    write_kept(kept_path, KeptScreen(0, 0, (), BUILTIN_THEMES["textual-light"], "reviewtui"))
    gate = threading.Event()

    def load(progress: ProgressCallback) -> LoadedChange:
        gate.wait(30)
        raise ReviewTuiError("not loaded in this test")

    app = ReviewApp(load=load, kept_path=kept_path)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await _until(pilot, lambda: bool(app.screen.query(KeptTable)))
            assert app.theme == "textual-light" and not app.current_theme.dark
            assert "-light-mode" in app.classes and "-dark-mode" not in app.classes
            assert app.screen.query_one(KeptTable).styles.background == Color.parse(
                app.get_css_variables()["surface"])
            await pilot.press("q")
            await _until(pilot, lambda: not app.is_running)
    finally:
        gate.set()


async def test_a_narrow_terminal_lays_the_kept_rows_out_narrow_from_the_first_paint(
        repo: GitRepoBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fits: list[object] = []
    on_resize = KeptTable.on_resize

    def recording(self: KeptTable, event: Resize) -> None:
        on_resize(self, event)
        fits.append(self.fit)

    monkeypatch.setattr(KeptTable, "on_resize", recording)
    app, gate, _ = await _kept_then_loading(repo, tmp_path)
    try:
        async with app.run_test(size=(80, 30)) as pilot:
            await _until(pilot, lambda: bool(app.screen.query(KeptTable)) and len(fits) >= 1)
            await pilot.pause(0.1)
            assert app.screen.has_class("-narrow")
            table = app.screen.query_one(KeptTable)
            assert table.region.width == 80  # the narrow layout: the table above the detail
            assert fits and all(fit == fits[-1] for fit in fits)  # never the wide columns
            gate.set()
            await _until(pilot, lambda: bool(app.rows) and app.table.row_count > 0)
            assert app.table.fit == fits[-1]
            await pilot.pause(0.1)
    finally:
        gate.set()
