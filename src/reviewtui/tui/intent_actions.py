"""The change's stated purpose: ``i`` writes its description in the editor, ``I`` shows it all.

A working-tree or staged change has no commit messages; the person says what it is for here.
The text goes to the change's session in the store (so it survives a restart, and ``reviewtui
review`` / ``ask`` / ``export`` of the same change read it), and the intent is gathered again:
the header's line, the intent pane, the planner, the review agent and the chat use it from then
on.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from reviewtui.errors import ReviewTuiError
from reviewtui.tui.base import WorkbenchBase
from reviewtui.tui.editor import editor_command
from reviewtui.tui.widgets.intent_pane import IntentPane


class IntentActions(WorkbenchBase):
    def action_toggle_intent(self) -> None:
        pane = self.query_one(IntentPane)
        pane.set_class(not pane.has_class("visible"), "visible")

    def action_edit_description(self) -> None:
        intent = self.loaded.intent
        current = (intent.description or "") if intent is not None else ""
        with tempfile.TemporaryDirectory(prefix="reviewtui-") as folder:
            path = Path(folder) / "DESCRIPTION.md"
            path.write_text(current + ("\n" if current and not current.endswith("\n") else ""),
                            encoding="utf-8")
            try:
                command = editor_command(path, 1)
            except ReviewTuiError as error:
                self.notify(str(error), title="no editor", severity="warning")
                return
            if self.run_editor(command) is None:
                return
            try:
                text = path.read_bytes().decode("utf-8", "replace").strip()
            except OSError as exc:
                self.notify(f"cannot read the description back: {exc.strerror or exc}",
                            title="editor", severity="error")
                return
        if text == current.strip():
            self.set_status("description unchanged")
            return
        problem = self.session.set_description(text)
        self.loaded = self.session.loaded
        if problem:
            self.notify(problem, title="description not saved", severity="error")
        self.show_intent()
        self.set_status("description saved" if text else "description removed")
