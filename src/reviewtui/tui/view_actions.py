"""What the person sees: Escape and ctrl+c (leave, stop a running LLM call), zoom, help, chat.
"""

from __future__ import annotations

from textual.widgets import Input

from reviewtui.tui.base import WorkbenchBase
from reviewtui.tui.keys import help_rows
from reviewtui.tui.screens.help import HelpScreen
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.unit_table import UnitTable


class ViewActions(WorkbenchBase):
    def key_escape(self) -> None:
        """Escape: leave the filter; else stop a running LLM call; else leave the chat input;
        else restore a zoomed pane. Nothing while the change loads (no workbench yet)."""
        if self.load is not None:
            return
        from reviewtui.tui.widgets.chat_input import ChatInput

        box = self.query_one("#filter", Input)
        if box.has_focus:
            with box.prevent(Input.Changed):  # cleared here: not again once typing "pauses"
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

    def action_escape(self) -> None:
        """The chat input's Escape binding (shown in the footer while typing)."""
        self.key_escape()

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
            self.chat_pane.mark_cancelled()
        self._show_busy()
        self.set_status(f"cancelled: {', '.join(names)}")

    def action_zoom(self) -> None:
        """Give the focused pane (table, detail or chat) the whole screen, and back."""
        from reviewtui.tui.widgets.chat_pane import ChatPane

        if self.screen.maximized is not None:
            self.screen.minimize()
            return
        focused = self.focused
        chain = [focused, *focused.ancestors] if focused is not None else []
        pane = next((w for w in chain if isinstance(w, (UnitTable, DetailPane, ChatPane))), None)
        if pane is not None:
            self.screen.maximize(pane, container=False)

    def action_help(self) -> None:
        """Every key as bound (the settings' keys, then Textual's own for an action, such as
        ctrl+q for quit), and the keys that are not actions (Escape, tab...)."""
        bound = {action: keys.split(",") for action, keys in self._keys.items()}
        for key, bindings in self._bindings.key_to_bindings.items():
            for binding in bindings:
                keys = bound.get(binding.action)
                if keys is not None and key not in keys:
                    keys.append(key)
        self.push_screen(HelpScreen(help_rows(bound)))

    def action_toggle_chat(self) -> None:
        from reviewtui.tui.widgets.chat_input import ChatInput

        chat = self.chat_pane
        if self.screen.maximized is not None:
            self.screen.minimize()
        self._open_chat(not chat.has_class("visible"))
        if chat.has_class("visible"):
            self.screen.set_focus(self.query_one(ChatInput))
            if not self.session.model_configured():
                chat.show_notice(self.session.not_configured_hint())
        else:
            self.table.focus()

