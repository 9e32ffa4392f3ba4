"""Controls in a change's text are shown as pictures, and never reach the terminal as controls."""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

import reviewtui.tui.app  # noqa: F401  (installs the wrapper, as the workbench does)
from reviewtui.tui.terminal_safe import install, shown_text


def test_controls_are_shown_as_their_pictures() -> None:
    assert shown_text("a\x1b[2Jb.py") == "a\u241b[2Jb.py"
    assert shown_text("x\x00\x07\x7f\x9b") == "x\u2400\u2407\u2421\ufffd"
    assert shown_text("keeps\ttabs\nand lines") == "keeps\ttabs\nand lines"
    plain = "nothing to do: ünïcode 中"
    assert shown_text(plain) is plain


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
