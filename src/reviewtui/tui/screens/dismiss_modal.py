"""``x``: dismiss a finding, with an optional reason ("intended", "covered by a test"...).

Returns the reason ("" for none) or None when cancelled; Enter dismisses, Escape cancels.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class DismissModal(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, finding_title: str) -> None:
        super().__init__()
        self.finding_title = finding_title

    def compose(self) -> ComposeResult:
        with Vertical(id="dismiss-dialog", classes="dialog"):
            yield Label(f"Dismiss: {self.finding_title}", classes="dialog-title",
                        markup=False)
            yield Input(placeholder="why (optional) — Enter dismisses, Esc cancels",
                        id="dismiss-reason")

    def on_mount(self) -> None:
        self.set_focus(self.query_one("#dismiss-reason", Input))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(" ".join(event.value.split()))

    def action_cancel(self) -> None:
        self.dismiss(None)
