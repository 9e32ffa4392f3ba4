"""``L``: the learned-rule candidates the evidence supports, with their evidence.

The list on the left (ready ones first), the highlighted candidate's counts, reasons and example
units on the right. ``a`` accepts the highlighted candidate (written to
``.reviewtui/learned_rules.toml``; the app re-scores the table at once), ``x`` rejects it (not
proposed again until its evidence doubles). The work is the app's (``LearnActions``): this
screen shows a report and says what the person chose.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from reviewtui.rules.learning import Candidate, LearnReport
from reviewtui.rules.learning.text import (
    candidate_counts,
    candidate_title,
    evidence_line,
    example_lines,
)

Decide = Callable[[str, bool], None]  # (candidate id, accept?) -> the app does it


class LearnScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "accept", "accept"),
        Binding("x", "reject", "reject"),
        Binding("escape,q,L", "close", "close"),
    ]

    def __init__(self, report: LearnReport, root: Path, decide: Decide) -> None:
        super().__init__()
        self.report = report
        self.root = root
        self._decide = decide

    def compose(self) -> ComposeResult:
        with Vertical(id="learn-dialog"):
            yield Label("", id="learn-evidence", markup=False)
            with Horizontal(id="learn-body"):
                yield OptionList(id="learn-list")
                with VerticalScroll(id="learn-detail"):
                    yield Static("", id="learn-text", markup=False)
            yield Label("a accept · x reject · esc close", id="learn-keys")

    def on_mount(self) -> None:
        self.show(self.report)
        self.query_one(OptionList).focus()

    def show(self, report: LearnReport, note: str | None = None) -> None:
        """Show ``report`` (again, after a decision), keeping the highlighted candidate."""
        chosen = self.highlighted()
        self.report = report
        lines = [evidence_line(report, self.root)]
        lines += [f"note: {problem}" for problem in report.problems]
        if note:
            lines.append(note)
        self.query_one("#learn-evidence", Label).update("\n".join(lines))
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(Text(f"{c.id} {c.status.replace('_', ' '):8} "
                                         f"{c.key.label()} -> {c.level.value}"), id=c.id)
                             for c in report.candidates])  # Text: a path glob is not markup
        ids = [c.id for c in report.candidates]
        if ids:
            options.highlighted = ids.index(chosen.id) if chosen and chosen.id in ids else 0
        self._detail()

    def highlighted(self) -> Candidate | None:
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None or not 0 <= index < len(self.report.candidates):
            return None
        return self.report.candidates[index]

    def _detail(self) -> None:
        candidate = self.highlighted()
        text = self.query_one("#learn-text", Static)
        if candidate is None:
            text.update("No candidates: nowhere did the planner or the person say another "
                        "level than the rules. Plan with a model (P) or set levels (1-4) to "
                        "gather evidence.")
            return
        lines = [candidate_title(candidate), candidate_counts(candidate), ""]
        lines += [f"why not: {reason}" for reason in candidate.reasons]
        if candidate.requests:
            lines.append("the person also asked for: " + ", ".join(candidate.requests))
        lines += ["examples:", *(f"  {line}" for line in example_lines(candidate))]
        text.update("\n".join(lines))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._detail()

    def action_accept(self) -> None:
        candidate = self.highlighted()
        if candidate is None:
            return
        if candidate.status != "ready":
            self.notify(f"{candidate.id} is not ready: {'; '.join(candidate.reasons)}",
                        title="not accepted", severity="warning")
            return
        self._decide(candidate.id, True)

    def action_reject(self) -> None:
        candidate = self.highlighted()
        if candidate is not None:
            self._decide(candidate.id, False)

    def action_close(self) -> None:
        self.dismiss(None)
