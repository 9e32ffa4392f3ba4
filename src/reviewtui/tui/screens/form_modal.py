"""What the workbench's dialogs share: Escape cancels, ctrl+s saves, a Save and a Cancel button.

The requests (``e``), comment (``m``), verdict (``V``) and export (``X``) dialogs are forms:
each checks its own fields in ``action_save`` and dismisses with its result, or shows what is
wrong and stays open; cancelling dismisses with None.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Button

ResultT = TypeVar("ResultT")


class FormModal(ModalScreen[ResultT | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel"),
                                             Binding("ctrl+s", "save", "Save")]

    def action_save(self) -> None:
        """Check the fields; dismiss with the result, or say what is wrong."""
        raise NotImplementedError(f"{type(self).__name__} must define action_save")

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()
        elif event.button.id == "cancel":
            self.action_cancel()
