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
text from a change is shown on purpose (paths, diff lines: ``shown_text``), each control is
first replaced by its visible picture (``␛`` for ESC), so that a reviewer sees it is there.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_SHOWN_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # tab and newline are layout
# Unicode's control pictures: U+2400 + code for C0, U+2421 for DEL; a C1 control as U+FFFD.
_PICTURES = {**{code: 0x2400 + code for code in range(0x20) if code not in (0x09, 0x0A)},
             0x7F: 0x2421, **dict.fromkeys(range(0x80, 0xA0), 0xFFFD)}


def shown_text(text: str) -> str:
    """``text`` with every control character but tab and newline as a visible picture."""
    return text.translate(_PICTURES) if _SHOWN_CONTROL.search(text) else text


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
