"""Open first, analyse after: the loading view, the worker that loads the change, the swap.

Started with a way to load the change (``ReviewApp(load=...)``), the workbench paints its
loading view at once and loads in a thread worker: git collects the change, every file is
cut and scored (``analysis.progress`` reports each one, and the worker posts the progress
back at most four times a second, with the units finished since), then the priority order is
counted. When the change is ready the loading view gives way to the workbench, with the unit
the person moved the cursor to still selected. ``q`` quits at any time: the next report from
the analysis ends the worker.

The loading view needs Textual alone: the workbench's own models (the plan, the session and
its store, the triage, the pipeline; pydantic under them) are imported by the worker, first
thing, while the forked analysis runs on the other core -- not by the app module before the
first paint (``tests/unit/test_startup_imports.py`` pins it).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.worker import get_current_worker

from reviewtui.errors import ReviewTuiError
from reviewtui.tui.base import Opened, WorkbenchBase
from reviewtui.tui.kept_screen import kept_from_rows, write_kept
from reviewtui.tui.screens.loading import LoadingScreen
from reviewtui.tui.widgets.loading_view import LoadingView

if TYPE_CHECKING:
    from reviewtui.analysis.progress import AnalysisProgress

# Seconds between two progress messages from the worker (and two ticks of the elapsed time).
# Each one repaints the view while the analysis needs both cores: ten a second cost the app
# ~1 s of CPU on a cold 2,600-unit change, and the first row came ~1 s later than at four.
REPORT_EVERY = 0.25


def import_workbench_models() -> None:
    """Import what the workbench works with once the change is loaded (its rows, session,
    plan, store; ~0.15 s of pydantic models and pipeline code) and the chat it composes: in
    the loading worker, after the loading view is on screen and beside the forked analysis,
    so that neither the first paint nor the swap to the workbench waits for them."""
    import reviewtui.git.intent_text
    import reviewtui.llm
    import reviewtui.pipeline
    import reviewtui.tui.render_review
    import reviewtui.tui.session
    import reviewtui.tui.themes
    import reviewtui.tui.triage
    import reviewtui.tui.widgets.chat_pane  # noqa: F401


class LoadingCancelled(Exception):
    """Raised into the analysis when the app quits while it runs."""


class _Reporter:
    """The analysis' progress callback: gathers the finished units, posts them now and then."""

    def __init__(self, app: OpeningActions) -> None:
        self._app = app
        self._worker = get_current_worker()
        self._last = 0.0
        self._pending: list[AnalysisProgress] = []

    def __call__(self, progress: AnalysisProgress) -> None:
        if self._worker.is_cancelled:
            raise LoadingCancelled
        self._pending.append(progress)
        now = time.perf_counter()
        if now - self._last >= REPORT_EVERY or progress.complete:
            self._last = now
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        latest = self._pending[-1]
        finished = tuple(pair for p in self._pending for pair in p.finished)
        self._pending = []
        self._app.post_message(LoadingView.Progressed(replace(latest, finished=finished)))


class OpeningActions(WorkbenchBase):
    _opening_started = 0.0
    # the unit the kept rows' cursor was on, and the keys held for the workbench (LoadingView)
    _held: tuple[str | None, Sequence[tuple[str, str | None]]] = (None, ())

    def start_opening(self) -> None:
        """Load the change in a worker while the loading view shows how far it got."""
        self._opening_started = time.perf_counter()
        self.push_screen(LoadingScreen(self.kept_screen))
        self._loading_timer = self.set_interval(REPORT_EVERY, self._tick_loading)
        self.call_after_refresh(self._after_first_paint)

    def _after_first_paint(self) -> None:
        """Once the loading view is on screen: the worker that reads the settings' theme,
        then the change (it holds the GIL in long stretches, but this thread answers keys
        between them: the kept rows' cursor moves while it reads)."""
        self._opening_worker()

    @on(LoadingView.ThemeRead)
    def _open_in_theme(self, message: LoadingView.ThemeRead) -> None:
        """Switch to the settings' theme while only the loading view is there: set once the
        workbench is composed, it made Textual parse all of its CSS again and restyle and lay
        out every widget before the first row could show; set before the loading view, it
        held that back instead. (Its problems are said when the workbench opens.)"""
        themes, requested = message.themes, message.requested
        painted = self.current_theme
        for theme in themes.themes:
            self.register_theme(theme)
        name, _ = themes.choose(requested)
        if name not in self.available_themes:
            return
        if name != self.theme:
            self.theme = name
        elif self.get_theme(name) != painted:  # the kept screen's colours, since changed
            self.refresh_css(animate=False)

    def keep_first_screen(self) -> None:
        """Keep the table's first rows, unfiltered, for the next open (``kept_screen``)."""
        if self.kept_path is None or self.load is not None or not hasattr(self, "triage"):
            return
        from reviewtui.tui.triage import Filter

        rows = self.rows if self.filter == Filter() else self.triage.rows(Filter())
        title = f"{self.title} — {self.sub_title}" if self.sub_title else self.title
        write_kept(self.kept_path, kept_from_rows(rows, len(rows), self.current_theme, title))

    def _tick_loading(self) -> None:
        view = self._loading_view()
        if view is not None:
            view.show(None, time.perf_counter() - self._opening_started)

    def _loading_view(self) -> LoadingView | None:
        if not isinstance(self.screen, LoadingScreen):
            return None
        found = self.screen.query(LoadingView)
        return found.first() if found else None

    @work(thread=True, exclusive=True, group="opening")
    def _opening_worker(self) -> None:
        load = self.load
        assert load is not None
        reporter = _Reporter(self)
        try:
            # The settings' theme first (the settings' models: pydantic), read here rather
            # than in the app's thread, where it held every key for ~0.25 s.
            hint = self.theme_hint() if callable(self.theme_hint) else self.theme_hint
            if hint is not None:
                from reviewtui.tui.themes import load_themes

                self.post_message(LoadingView.ThemeRead(load_themes(), hint))
            import_workbench_models()
            loaded = load(reporter)
            reporter.flush()
            opened = Opened.build(loaded, self.store_path, self.description_text,
                                  self.description_source)
        except LoadingCancelled:
            return
        except ReviewTuiError as error:
            self.post_message(LoadingView.Failed(error))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(LoadingView.Loaded(opened))

    @on(LoadingView.Progressed)
    def _loading_progressed(self, message: LoadingView.Progressed) -> None:
        view = self._loading_view()
        if view is not None:
            view.show(message.progress, time.perf_counter() - self._opening_started)

    @on(LoadingView.Failed)
    def _loading_failed(self, message: LoadingView.Failed) -> None:
        self.open_error = message.error
        self.exit(return_code=1)

    def finish_loading(self, opened: Opened) -> str | None:
        """Work on the loaded change from now on; the unit the cursor was moved to while the
        units streamed in (to keep selected in the workbench), if any."""
        view = self._loading_view()
        keep = view.selected_unit if view is not None else None
        held = view.held if view is not None else (None, [])
        if held[1]:  # the workbench opens where they were pressed
            self._held = held
            keep = held[0]
        self._loading_timer.stop()
        self.load = None
        self.adopt(opened)
        return keep

    def press_held_keys(self) -> None:
        """The keys pressed on the kept rows, pressed again now that the workbench answers
        them -- if its cursor is on the unit they were pressed on (else the rows changed
        since: said, and dropped rather than applied to another unit)."""
        unit, keys = self._held
        self._held = (None, ())
        if not keys:
            return
        if unit is None or self.current() != unit:
            self.notify(f"{len(keys)} key(s) pressed while the change loaded were not "
                        "applied: its rows changed since they were shown", severity="warning")
            return
        for key, character in keys:
            self.post_message(events.Key(key, character))

    async def close_loading(self) -> None:
        if isinstance(self.screen, LoadingScreen):
            await self.pop_screen()
