"""The workbench's state and the helpers every group of keys uses (no keys of its own here).

``ReviewApp`` is assembled from one mixin per group of keys (``triage_actions``,
``view_actions``, ``model_actions``, ``chat_actions``, ``review_actions``) over this base, so
each file reads as one kind of work and the app module stays the layout.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on
from textual.app import App, SuspendNotSupported
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets import ProgressBar, Static
from textual.worker import Worker, WorkerState

from reviewtui.tui import status
from reviewtui.tui.idle_gc import IdleCollector
from reviewtui.tui.jobs import LLMJobs
from reviewtui.tui.kept_screen import read_kept
from reviewtui.tui.keys import ACTIONS, resolve_keys
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.intent_pane import IntentPane
from reviewtui.tui.widgets.unit_table import UnitTable

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
    from reviewtui.tui.triage import Filter, Row, Triage
    from reviewtui.tui.widgets.chat_pane import ChatPane

FOOTER_GROUPS = {"next_unit": "move", "prev_unit": "move", "next_file": "file",
                 "prev_file": "file", "level_1": "level", "level_2": "level",
                 "level_3": "level", "level_4": "level", "lower_level": "±level",
                 "raise_level": "±level", "next_finding": "finding", "prev_finding": "finding"}
FOOTER_LABELS = {"run_scanners": "scan", "toggle_reviewed": "done", "edit_requests": "reqs",
                 "build_bundles": "bundle", "zoom": "zoom", "next_finding": "finding",
                 "accept_finding": "accept", "dismiss_finding": "dismiss",
                 "comment": "comment", "export_review": "export", "refresh": "refresh",
                 "verdict": "verdict", "open_editor": "edit", "fix_finding": "fix",
                 "undo_fix": "undo fix"}
# The footer's order: what a newcomer needs first (a narrow terminal cuts the end; ? lists all).
FOOTER_ORDER = ("help", "quit", "toggle_chat", "review", "run_planner", "build_bundles", "filter",
                "toggle_reviewed", "toggle_skip", "edit_requests", "accept_finding",
                "dismiss_finding", "fix_finding", "undo_fix", "comment", "export_review",
                "refresh", "zoom",
                "sort", "run_scanners")


EARLIER_ROUNDS = 6  # the session's rounds the chat shows when first opened (as ask keeps)


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


class WorkbenchBase(App[None]):
    """Given a loaded change it opens on it; given ``load`` it paints a loading view first
    and opens once a worker has loaded the change (``opening_actions``)."""

    loaded: LoadedChange
    session: TuiSession
    triage: Triage
    filter: Filter  # the ``/`` filter (no terms when a change is adopted)

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
        """The footer shows the first key of the actions marked ``show`` and of the grouped
        ones (``1234 level``); every other key is bound all the same, and ``?`` and the
        command palette list them all."""
        # Single keys first in FOOTER_ORDER, grouped ones last (a group followed by a single
        # key loses the space between them in Textual's compact footer).
        rank = {action: n for n, action in enumerate(FOOTER_ORDER)}
        ordered = sorted(self._keys.items(), key=lambda pair: (
            pair[0] in FOOTER_GROUPS, rank.get(pair[0], len(rank))))
        for action, keys in ordered:
            group = FOOTER_GROUPS.get(action)
            for n, key in enumerate(keys.split(",")):
                label = FOOTER_LABELS.get(action, ACTIONS[action][1])
                shown = n == 0 and (ACTIONS[action].show or group is not None)
                binding = Binding(key, action, label, show=shown,
                                  group=Binding.Group(group) if group else None)
                self._bindings.key_to_bindings.setdefault(key, []).append(binding)

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

    # --- helpers --------------------------------------------------------------------------

    @property
    def table(self) -> UnitTable:
        return self.query_one(UnitTable)

    def current(self) -> str | None:
        return self.table.current_unit

    def show_intent(self) -> None:
        """The stated purpose in one line in the header, and whole in the intent pane."""
        cs = self.loaded.change_set
        intent = self.loaded.intent
        line = intent.headline() if intent is not None else ""
        if intent is None or (not intent.commits and not intent.description):
            line = " · ".join(p for p in (line if intent and intent.branch else "",
                                          "no description (i writes one)") if p)
        self.sub_title = f"{status.change_label(cs)} · {line}"
        self.query_one(IntentPane).show(intent)

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

    def set_status(self, text: str | None = None) -> None:
        """Counts · where the plan came from · ``text`` (the last event; None keeps it)."""
        if text is not None:
            self._message = text
        source = status.plan_source(self.session.config, self.triage.plan,
                                    planning=self.jobs.running("planner"))
        parts = [status.counts(self.rows), source, self._message]
        self.query_one("#status", Static).update(" · ".join(p for p in parts if p))

    def refresh_rows(self) -> None:
        self.rows = self.triage.rows(self.filter)
        self.table.show(self.rows, keep=self.current())
        self.show_detail()

    def refresh_unit(self, unit_id: str) -> None:
        """Repaint the unit's row after a decision on it, and every other row of its file
        whose status is not the one shown: the rows are compared, not assumed unchanged (a
        row left showing a status its unit no longer has is a decision the person cannot
        see)."""
        path = self.triage.by_id[unit_id].file_path
        rows: list[Row] = []
        for shown in self.rows:
            if shown.unit.unit_id == unit_id or shown.unit.file_path == path:
                row = self.triage.row(shown.unit.unit_id)
                if row.unit.unit_id == unit_id or row.status != shown.status:
                    self.table.update_unit_row(row)
                    shown = row
            rows.append(shown)
        self.rows = rows
        self.show_detail()
        self.set_status()

    def show_detail(self) -> None:
        from reviewtui.units.model import unit_key

        unit_id = self.current()
        row = self.triage.row(unit_id) if unit_id else None
        earlier = row is not None and unit_key(row.unit) in self.earlier_reviews
        self.query_one(DetailPane).show(row, self.bundles.get(unit_id or ""), self.allocation,
                                        self.current_finding, self.pull_threads, earlier)

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

    def load_review(self) -> None:
        """Read the session's findings and comments into the table and the detail pane."""
        findings, comments, verdict = self.session.review_records()
        self.triage.set_review(findings, comments)
        self.verdict = verdict
        self.refresh_rows()

    def fused_with_overrides(self) -> FusedPlan:
        items = [self.triage.item(i.unit_id) for i in self.triage.plan.plan]
        return self.triage.plan.model_copy(update={"plan": items})

    def persist(self) -> None:
        problem = self.session.save(self.triage.overrides, self.triage.marks)
        if problem:
            self.notify(problem, title="not saved", severity="error")

    @on(UnitTable.UnitSelected)
    def _selected(self, event: UnitTable.UnitSelected) -> None:
        self.show_detail()

    def _apply_filter(self, text: str) -> None:
        from reviewtui.tui.triage import Filter

        self._filter_timer = None
        flt = Filter.parse(text)
        if flt == self.filter:
            return
        self.filter = flt
        self.refresh_rows()
        unknown = flt.unknown()
        self.set_status((f"filter: {text}" + (f" · not understood: {'; '.join(unknown)}"
                                               if unknown else "")) if text else "")

    @property
    def chat_pane(self) -> ChatPane:
        """The chat (imported when first used: it is not on the loading view)."""
        from reviewtui.tui.widgets.chat_pane import ChatPane

        return self.query_one(ChatPane)

    def _open_chat(self, visible: bool) -> None:
        """Open or close the chat; open, it takes the room the detail pane had (see .tcss).
        Opened the first time, it shows the rounds the change's session already had (the
        conversation the next question continues), the last ``EARLIER_ROUNDS`` whole."""
        chat = self.chat_pane
        if visible and not self._earlier_shown:
            self._earlier_shown = True
            earlier = self.session.earlier_rounds()
            chat.show_earlier(earlier[-EARLIER_ROUNDS:], max(0, len(earlier) - EARLIER_ROUNDS))
            chat.set_rounds(self.session.rounds_text())
        chat.set_class(visible, "visible")
        self.screen.set_class(visible, "-chat")
