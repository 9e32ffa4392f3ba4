"""Open first, analyse after: the loading view, units streaming in, the swap, q while loading."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.screen import Screen
from textual.widgets import DataTable, Static

from reviewtui.analysis.progress import AnalysisProgress, ProgressCallback
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.base import Opened
from reviewtui.tui.screens.loading import LoadingScreen
from reviewtui.tui.widgets.loading_view import LoadingView
from reviewtui.tui.widgets.unit_table import UnitTable
from tests.conftest import GitRepoBuilder
from tests.support.opening import until as _until
from tests.support.opening import write_change

FILES = 40


def _change(repo: GitRepoBuilder) -> None:
    write_change(repo, FILES)


def _slowed(root: Path, per_file: float, heard: list[AnalysisProgress],
            gate: threading.Event | None = None) -> Callable[[ProgressCallback], LoadedChange]:
    """The workbench's own way of loading, every file's analysis taking ``per_file`` longer;
    with a ``gate``, the last files wait until it opens (however slow the machine, the test
    acts while the change is still loading)."""

    def load(progress: ProgressCallback) -> LoadedChange:
        def slow(report: AnalysisProgress) -> None:
            heard.append(report)
            time.sleep(per_file)
            if gate is not None and report.done >= FILES - 2:
                gate.wait(30)
            progress(report)

        return load_change(root, ChangeSelector(SelectorMode.AUTO), use_cache=False,
                           progress=slow).with_reach()

    return load


async def test_the_loading_view_then_rows_with_the_moved_cursor_kept(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    _change(repo)
    heard: list[AnalysisProgress] = []
    gate = threading.Event()
    app = ReviewApp(load=_slowed(repo.root, 0.04, heard, gate),
                    store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(app.screen.query(LoadingView)))
        view = app.screen.query_one(LoadingView)
        line = view.query_one("#loading-line", Static)
        assert not app.query(UnitTable)  # the workbench waits for the change
        await _until(pilot, lambda: any(t.row_count >= 5 for t in view.query(DataTable)))
        text = str(line.render())
        assert "Analysing" in text and f"/{FILES} files" in text and "largest left: app/m" in text
        assert heard[-1].done < FILES  # still analysing, rows already on screen
        await pilot.press("down", "down", "down")
        chosen = view.selected_unit
        assert chosen is not None
        gate.set()
        await _until(pilot, lambda: bool(app.rows))
        assert not app.screen.query(LoadingView)
        assert len(app.rows) == FILES
        assert app.current() == chosen  # the priority order settled around the cursor's unit
        assert app.load is None and app.open_error is None
        await pilot.press("j")  # the workbench's keys work now
        assert app.current() != chosen
        await pilot.pause(0.1)


async def test_without_a_moved_cursor_the_table_starts_at_the_top(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    _change(repo)
    app = ReviewApp(load=_slowed(repo.root, 0.0, []), store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(app.rows))
        assert app.current() == app.rows[0].unit.unit_id
        assert app.table.cursor_row == 0
        await pilot.pause(0.1)  # the new header sets its title before the app closes


async def test_the_swap_to_the_workbench_paints_no_empty_screen_between(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """Every frame painted is the loading view or the whole workbench: popping the loading
    screen painted the empty screen underneath while the workbench was composed (a blank
    terminal for ~0.2 s between the two in tmux)."""
    _change(repo)
    app = ReviewApp(load=_slowed(repo.root, 0.0, []), store_path=tmp_path / "s.sqlite3")
    frames: list[str] = []
    display = app._display

    def recorded(screen: Screen[object], renderable: object) -> None:
        if renderable is not None and not app._batch_count:  # what reaches the terminal
            frames.append("loading" if isinstance(screen, LoadingScreen)
                          else "workbench" if screen.query(UnitTable) and app.rows
                          else "other")
        display(screen, renderable)  # type: ignore[arg-type]

    app._display = recorded  # type: ignore[method-assign]
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(app.rows))
        await pilot.pause(0.2)
    assert frames[0] == "loading" and frames[-1] == "workbench"
    assert "other" not in frames, frames


async def test_q_while_loading_quits_at_once(repo: GitRepoBuilder, tmp_path: Path) -> None:
    _change(repo)
    heard: list[AnalysisProgress] = []
    app = ReviewApp(load=_slowed(repo.root, 0.25, heard), store_path=tmp_path / "s.sqlite3")
    started = time.monotonic()
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: len(heard) >= 2)
        # the workbench's keys mean nothing yet (there is no workbench): nothing breaks
        await pilot.press("escape", "j", "slash", "question_mark", "R")
        assert app.is_running and app.load is not None
        await pilot.press("q")
        await _until(pilot, lambda: not app.is_running)
    # 40 files at a quarter of a second each: the analysis stopped at its next report
    assert time.monotonic() - started < 5
    assert len(heard) < FILES // 2
    assert app.open_error is None


async def test_a_change_that_cannot_load_ends_the_app_with_its_error(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    _change(repo)

    def load(progress: ProgressCallback) -> LoadedChange:
        return load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="no-such-ref"),
                           progress=progress)

    app = ReviewApp(load=load, store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: not app.is_running)
    assert app.open_error is not None and "no-such-ref" in str(app.open_error)
    assert app.return_code == 1


async def test_the_workbench_load_of_the_command_line(repo: GitRepoBuilder,
                                                      tmp_path: Path) -> None:
    """``reviewtui``'s own load (a forked process when this test process has no threads)."""
    from reviewtui.app.open_change import WorkbenchLoad

    _change(repo)
    opening = WorkbenchLoad(repo.root, ChangeSelector(SelectorMode.AUTO))
    app = ReviewApp(load=opening, store_path=tmp_path / "s.sqlite3")
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await _until(pilot, lambda: bool(app.rows))
            assert len(app.rows) == FILES and app.open_error is None
            await pilot.pause(0.1)
    finally:
        opening.stop()
    if opening.background is not None:
        assert not opening.background.alive


async def _events_of_opening(root: Path, store: Path,
                             theme: str | Callable[[], str | None] | None,
                             monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What happened, in order: CSS refreshes (by theme), the settings' theme read (when
    ``theme`` is a callable, with whether the loading view was on screen then) and the change
    being adopted."""
    events: list[str] = []
    if callable(theme):
        read = theme

        def reading() -> str | None:
            shown = bool(app.screen.query(LoadingView)) and app.screen.is_current
            events.append(f"theme read, loading view {'shown' if shown else 'not shown'}")
            return read()

        theme = reading
    refresh_css, finish_loading = ReviewApp.refresh_css, ReviewApp.finish_loading

    def refreshing(self: ReviewApp, animate: bool = True) -> None:
        events.append(f"css {self.theme}")
        refresh_css(self, animate)

    def finishing(self: ReviewApp, opened: Opened) -> str | None:
        events.append("loaded")
        return finish_loading(self, opened)

    monkeypatch.setattr(ReviewApp, "refresh_css", refreshing)
    monkeypatch.setattr(ReviewApp, "finish_loading", finishing)
    app = ReviewApp(load=_slowed(root, 0.0, []), store_path=store, theme=theme)
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(app.rows))
        await pilot.pause(0.1)
        assert app.theme == "nord"
    return events


async def test_it_opens_in_the_settings_theme_and_keeps_it(repo: GitRepoBuilder, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """The settings' theme is set while only the loading view is there, so the workbench is
    not restyled (all of Textual's CSS parsed again) once it has been composed."""
    from reviewtui.app.open_change import WorkbenchLoad

    _change(repo)
    repo.write(".reviewtui.toml", '[tui]\ntheme = "nord"\n')
    opening = WorkbenchLoad(repo.root, ChangeSelector(SelectorMode.AUTO), use_cache=False)
    assert opening.theme() == "nord"
    hinted = await _events_of_opening(repo.root, tmp_path / "s.sqlite3", "nord", monkeypatch)
    assert hinted.index("css nord") < hinted.index("loaded")
    assert hinted[hinted.index("loaded"):] == ["loaded"]  # nothing restyled after loading
    # As ``reviewtui`` gives it: read once the loading view is on screen, before the load.
    read = await _events_of_opening(repo.root, tmp_path / "s.sqlite3", opening.theme,
                                    monkeypatch)
    assert read.count("theme read, loading view shown") == 1
    assert read.index("theme read, loading view shown") < read.index("css nord")
    assert read[read.index("loaded"):] == ["loaded"]
    blind = await _events_of_opening(repo.root, tmp_path / "s.sqlite3", None, monkeypatch)
    assert "css nord" in blind[blind.index("loaded"):]  # without it: restyled after loading


async def test_a_committed_range_opens_again_from_its_snapshot(
        repo: GitRepoBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second open of a range through ``reviewtui``'s own load neither collects nor
    analyses nor counts the order again, and shows the same rows, reasons and diff."""
    import reviewtui.analysis as analysis_package
    import reviewtui.git.collect as collect
    import reviewtui.rules.learned_priority as learned_priority
    from reviewtui.app.open_change import WorkbenchLoad

    _change(repo)
    repo.commit("change")
    calls: list[str] = []

    def counting(function: Callable[..., object], name: str) -> Callable[..., object]:
        def counted(*args: object, **kwargs: object) -> object:
            calls.append(name)
            return function(*args, **kwargs)
        return counted

    for module, name in ((collect, "collect_change"), (analysis_package, "analyse_change"),
                         (learned_priority, "priority_order")):
        monkeypatch.setattr(module, name, counting(getattr(module, name), name))

    async def opened() -> list[tuple[str, str, tuple[str, ...], str]]:
        opening = WorkbenchLoad(repo.root, ChangeSelector(SelectorMode.RANGE, "HEAD~1..HEAD"))
        app = ReviewApp(load=opening, store_path=tmp_path / "s.sqlite3")
        try:
            async with app.run_test(size=(140, 40)) as pilot:
                await _until(pilot, lambda: bool(app.rows) and app.load is None)
                await pilot.pause(0.1)
                assert app.open_error is None
                return [(row.unit.unit_id, row.item.final_context_level.value, row.why,
                         row.unit.diff_text()) for row in app.rows]
        finally:
            opening.stop()

    first = await opened()
    assert calls and len(first) == FILES
    calls.clear()
    again = await opened()
    assert [row for row in again if row not in first] == []
    assert again == first
    assert calls == []

