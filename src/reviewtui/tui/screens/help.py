"""``?``: every key of the workbench as it is typed (``[``, not ``left_square_bracket``), with
what it does: the actions as bound (``keys.help_rows``) and the keys that are not actions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "close",
                                                     "Close")]

    def __init__(self, keys: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.keys = keys

    def compose(self) -> ComposeResult:
        table = Table(title="reviewtui keys", title_justify="left")
        table.add_column("key", style="bold")
        table.add_column("action")
        for key, description in self.keys:  # plain text, not markup: a key may be "["
            table.add_row(Text(key), Text(description))
        with VerticalScroll(id="help-dialog"):
            yield Static(table)
            yield Static("Filter syntax: words, tag:NAME, risk:high, status:new|reviewed|"
                         "skipped|changed (the unit) or status:open|accepted|dismissed|fixed|"
                         "gone (its findings), level:file, sev:p1 (or sev:critical|major|"
                         "minor|nit: an open finding's severity); all terms must match. After "
                         "a chat answer that stopped early (the model's token limit, a cut "
                         "stream), c in the transcript continues it. Esc closes this help.",
                         markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
