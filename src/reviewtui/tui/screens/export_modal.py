"""``X``: export the review — format, file, and whether to include dismissed findings — or,
for a pull request opened with ``--pr``, publish it there (``PUBLISH``: no file).

Given ``write`` (the app's: it writes the review and returns where), the dialog writes the file
itself and closes only once it is written: a path that cannot be written (a folder that is a
file, ``/proc``, no permission) leaves it open with the reason on one line, the path there to
correct. Returns an ``ExportChoice`` (``written``: where the file went) or None when cancelled;
for a publish, the app publishes in a worker and says what it posted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label, Select

from reviewtui.errors import ReviewTuiError
from reviewtui.tui.screens.form_modal import FormModal

SUFFIXES = {"markdown": ".md", "json": ".json", "sarif": ".sarif", "rdjson": ".rdjson"}
PUBLISH = "publish"


@dataclass(frozen=True)
class ExportChoice:
    fmt: str
    path: str
    everything: bool
    written: Path | None = None  # where ``write`` put the file


Writer = Callable[[ExportChoice], Path]  # ReviewTuiError when the file cannot be written


class ExportModal(FormModal[ExportChoice]):

    def __init__(self, default_stem: str = "review", *, pull: str | None = None,
                 write: Writer | None = None) -> None:
        super().__init__()
        self.default_stem = default_stem
        self.pull = pull  # --pr's pull request (a number or URL): publishing to it is offered
        self.write = write

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog", classes="dialog"):
            yield Label("Export the review", classes="dialog-title")
            choices = [(name, name) for name in SUFFIXES]
            if self.pull:
                choices.append((f"publish to pull request {self.pull}", PUBLISH))
            yield Select(choices, value="markdown", allow_blank=False, id="export-format")
            yield Input(self.default_stem + SUFFIXES["markdown"], id="export-path",
                        placeholder="file (absolute, or relative to the repository)")
            yield Checkbox("also dismissed, gone and fixed findings", id="export-all")
            yield Label("", id="export-error", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Export", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    def on_select_changed(self, event: Select.Changed) -> None:
        box = self.query_one("#export-path", Input)
        box.disabled = event.value == PUBLISH
        if event.value == PUBLISH:
            return
        stem, dot, suffix = box.value.rpartition(".")
        if dot and "." + suffix in SUFFIXES.values():
            box.value = stem + SUFFIXES[str(event.value)]

    def form_result(self) -> ExportChoice | None:
        fmt = str(self.query_one("#export-format", Select).value)
        if fmt == PUBLISH:
            return ExportChoice(PUBLISH, "", everything=False)
        path = self.query_one("#export-path", Input).value.strip()
        if not path:
            self.query_one("#export-error", Label).update("✗ a file name, please")
            return None
        choice = ExportChoice(fmt, path, self.query_one("#export-all", Checkbox).value)
        if self.write is None:
            return choice
        try:
            written = self.write(choice)
        except ReviewTuiError as error:  # stay open: the path can be corrected
            self.query_one("#export-error", Label).update(
                "✗ " + " ".join(str(error).split()))
            return None
        return replace(choice, written=written)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_save()

