"""The workbench's state and the helpers every group of keys uses (no keys of its own here).

``ReviewApp`` is assembled from one mixin per group of keys (``triage_actions``,
``view_actions``, ``model_actions``, ``chat_actions``, ``review_actions``) over this base, so
each file reads as one kind of work and the app module stays the layout. Here: what the
workbench holds and how it adopts a change, starts (theme, keys), shows it is busy and exits;
how the panes show that state is ``panes``, the key map and the footer's order ``keys``.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App, SuspendNotSupported
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets import ProgressBar
from textual.worker import Worker, WorkerState

from reviewtui.tui.idle_gc import IdleCollector
from reviewtui.tui.jobs import LLMJobs
from reviewtui.tui.kept_screen import read_kept
from reviewtui.tui.keys import footer_bindings, resolve_keys
from reviewtui.tui.panes import WorkbenchPanes

if TYPE_CHECKING:  # the change's models load with the change, in the loading worker
    from rich.console import RenderableType
    from textual.notifications import SeverityLevel
    from textual.theme import Theme

    from reviewtui.analysis.progress import ProgressCallback
    from reviewtui.errors import ReviewTuiError
    from reviewtui.forge.threads import PullThread
    from reviewtui.models import Allocation, ContextBundle
    from reviewtui.pipeline import LoadedChange
    from reviewtui.plan import FusedPlan
    from reviewtui.sessions.review_records import ReviewVerdict
    from reviewtui.tui.session import Reviewed, TuiSession
    from reviewtui.tui.triage import Row, Triage


@dataclass(frozen=True)
class Opened:
    """A loaded change made ready for the workbench: its session and its triage (the rules'
    plan with the person's overrides). Any thread may build one (the loading worker does)."""

    session: TuiSession
    triage: Triage

    @classmethod
    def build(cls, loaded: LoadedChange, store_path: Path | None, description: str | None,
              description_source: str = "--description") -> Opened:
        from reviewtui.tui.session import TuiSession
        from reviewtui.tui.triage import Triage

        # ``description``: --description's (or --pr's) text; the session gathers the purpose
        session = TuiSession(loaded, store_path, description=description,
                             description_source=description_source)
        loaded = session.loaded
        plan = loaded.plan(use_llm=False)
        return cls(session, Triage(loaded.units, plan, session.overrides(), session.marks(),
                                   reasons=loaded.priority_reasons))


Loader = Callable[["ProgressCallback"], "LoadedChange"]


class WorkbenchBase(WorkbenchPanes):
    """Given a loaded change it opens on it; given ``load`` it paints a loading view first
    and opens once a worker has loaded the change (``opening_actions``)."""

    def __init__(self, loaded: LoadedChange | None = None, *, store_path: Path | None = None,
                 watch: bool = False, description: str | None = None,
                 load: Loader | None = None, pull: str | None = None,
                 description_source: str = "--description",
                 theme: str | Callable[[], str | None] | None = None,
                 kept_path: Path | None = None) -> None:
        super().__init__()
        # The settings' theme, set before loading (opening_actions); a callable reads it
        # once the loading view is on screen (the settings' models are not needed before).
        self.theme_hint = theme
        if loaded is None and load is None:
            raise ValueError("the workbench needs a loaded change or a way to load one")
        self.pull = pull  # --pr's pull request: X can publish the review to it
        self.pull_threads: list[PullThread] = []  # its review comments, once loaded
        self.description_source = description_source
        self.watch_files = watch  # refresh by itself when files change (--watch)
        self.watch_stop = threading.Event()
        self.store_path, self.description_text = store_path, description
        self.load = load if loaded is None else None  # None once the change is loaded
        self.open_error: ReviewTuiError | None = None  # why loading failed (the CLI says it)
        self._filter_timer: Timer | None = None
        self.idle_gc = IdleCollector()  # full collections in the person's pauses (see there)
        self.rows: list[Row] = []
        self.bundles: dict[str, ContextBundle] = {}
        self.allocation: Allocation | None = None  # of the last build (b)
        self.jobs = LLMJobs()
        self.verdict: ReviewVerdict | None = None
        self.current_finding: str | None = None  # the fingerprint f/F moved to
        # Unit keys whose last review read an earlier version of them (``review_versions``);
        # a review that finished while a refresh was under way, checked once it is adopted.
        self.earlier_reviews: set[str] = set()
        self.refreshing = False
        self.review_to_check: Reviewed | None = None
        self._earlier_shown = False  # the session's earlier rounds, shown in the chat once
        self._message = ""  # the last event the status line reports
        self._keys: dict[str, str] = {}
        self._theme_name = ""
        self._theme_problems: list[str] = []
        # The first screen as last left (``kept_screen``): shown while loading, in its theme.
        self.kept_path = kept_path
        self.kept_screen = read_kept(kept_path) if load is not None else None
        if self.kept_screen is not None and self.kept_screen.theme is not None:
            self._start_in(self.kept_screen.theme)
        if loaded is not None:
            self.adopt(Opened.build(loaded, store_path, description, description_source))

    def _start_in(self, theme: Theme) -> None:
        """Start in ``theme``. A dark one without Textual's watcher, which parsed the app's
        CSS a second time before the first paint (the CSS is parsed with the theme set; the
        classes are the watcher's); a light one changes the terminal colours' mapping too."""
        self.register_theme(theme)
        if not theme.dark:
            self.theme = theme.name
            return
        self.set_reactive(App.theme, theme.name)
        self.stylesheet.set_variables(self.get_css_variables())  # (read when it was made)
        self.set_class(True, f"-theme-{theme.name}")

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollDown,
                              events.MouseScrollUp)):
            self.idle_gc.touched()
        await super().on_event(event)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Plain text unless asked: a notification names files, findings and errors, where a
        ``[`` is not markup (``app/[id]/page.tsx`` lost its ``[id]``, ``[/x]`` raised)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def adopt(self, opened: Opened) -> None:
        """Work on this change: its session and triage, its keys and themes (settings)."""
        from reviewtui.tui.themes import load_themes
        from reviewtui.tui.triage import Filter

        self.session = opened.session
        self.loaded = opened.session.loaded
        self.triage = opened.triage
        self.filter = Filter()
        settings = self.loaded.settings.tui
        self._keys = resolve_keys(settings.keys)
        self._bind_keys()
        themes = load_themes()
        for theme in themes.themes:
            self.register_theme(theme)
        self._theme_name, unknown = themes.choose(settings.theme)
        self._theme_problems = [*themes.problems, *([unknown] if unknown else [])]

    def _bind_keys(self) -> None:
        """Bind every key of the key map (``keys.footer_bindings``: the footer's order)."""
        for binding in footer_bindings(self._keys):
            self._bindings.key_to_bindings.setdefault(binding.key, []).append(binding)

    def exit(self, result: None = None, return_code: int = 0,
             message: RenderableType | None = None) -> None:
        """Leave the workbench, closing every running LLM call first: its thread ends at once
        (else the process outlived the screen until the model answered) and asks the model
        nothing more (a repair of that answer was a paid request after the person left)."""
        self.jobs.cancel()
        super().exit(result, return_code, message)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self._show_busy()

    def _show_busy(self) -> None:
        """The progress indicator shows while any long task (planner, scanners, bundles,
        review, chat) runs; a cancelled LLM call stops showing at once."""
        running = self.jobs.running() or any(
            w.state in (WorkerState.PENDING, WorkerState.RUNNING)
            # (the watcher of --watch runs as long as the workbench: it is not work to wait on)
            for w in self.workers if w.group not in ("planner", "review", "chat", "watch"))
        try:
            bar = self.query_one("#busy", ProgressBar)
        except NoMatches:  # a worker ended while the app closes: no screen to show it on
            return
        bar.set_class(running, "running")

    def run_editor(self, command: list[str]) -> int | None:
        """Run the editor with the terminal handed over; its exit status, or None (and a
        notification) when it could not run or failed."""
        try:
            try:
                with self.suspend():
                    proc = subprocess.run(command, check=False)
            except SuspendNotSupported:  # no terminal to hand over (tests, the web)
                proc = subprocess.run(command, check=False, stdin=subprocess.DEVNULL,
                                      capture_output=True)
        except OSError as exc:
            self.notify(f"cannot run {command[0]}: {exc.strerror or exc}", title="editor",
                        severity="error")
            return None
        if proc.returncode != 0:
            self.notify(f"{Path(command[0]).name} exited with status {proc.returncode}",
                        title="editor", severity="warning")
            return None
        return proc.returncode

    def settle_review(self, reviewed: Reviewed) -> str:
        """A finished review against the change worked on now: the units it read as they are
        lose their "earlier version" mark; those whose text changed under it get it, and the
        findings are followed to the change as it is ("fixed?" where their lines changed).
        The status line's note on it ("" when nothing changed under the review)."""
        from reviewtui.tui.review_versions import earlier_versions

        versions = earlier_versions(reviewed.units, self.loaded.units)
        self.earlier_reviews -= versions.current
        if not versions.changed:
            return ""
        self.earlier_reviews |= versions.marked
        followed = self.session.follow_findings(self.loaded)
        if followed is not None and followed.problem:
            self.notify(followed.problem, title="findings not followed", severity="error")
        return versions.note(followed.lost if followed is not None else 0)

    def fused_with_overrides(self) -> FusedPlan:
        items = [self.triage.item(i.unit_id) for i in self.triage.plan.plan]
        return self.triage.plan.model_copy(update={"plan": items})

    def persist(self) -> None:
        problem = self.session.save(self.triage.overrides, self.triage.marks)
        if problem:
            self.notify(problem, title="not saved", severity="error")

