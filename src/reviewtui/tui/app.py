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
                 "build_bundles": "bundle"}


class ReviewApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "reviewtui"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012

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
        self.cancel = threading.Event()
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
        # Single keys first, grouped ones last (a group followed by a single key loses the
        # space between them in Textual's compact footer).
        ordered = sorted(self._keys.items(), key=lambda pair: pair[0] in FOOTER_GROUPS)
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
        self.set_status(self.triage.plan.planner.messages[0] if
                        self.triage.plan.planner.messages else "")

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every workbench action in the command palette (ctrl+p), with its keys."""
        yield from super().get_system_commands(screen)
        for action, keys in self._keys.items():
            description = ACTIONS[action][1]
            yield SystemCommand(description.capitalize(), f"keys: {keys}",
                                getattr(self, f"action_{action}"))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The progress indicator shows while any long task (planner, scanners, bundles,
        review, chat) runs."""
        running = any(w.state in (WorkerState.PENDING, WorkerState.RUNNING)
                      for w in self.workers)
        self.query_one("#busy", ProgressBar).set_class(running, "running")

    # --- helpers --------------------------------------------------------------------------

    @property
    def table(self) -> UnitTable:
        return self.query_one(UnitTable)

    def current(self) -> str | None:
        return self.table.current_unit

    def set_status(self, text: str) -> None:
        kept = sum(1 for r in self.rows if not r.item.skip_review)
        reviewed = sum(1 for r in self.rows if r.status == "reviewed")
        counts = f"{len(self.rows)} units · {kept} kept · {reviewed} reviewed"
        self.query_one("#status", Static).update(f"{counts}   {text}".rstrip())

    def refresh_rows(self) -> None:
        self.rows = self.triage.rows(self.filter)
        self.table.show(self.rows, keep=self.current())
        self.show_detail()

    def refresh_unit(self, unit_id: str) -> None:
        row = self.triage.row(unit_id)
        self.rows = [row if r.unit.unit_id == unit_id else r for r in self.rows]
        self.table.update_unit_row(row)
        self.show_detail()
        self.set_status("")

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
        self.triage.sort_key = "risk" if self.triage.sort_key == "file" else "file"
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
        box = self.query_one("#filter", Input)
        if isinstance(self.focused, ChatInput):  # leave the chat input, keep the chat open
            self.table.focus()
        elif box.has_focus:
            box.value = ""
            if self._filter_timer is not None:
                self._filter_timer.stop()
            self._apply_filter("")
            box.remove_class("visible")
            self.table.focus()
        else:
            self.cancel.set()

    def action_help(self) -> None:
        keys = [(keys, ACTIONS[action][1]) for action, keys in self._keys.items()]
        self.push_screen(HelpScreen(keys))

    def action_toggle_chat(self) -> None:
        chat = self.query_one(ChatPane)
        chat.toggle_class("visible")
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
        self.set_status("planner running…")
        self._plan_worker()

    @work(thread=True, exclusive=True, group="planner")
    def _plan_worker(self) -> None:
        planner, why = make_planner(self.loaded.settings)
        try:
            plan = plan_change(self.loaded.review_index(), planner,
                               conflict_log=self.loaded.conflict_log(), without_planner=why)
        except ReviewTuiError as error:
            self.call_from_thread(self.notify, str(error), severity="error")
            return
        self.call_from_thread(self._plan_done, plan)

    def _plan_done(self, plan: FusedPlan) -> None:
        self.triage.set_plan(plan)
        self.bundles.clear()
        self.refresh_rows()
        report = plan.planner
        self.set_status(f"planner {report.status}: {report.batches} batches, "
                        f"{len(report.messages)} notes, {plan.conflicts} disagreements")

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
        chat = self.query_one(ChatPane)
        chat.add_class("visible")
        self._review_worker(kept)

    @work(thread=True, exclusive=True, group="review")
    def _review_worker(self, unit_ids: list[str]) -> None:
        from reviewtui.agent.report import render_markdown

        try:
            result = self.session.review(self.fused_with_overrides(), unit_ids)
        except ReviewTuiError as error:
            self.call_from_thread(self.notify, str(error), title="review failed",
                                  severity="error")
            return
        counts: dict[str, int] = {}
        for finding in result.findings:
            if finding.unit_id:
                counts[finding.unit_id] = counts.get(finding.unit_id, 0) + 1
        self.call_from_thread(self._review_done, render_markdown(result), counts)

    def _review_done(self, markdown: str, counts: dict[str, int]) -> None:
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
        self.cancel.clear()
        self._chat_worker(event.text, answer)

    @work(thread=True, exclusive=True, group="chat")
    def _chat_worker(self, question: str, answer: Markdown) -> None:
        parts: list[str] = []

        def delta(text: str) -> None:
            parts.append(text)
            self.call_from_thread(answer.update, "".join(parts))

        def tool(run: Any) -> None:
            self.call_from_thread(self.query_one(ChatPane).add_tool,
                                  f"tool {run.call.name}({run.call.arguments[:60]})",
                                  run.outcome.content[:4000])

        try:
            result = self.session.ask(self.fused_with_overrides(), question, on_delta=delta,
                                      on_tool=tool, cancel=self.cancel)
        except ReviewTuiError as error:
            self.call_from_thread(self.query_one(ChatPane).show_notice, str(error))
            return
        self.call_from_thread(answer.update, result.answer)
        self.call_from_thread(self.query_one(ChatPane).set_rounds, self.session.rounds_text())
