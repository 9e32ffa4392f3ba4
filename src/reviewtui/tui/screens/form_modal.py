"""What the workbench's dialogs share: Escape cancels, ctrl+s saves, a Save and a Cancel button.

The requests (``e``), comment (``m``), verdict (``V``) and export (``X``) dialogs are forms:
each checks its own fields in ``form_result``; saving dismisses with that result, or the dialog
stays open showing what is wrong; cancelling dismisses with None.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Button

ResultT = TypeVar("ResultT")


class FormModal(ModalScreen[ResultT | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel"),
                                             Binding("ctrl+s", "save", "Save")]

    @abstractmethod
    def form_result(self) -> ResultT | None:
        """The fields checked and made into the result; None after showing what is wrong."""

    def action_save(self) -> None:
        result = self.form_result()
        if result is not None:
            self.dismiss(result)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()
        elif event.button.id == "cancel":
            self.action_cancel()
