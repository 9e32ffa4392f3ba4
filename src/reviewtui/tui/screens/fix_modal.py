"""The fix of a finding, previewed as a coloured diff before anything is written.

The modal only shows and asks: ``a`` apply (when the checks passed), ``u`` undo (when it was
applied), ``y`` copy the patch (to apply by hand when it does not apply), ``r`` ask the model for
another fix, Escape close. It returns the choice; the workbench does the work through
``app.fix`` (the same checks as ``reviewtui findings apply``).

Whether the fix applies (and, when not, why) comes first, then the model's explanation when the
fix has just arrived, then the diff: every text wraps to the dialog's width, and the dialog
scrolls as one (the arrows, the mouse) when it is taller than the screen, the keys staying
in view at its foot. Nothing is cut: a long reason or explanation is read whole.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

FixChoice = Literal["apply", "undo", "copy", "again"]


def diff_text(diff: str) -> Text:
    """A unified diff coloured the usual way: removals red, additions green, hunks dim."""
    text = Text()
    for line in diff.splitlines():
        style = ("bold" if line.startswith(("---", "+++")) else "red" if line.startswith("-")
                 else "green" if line.startswith("+") else "cyan" if line.startswith("@@")
                 else "")
        text.append(line + "\n", style=style)
    return text


class FixModal(ModalScreen[FixChoice | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("a", "choose('apply')", "Apply"),
        Binding("u", "choose('undo')", "Undo"),
        Binding("y", "choose('copy')", "Copy the patch"),
        Binding("r", "choose('again')", "Ask again"),
    ]

    def __init__(self, title: str, diff: str, problem: str | None, applied: bool,
                 explanation: str = "") -> None:
        super().__init__()
        self.finding_title = title
        self.diff = diff
        self.problem = problem  # why it does not apply now; None: it applies
        self.applied = applied
        self.explanation = explanation  # the model's, when the fix has just been proposed

    def compose(self) -> ComposeResult:
        if self.applied:
            state = "applied — u undoes it (the file's exact previous bytes)"
        elif self.problem is None:
            state = "applies to the working tree — a applies it"
        else:
            state = f"does not apply: {self.problem} — y copies the patch"
        with VerticalScroll(id="fix-dialog", classes="dialog"):
            yield Label(f"Fix: {self.finding_title}", classes="dialog-title", markup=False)
            yield Label(state, id="fix-state", markup=False)
            if self.explanation:
                yield Label(f"the model: {self.explanation}", id="fix-explanation",
                            markup=False)
            yield Static(diff_text(self.diff), id="fix-diff-text")
            yield Label("a apply · u undo · y copy the patch · r ask again · Esc close",
                        id="fix-keys", classes="field-label")

    def action_choose(self, choice: FixChoice) -> None:
        if choice == "apply" and (self.applied or self.problem is not None):
            self.notify(self.problem or "already applied (u undoes it)", title="not applied",
                        severity="warning")
            return
        if choice == "undo" and not self.applied:
            self.notify("this fix is not applied", title="nothing to undo", severity="warning")
            return
        self.dismiss(choice)

    def action_close(self) -> None:
        self.dismiss(None)
