"""The text a Static widget shows, as a person would read it (styles dropped)."""

from __future__ import annotations

import io

from rich.console import Console
from textual.widgets import Static


def static_text(widget: Static, width: int = 160) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()
