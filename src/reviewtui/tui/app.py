"""``reviewtui``: the workbench over a loaded change (thin shell over the core pipeline).

Started with a way to load the change, it paints a loading view first and lays the workbench
out once the change is loaded (``opening_actions``).

Triage runs on the rules' plan at once; the LLM planner (``P``), scanners (``S``), bundles
(``b``) and the review agent (``R``) run in thread workers that post their results back, so the
table stays responsive. Every decision (level, skip, requests, reviewed) is applied by the core's
override layer and persisted in the session store of this change. This module is the layout;
the keys live in one mixin per group (``triage_actions``, ``view_actions``, ``model_actions``,
``chat_actions``, ``review_actions`` and ``fix_actions`` over it, ``learn_actions``,
``intent_actions``) over ``base.WorkbenchBase``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Header, Input, ProgressBar, Static

from reviewtui.tui import rich_graphemes, terminal_safe  # noqa: F401  (installed on import)
from reviewtui.tui.chat_actions import ChatActions
from reviewtui.tui.fix_actions import FixActions
from reviewtui.tui.idle_gc import CHECK_EVERY
from reviewtui.tui.intent_actions import IntentActions
from reviewtui.tui.keys import ACTIONS
from reviewtui.tui.learn_actions import LearnActions
from reviewtui.tui.model_actions import ModelActions
from reviewtui.tui.opening_actions import OpeningActions
from reviewtui.tui.triage_actions import TriageActions
from reviewtui.tui.view_actions import ViewActions
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.intent_pane import IntentPane
from reviewtui.tui.widgets.key_footer import KeyFooter
from reviewtui.tui.widgets.loading_view import LoadingView
from reviewtui.tui.widgets.unit_table import UnitTable, longest_location


class ReviewApp(OpeningActions, FixActions, IntentActions, LearnActions, ChatActions,
                ModelActions, ViewActions, TriageActions):
    CSS_PATH = "app.tcss"
    TITLE = "reviewtui"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS = [(0, "-tiny"), (18, "-short"), (32, "-tall")]  # noqa: RUF012
    # A zoomed pane keeps these on screen: the filter too (``/`` typed into it unseen).
    ALLOW_IN_MAXIMIZED_VIEW = "Header, Footer, #statusbar, #filter"

    # --- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        if self.load is not None:  # open first, analyse after: see opening_actions
            return
        # The chat (a TextArea and its grapheme handling) is not on the loading view.
        from reviewtui.tui.widgets.chat_pane import ChatPane

        yield Header()
        yield IntentPane(id="intent")
        with Horizontal(id="main"):
            yield UnitTable(id="units", location_width=longest_location(
                u.location for u in self.loaded.units))
            with Vertical(id="side"):
                yield DetailPane(id="detail")
                yield ChatPane(id="chat")
        yield Input(placeholder="filter: words, tag:x, risk:high, status:new, level:file, sev:p1",
                    id="filter")
        with Horizontal(id="statusbar"):
            yield Static("", id="status", markup=False)  # it says paths and filter text
            yield ProgressBar(total=None, show_eta=False, show_percentage=False, id="busy")
        yield KeyFooter(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        if self.load is not None:
            self.start_opening()
        else:
            self.open_workbench()

    @on(LoadingView.Loaded)
    async def _loaded(self, message: LoadingView.Loaded) -> None:
        # No paint until the workbench is whole: the loading view stays on the terminal
        # meanwhile. Painting between the pop and the recompose showed the empty screen
        # underneath for as long as composing took (~0.2 s of blank terminal in tmux).
        with self.batch_update():
            keep = self.finish_loading(message.opened)
            await self.close_loading()
            await self.recompose()
            self.refresh_bindings()
            self.open_workbench(keep)  # rows and status line in one go: painted together
        self.call_after_refresh(self.press_held_keys)  # once the table has its rows

    def open_workbench(self, keep: str | None = None) -> None:
        """Show the loaded change, the cursor on ``keep`` (a unit id) if given."""
        if self._theme_name in self.available_themes:
            self.theme = self._theme_name
        for problem in self._theme_problems:
            self.notify(problem, title="theme skipped", severity="warning")
        self.show_intent()
        self.load_review()
        if self.pull is not None:
            self.load_pull_threads()
        if keep is not None:
            self.table.show(self.rows, keep=keep)
            self.show_detail()
        self.query_one(UnitTable).focus()
        if self.watch_files:
            self.start_watching(self.watch_stop)
        if self.loaded.settings.tui.plan_on_open and self.session.model_configured():
            self.action_run_planner()
        else:
            self.set_status("")
        if not self.idle_gc.started:
            self.idle_gc.start()
            self.set_interval(CHECK_EVERY, self.idle_gc.tick)
        self.call_after_refresh(self.keep_first_screen)  # for the next open (kept_screen)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every workbench action in the command palette (ctrl+p), with its keys."""
        yield from super().get_system_commands(screen)
        for action, keys in self._keys.items():
            description = ACTIONS[action][1]
            yield SystemCommand(description.capitalize(), f"keys: {keys}",
                                getattr(self, f"action_{action}"))

    def on_unmount(self) -> None:
        self.jobs.cancel()  # (exit does it first; this covers any other way out)
        self.watch_stop.set()  # the watcher thread ends at its next wake-up
        self.idle_gc.stop()
        self.keep_first_screen()  # as the person leaves it
