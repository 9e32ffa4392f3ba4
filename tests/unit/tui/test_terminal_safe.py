"""Controls in a change's text are shown as pictures, and never reach the terminal as controls."""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

import reviewtui.tui.app  # noqa: F401  (installs the wrapper, as the workbench does)
from reviewtui.tui.terminal_safe import install


def test_a_strip_renders_its_styles_but_not_the_controls_in_its_text() -> None:
    install()  # a second time: wrapped once only
    console = Console(color_system="truecolor")
    red = Style(color="red")
    strip = Strip([Segment("a\x1b[2J\x1b]0;title\x07b", red), Segment(" \x9bc")])
    rendered = strip.render(console)
    assert "\x1b[2J" not in rendered and "\x1b]0" not in rendered and "\x07" not in rendered
    assert "\x9b" not in rendered
    clean = Strip([Segment("a[2J]0;titleb", red), Segment(" c")])
    assert rendered == clean.render(console)
    assert strip.cell_length == clean.cell_length  # controls take no cell: nothing moves
    same = Strip([Segment("plain", red)])
    assert same.render(console) == Strip.render.__wrapped__(same, console)  # type: ignore[attr-defined]
