"""``X``: export the review — format, file, and whether to include dismissed findings.

Returns an ``ExportChoice`` or None when cancelled; the app writes the file and says where.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label, Select

from reviewtui.tui.screens.form_modal import FormModal

SUFFIXES = {"markdown": ".md", "json": ".json", "sarif": ".sarif", "rdjson": ".rdjson"}


@dataclass(frozen=True)
class ExportChoice:
    fmt: str
    path: str
    everything: bool


class ExportModal(FormModal[ExportChoice]):

    def __init__(self, default_stem: str = "review") -> None:
        super().__init__()
        self.default_stem = default_stem

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog", classes="dialog"):
            yield Label("Export the review", classes="dialog-title")
            yield Select([(name, name) for name in SUFFIXES], value="markdown",
                         allow_blank=False, id="export-format")
            yield Input(self.default_stem + SUFFIXES["markdown"], id="export-path",
                        placeholder="file (absolute, or relative to the repository)")
            yield Checkbox("also dismissed, gone and fixed findings", id="export-all")
            yield Label("", id="export-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Export", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    def on_select_changed(self, event: Select.Changed) -> None:
        box = self.query_one("#export-path", Input)
        stem, dot, suffix = box.value.rpartition(".")
        if dot and "." + suffix in SUFFIXES.values():
            box.value = stem + SUFFIXES[str(event.value)]

    def form_result(self) -> ExportChoice | None:
        path = self.query_one("#export-path", Input).value.strip()
        if not path:
            self.query_one("#export-error", Label).update("✗ a file name, please")
            return None
        return ExportChoice(str(self.query_one("#export-format", Select).value), path,
                            self.query_one("#export-all", Checkbox).value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_save()

