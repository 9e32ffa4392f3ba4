"""``reviewtui``: the workbench over a loaded change (thin shell over the core pipeline).

Triage runs on the rules' plan at once; the LLM planner (``P``), scanners (``S``), bundles
(``b``) and the review agent (``R``) run in thread workers that post their results back, so the
table stays responsive. Every decision (level, skip, requests, reviewed) is applied by the core's
override layer and persisted in the session store of this change.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Markdown, ProgressBar, Static
from textual.worker import Worker, WorkerState

from reviewtui.errors import ReviewTuiError
from reviewtui.models import Allocation, ContextBundle, ContextLevel, ExtraRequest
from reviewtui.pipeline import LoadedChange, make_planner
from reviewtui.plan import FusedPlan, plan_change
from reviewtui.tui import status
from reviewtui.tui.jobs import LLMJobs
from reviewtui.tui.keys import ACTIONS, resolve_keys
from reviewtui.tui.screens.help import HelpScreen
from reviewtui.tui.screens.requests_modal import RequestsModal
from reviewtui.tui.session import TuiSession
from reviewtui.tui.themes import load_themes
from reviewtui.tui.triage import LEVELS, Filter, Row, Triage
from reviewtui.tui.widgets.chat_input import ChatInput
from reviewtui.tui.widgets.chat_pane import ChatPane
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.unit_table import UnitTable

FILTER_DELAY = 0.15  # seconds of no typing before the filter is applied
FOOTER_GROUPS = {"next_unit": "move", "prev_unit": "move", "next_file": "file",
                 "prev_file": "file", "level_1": "level", "level_2": "level",
                 "level_3": "level", "level_4": "level", "lower_level": "±level",
                 "raise_level": "±level"}
FOOTER_LABELS = {"run_scanners": "scan", "toggle_reviewed": "done", "edit_requests": "reqs",
                 "build_bundles": "bundle", "zoom": "zoom"}
# The footer's order: what a newcomer needs first (a narrow terminal cuts the end; ? lists all).
FOOTER_ORDER = ("help", "quit", "toggle_chat", "review", "run_planner", "build_bundles", "filter",
                "toggle_reviewed", "toggle_skip", "edit_requests", "zoom", "sort", "run_scanners")


class ReviewApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "reviewtui"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # noqa: RUF012
    ALLOW_IN_MAXIMIZED_VIEW = "Header, Footer, #statusbar"

    def __init__(self, loaded: LoadedChange, *, store_path: Path | None = None) -> None:
        super().__init__()
        self.loaded = loaded
        self.session = TuiSession(loaded, store_path)
        plan = loaded.plan(use_llm=False)
        self.triage = Triage(loaded.units, plan, self.session.overrides(),
                             self.session.marks())
        self.filter = Filter()
        self._filter_timer: Timer | None = None
        self.rows: list[Row] = []
        self.bundles: dict[str, ContextBundle] = {}
        self.allocation: Allocation | None = None  # of the last build (b)
        self.jobs = LLMJobs()
        self._message = ""  # the last event the status line reports
        settings = loaded.settings.tui
        self._keys = resolve_keys(settings.keys)
        self._bind_keys()
        themes = load_themes()
        for theme in themes.themes:
            self.register_theme(theme)
        self._theme_name, unknown = themes.choose(settings.theme)
        self._theme_problems = [*themes.problems, *([unknown] if unknown else [])]

    def _bind_keys(self) -> None:
        """Every action in the footer: its first key shown (related keys grouped, e.g.
        ``1234 level``), the other keys bound but not repeated."""
        # Single keys first in FOOTER_ORDER, grouped ones last (a group followed by a single
        # key loses the space between them in Textual's compact footer).
        rank = {action: n for n, action in enumerate(FOOTER_ORDER)}
        ordered = sorted(self._keys.items(), key=lambda pair: (
            pair[0] in FOOTER_GROUPS, rank.get(pair[0], len(rank))))
        for action, keys in ordered:
            group = FOOTER_GROUPS.get(action)
            for n, key in enumerate(keys.split(",")):
                label = FOOTER_LABELS.get(action, ACTIONS[action][1])
                binding = Binding(key, action, label, show=n == 0,
                                  group=Binding.Group(group) if group else None)
                self._bindings.key_to_bindings.setdefault(key, []).append(binding)

    # --- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            longest = max((len(u.location) for u in self.loaded.units), default=20)
            yield UnitTable(id="units", location_width=longest)
            with Vertical(id="side"):
                yield DetailPane(id="detail")
                yield ChatPane(id="chat")
        yield Input(placeholder="filter: words, tag:x, risk:high, status:new, level:file",
                    id="filter")
        with Horizontal(id="statusbar"):
            yield Static("", id="status")
            yield ProgressBar(total=None, show_eta=False, show_percentage=False, id="busy")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        if self._theme_name in self.available_themes:
            self.theme = self._theme_name
        for problem in self._theme_problems:
            self.notify(problem, title="theme skipped", severity="warning")
        meta = self.loaded.change_set
        self.sub_title = (f"{meta.mode}: {meta.old_side.describe()} -> "
                          f"{meta.new_side.describe()}")
        self.refresh_rows()
        self.query_one(UnitTable).focus()
        if self.loaded.settings.tui.plan_on_open and self.session.model_configured():
            self.action_run_planner()
        else:
            self.set_status("")

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every workbench action in the command palette (ctrl+p), with its keys."""
        yield from super().get_system_commands(screen)
        for action, keys in self._keys.items():
            description = ACTIONS[action][1]
            yield SystemCommand(description.capitalize(), f"keys: {keys}",
                                getattr(self, f"action_{action}"))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self._show_busy()

    def _show_busy(self) -> None:
        """The progress indicator shows while any long task (planner, scanners, bundles,
        review, chat) runs; a cancelled LLM call stops showing at once."""
        running = self.jobs.running() or any(
            w.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for w in self.workers if w.group not in ("planner", "review", "chat"))
        self.query_one("#busy", ProgressBar).set_class(running, "running")

    # --- helpers --------------------------------------------------------------------------

    @property
    def table(self) -> UnitTable:
        return self.query_one(UnitTable)

    def current(self) -> str | None:
        return self.table.current_unit

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
        row = self.triage.row(unit_id)
        self.rows = [row if r.unit.unit_id == unit_id else r for r in self.rows]
        self.table.update_unit_row(row)
        self.show_detail()
        self.set_status()

    def show_detail(self) -> None:
        unit_id = self.current()
        row = self.triage.row(unit_id) if unit_id else None
        self.query_one(DetailPane).show(row, self.bundles.get(unit_id or ""), self.allocation)

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

    # --- triage keys ----------------------------------------------------------------------

    def action_next_unit(self) -> None:
        self.table.action_cursor_down()

    def action_prev_unit(self) -> None:
        self.table.action_cursor_up()

    def _jump_file(self, step: int) -> None:
        if self.rows:
            index = self.triage.next_file_row(self.rows, self.table.cursor_row, step)
            self.table.move_cursor(row=index)

    def action_next_file(self) -> None:
        self._jump_file(1)

    def action_prev_file(self) -> None:
        self._jump_file(-1)

    def _level(self, level: ContextLevel) -> None:
        unit_id = self.current()
        if unit_id is not None:
            self.triage.set_level(unit_id, level)
            self.bundles.pop(unit_id, None)
            self.persist()
            self.refresh_unit(unit_id)

    def action_level_1(self) -> None:
        self._level(LEVELS[0])

    def action_level_2(self) -> None:
        self._level(LEVELS[1])

    def action_level_3(self) -> None:
        self._level(LEVELS[2])

    def action_level_4(self) -> None:
        self._level(LEVELS[3])

    def _shift(self, step: int) -> None:
        unit_id = self.current()
        if unit_id is not None:
            self.triage.shift_level(unit_id, step)
            self.bundles.pop(unit_id, None)
            self.persist()
            self.refresh_unit(unit_id)

    def action_lower_level(self) -> None:
        self._shift(-1)

    def action_raise_level(self) -> None:
        self._shift(1)

    def action_toggle_skip(self) -> None:
        unit_id = self.current()
        if unit_id is not None:
            self.triage.toggle_skip(unit_id)
            self.persist()
            self.refresh_unit(unit_id)

    def action_toggle_reviewed(self) -> None:
        unit_id = self.current()
        if unit_id is not None:
            self.triage.toggle_reviewed(unit_id)
            self.persist()
            self.refresh_unit(unit_id)

    def action_edit_requests(self) -> None:
        unit_id = self.current()
        if unit_id is None:
            return
        item = self.triage.item(unit_id)

        def done(requests: list[ExtraRequest] | None) -> None:
            if requests is not None:
                self.triage.set_requests(unit_id, requests)
                self.bundles.pop(unit_id, None)
                self.persist()
                self.refresh_unit(unit_id)

        self.push_screen(RequestsModal(item.location, item.extra_requests), done)

    def action_sort(self) -> None:
        self.triage.next_sort()
        self.refresh_rows()
        self.set_status(f"sorted by {self.triage.sort_key}")

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.add_class("visible")
        # Focus now, not on the next idle: keys typed right after "/" belong to the filter.
        self.screen.set_focus(box)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        # Typing stays instant: the table is refilled once the typing pauses.
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY, lambda: self._apply_filter(
            event.value))

    def _apply_filter(self, text: str) -> None:
        self._filter_timer = None
        flt = Filter.parse(text)
        if flt == self.filter:
            return
        self.filter = flt
        self.refresh_rows()
        self.set_status(f"filter: {text}" if text else "")

    @on(Input.Submitted, "#filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._apply_filter(event.value)
        if not event.value:
            event.input.remove_class("visible")
        self.table.focus()

    def key_escape(self) -> None:
        """Escape: leave the filter; else stop a running LLM call; else leave the chat input;
        else restore a zoomed pane."""
        box = self.query_one("#filter", Input)
        if box.has_focus:
            box.value = ""
            if self._filter_timer is not None:
                self._filter_timer.stop()
            self._apply_filter("")
            box.remove_class("visible")
            self.table.focus()
        elif self.jobs.running():
            self.action_cancel_llm()
        elif isinstance(self.focused, ChatInput):  # leave the chat input, keep the chat open
            self.table.focus()
        elif self.screen.maximized is not None:
            self.screen.minimize()

    def action_help_quit(self) -> None:
        """ctrl+c: stop a running LLM call; with none running, Textual's hint on quitting."""
        if self.jobs.running():
            self.action_cancel_llm()
        else:
            super().action_help_quit()

    def action_cancel_llm(self) -> None:
        names = self.jobs.cancel()
        if not names:
            return
        if "chat" in names:
            self.query_one(ChatPane).mark_cancelled()
        self._show_busy()
        self.set_status(f"cancelled: {', '.join(names)}")

    def action_zoom(self) -> None:
        """Give the focused pane (table, detail or chat) the whole screen, and back."""
        if self.screen.maximized is not None:
            self.screen.minimize()
            return
        focused = self.focused
        chain = [focused, *focused.ancestors] if focused is not None else []
        pane = next((w for w in chain if isinstance(w, (UnitTable, DetailPane, ChatPane))), None)
        if pane is not None:
            self.screen.maximize(pane, container=False)

    def action_help(self) -> None:
        keys = [(keys, ACTIONS[action][1]) for action, keys in self._keys.items()]
        self.push_screen(HelpScreen(keys))

    def _open_chat(self, visible: bool) -> None:
        """Open or close the chat; open, it takes the room the detail pane had (see .tcss)."""
        self.query_one(ChatPane).set_class(visible, "visible")
        self.screen.set_class(visible, "-chat")

    def action_toggle_chat(self) -> None:
        chat = self.query_one(ChatPane)
        if self.screen.maximized is not None:
            self.screen.minimize()
        self._open_chat(not chat.has_class("visible"))
        if chat.has_class("visible"):
            self.screen.set_focus(self.query_one(ChatInput))
            if not self.session.model_configured():
                chat.show_notice(self.session.not_configured_hint())
        else:
            self.table.focus()

    # --- workers --------------------------------------------------------------------------

    def action_run_planner(self) -> None:
        if not self.session.model_configured():
            self.notify(self.session.not_configured_hint(), title="no model", severity="warning")
            return
        cancel = self.jobs.start("planner")
        self.set_status("")
        self._show_busy()
        self._plan_worker(cancel)

    @work(thread=True, exclusive=True, group="planner")
    def _plan_worker(self, cancel: threading.Event) -> None:
        planner, why = make_planner(self.loaded.settings, cancel=cancel)
        try:
            plan = plan_change(self.loaded.review_index(), planner,
                               conflict_log=self.loaded.conflict_log(), without_planner=why)
        except ReviewTuiError as error:
            self.call_from_thread(self._plan_failed, cancel, str(error))
            return
        self.call_from_thread(self._plan_done, cancel, plan)

    def _plan_failed(self, cancel: threading.Event, error: str) -> None:
        if self.jobs.finish("planner", cancel):
            self.notify(error, title="planner failed", severity="error")
            self.set_status("")
        self._show_busy()

    def _plan_done(self, cancel: threading.Event, plan: FusedPlan) -> None:
        if not self.jobs.finish("planner", cancel):
            return  # cancelled: keep the plan the table shows
        self.triage.set_plan(plan)
        self.bundles.clear()
        self.refresh_rows()
        self._show_busy()
        self.set_status("")

    def action_run_scanners(self) -> None:
        self.set_status("scanners running…")
        self._scan_worker()

    @work(thread=True, exclusive=True, group="scanners")
    def _scan_worker(self) -> None:
        from reviewtui.rules.scan_mapping import findings_by_unit

        report = self.loaded.scan()
        found = findings_by_unit(self.loaded.units, report.issues)
        counts = {unit_id: len(items) for unit_id, items in found.items()}
        ran = ", ".join(report.ran) or "none installed"
        self.call_from_thread(self._scan_done, counts, f"scanners: {ran}; "
                                                       f"{len(report.issues)} findings")

    def _scan_done(self, counts: dict[str, int], text: str) -> None:
        self.triage.findings = counts
        self.refresh_rows()
        self.set_status(text)

    def action_build_bundles(self) -> None:
        unit_id = self.current()
        wanted = [unit_id] if unit_id else []
        wanted += [r.unit.unit_id for r in self.rows
                   if not r.item.skip_review and r.unit.unit_id not in wanted]
        self.set_status(f"building {len(wanted)} bundles…")
        self._bundle_worker(wanted)

    @work(thread=True, exclusive=True, group="bundles")
    def _bundle_worker(self, unit_ids: list[str]) -> None:
        plan = self.fused_with_overrides()
        first = self.loaded.bundles(plan, unit_ids[:1])  # the unit under the cursor, at once
        self.call_from_thread(self._bundles_done, first.bundles, None)
        found = self.loaded.bundles(plan, unit_ids)  # the review budget, by priority
        self.call_from_thread(self._bundles_done, found.bundles, found.allocation)

    def _bundles_done(self, bundles: list[ContextBundle], allocation: Allocation | None) -> None:
        for bundle in bundles:
            self.bundles[bundle.unit_id] = bundle
        if allocation is not None:
            self.allocation = allocation
            self.set_status(f"{len(allocation.included)} bundles, {allocation.used} tokens; "
                            f"{len(allocation.deferred)} units deferred")
        self.show_detail()

    def action_review(self) -> None:
        if not self.session.model_configured():
            self.notify(self.session.not_configured_hint(), title="no model", severity="warning")
            return
        kept = [r.unit.unit_id for r in self.rows if not r.item.skip_review]
        self.set_status(f"reviewing {len(kept)} units…")
        self._open_chat(True)
        cancel = self.jobs.start("review")
        self._show_busy()
        self._review_worker(kept, cancel)

    @work(thread=True, exclusive=True, group="review")
    def _review_worker(self, unit_ids: list[str], cancel: threading.Event) -> None:
        from reviewtui.agent.report import render_markdown

        try:
            result = self.session.review(self.fused_with_overrides(), unit_ids, cancel=cancel)
        except ReviewTuiError as error:
            self.call_from_thread(self._review_failed, cancel, str(error))
            return
        counts: dict[str, int] = {}
        for finding in result.findings:
            if finding.unit_id:
                counts[finding.unit_id] = counts.get(finding.unit_id, 0) + 1
        self.call_from_thread(self._review_done, cancel, render_markdown(result), counts)

    def _review_failed(self, cancel: threading.Event, error: str) -> None:
        if self.jobs.finish("review", cancel):
            self.notify(error, title="review failed", severity="error")
            self.set_status("review failed")
        self._show_busy()

    def _review_done(self, cancel: threading.Event, markdown: str,
                     counts: dict[str, int]) -> None:
        counted = self.jobs.finish("review", cancel)
        self._show_busy()
        if not counted:
            return
        self.triage.findings = {**self.triage.findings, **counts}
        self.refresh_rows()
        self.query_one(ChatPane).start_exchange("review", markdown)
        self.set_status(f"review: {sum(counts.values())} findings")

    # --- chat -----------------------------------------------------------------------------

    @on(ChatInput.Submitted)
    def _ask(self, event: ChatInput.Submitted) -> None:
        chat = self.query_one(ChatPane)
        if not self.session.model_configured():
            chat.show_notice(self.session.not_configured_hint())
            return
        answer = chat.start_exchange(event.text)
        cancel = self.jobs.start("chat")
        self._show_busy()
        self._chat_worker(event.text, answer, cancel)

    @work(thread=True, exclusive=True, group="chat")
    def _chat_worker(self, question: str, answer: Markdown, cancel: threading.Event) -> None:
        parts: list[str] = []
        pane = self.query_one(ChatPane)

        def delta(text: str) -> None:
            parts.append(text)
            if not cancel.is_set():
                self.call_from_thread(pane.update_answer, answer, "".join(parts))

        def tool(run: Any) -> None:
            if not cancel.is_set():
                self.call_from_thread(pane.add_tool,
                                      f"tool {run.call.name}({run.call.arguments[:60]})",
                                      run.outcome.content[:4000])

        try:
            result = self.session.ask(self.fused_with_overrides(), question, on_delta=delta,
                                      on_tool=tool, cancel=cancel)
        except ReviewTuiError as error:
            self.call_from_thread(self._chat_failed, cancel, str(error))
            return
        self.call_from_thread(self._chat_done, cancel, answer, result.answer,
                              result.round.cut_off)

    def _chat_failed(self, cancel: threading.Event, error: str) -> None:
        if self.jobs.finish("chat", cancel):
            self.query_one(ChatPane).show_notice(error)
        self._show_busy()

    def _chat_done(self, cancel: threading.Event, answer: Markdown, text: str,
                   cut_off: bool) -> None:
        counted = self.jobs.finish("chat", cancel)
        self._show_busy()
        if not counted:
            return
        pane = self.query_one(ChatPane)
        pane.update_answer(answer, text)
        if cut_off:
            pane.show_notice("the answer was cut off: the server closed the stream before it "
                             "finished (kept in the session, marked cut off)")
        pane.set_rounds(self.session.rounds_text())
