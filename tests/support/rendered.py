"""The text a Static widget shows, and a screen's lines, as a person would read them (styles
dropped)."""

from __future__ import annotations

import io

from rich.console import Console
from textual.app import App
from textual.widgets import Static


def static_text(widget: Static, width: int = 160) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def screen_lines(app: App[object]) -> list[str]:
    """The lines of the app's screen as the terminal shows them (what the compositor paints:
    a text cut by its widget's width is cut here too)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]
