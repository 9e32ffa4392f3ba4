"""No control character from a change reaches the terminal as a control.

A file named ``a\\x1b[2Jb.py`` (git keeps any byte but ``/`` and NUL in a name), a line of a
diff, a pull request's body or a model's answer can hold terminal controls. Rich's ``Text``
drops only a few of them (bell, backspace, the form feeds, CR); the rest went out as they were:
opening such a change cleared the workbench's screen and painted its rows out of place, and an
OSC sequence could set the window title (or, in some terminals, the clipboard).

Every line the workbench paints passes ``textual.strip.Strip.render``, which joins its text
with the escape sequences of its styles. It is wrapped, once, when the workbench is imported:
the C0 and C1 controls and DEL in a strip's *text* are dropped before the join (Rich measures
them as no cells, so the layout does not move); the styles' own sequences are untouched. Where
text from a change is shown on purpose (paths, diff lines: ``app.terminal_text.shown_text``),
each control is first replaced by its visible picture (``␛`` for ESC), so that a reviewer sees
it is there.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip

from reviewtui.app.terminal_text import shown_text

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

__all__ = ["install", "shown_text"]


def _without_controls(render: Callable[[Strip, Console], str]) -> Callable[[Strip, Console], str]:
    def safe_render(strip: Strip, console: Console) -> str:
        if strip._render_cache is None and _CONTROL.search(
                "".join(text for text, _, _ in strip)):
            clean = Strip([Segment(_CONTROL.sub("", text), style, control)
                           for text, style, control in strip], strip.cell_length)
            strip._render_cache = render(clean, console)
        return render(strip, console)

    safe_render.__wrapped__ = render  # type: ignore[attr-defined]
    return safe_render


def install() -> None:
    """Wrap ``Strip.render`` (once)."""
    if not hasattr(Strip.render, "__wrapped__"):
        Strip.render = _without_controls(Strip.render)  # type: ignore[method-assign,assignment]


install()
