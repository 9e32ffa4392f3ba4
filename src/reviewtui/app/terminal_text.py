"""Text from a change written for a person's terminal: its control characters made visible.

A path, a diff line, a commit message or a model's answer may hold terminal controls (git
keeps any byte but ``/`` and NUL in a file name). Written to a terminal as they are, an ESC
sequence clears the screen or recolours what follows and an OSC sets the window title (some
terminals let one write the clipboard). Where such text is shown to a person -- the headless
commands' output on a terminal, their progress lines and error messages, the workbench's
paths and diff lines -- each control but tab and newline is written as its picture (U+2400 +
code for C0, U+2421 for DEL, U+FFFD for C1): ``a\\x1b[2Jb.py`` reads ``a␛[2Jb.py``. So is each
bidirectional override or isolate, by name (``⟨RLO⟩``): on screen it reorders the text after
it, the way a Trojan Source change hides what the compiler reads. Output to a pipe or a file
is left exact: it is data there.
"""

from __future__ import annotations

import io
import re
from typing import TextIO

# (tab and newline are layout; the bidirectional embeddings, overrides and isolates reorder
# what follows them on screen: Trojan Source, CVE-2021-42574)
# A carriage return ending a line (before a newline, or last) is a line ending, not a control
# to show: every line of a CRLF file would end in a picture. One inside a line is shown: it
# sends the cursor back, and what follows it is printed over what came before.
_CONTROL = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n|\\Z)")
_BIDI = ("LRE", "RLE", "PDF", "LRO", "RLO")  # U+202A..U+202E
_ISOLATES = ("LRI", "RLI", "FSI", "PDI")  # U+2066..U+2069
_PICTURES: dict[int, int | str] = {
    **{code: 0x2400 + code for code in range(0x20) if code not in (0x09, 0x0A)},
    0x7F: 0x2421, **dict.fromkeys(range(0x80, 0xA0), 0xFFFD),
    **{0x202A + n: f"\u27e8{name}\u27e9" for n, name in enumerate(_BIDI)},
    **{0x2066 + n: f"\u27e8{name}\u27e9" for n, name in enumerate(_ISOLATES)}}


_LINE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_LINE_PICTURES = {**_PICTURES, 0x09: 0x2409, 0x0A: 0x240A}


def shown_text(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character but tab, newline and a line-ending carriage
    return, and every bidirectional override or isolate, as a visible picture; ``one_line``
    (a path in a table's cell): tab, newline and every carriage return too."""
    if one_line:
        return text.translate(_LINE_PICTURES) if _LINE_CONTROL.search(text) else text
    return _CONTROL.sub(_picture, text) if _CONTROL.search(text) else text


def _picture(found: re.Match[str]) -> str:
    shown = _PICTURES[ord(found.group())]
    return shown if isinstance(shown, str) else chr(shown)


class ShownStream(io.TextIOBase):
    """A terminal's text stream whose writes have their controls made visible."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(shown_text(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.stream.encoding


def for_terminal(stream: TextIO) -> TextIO:
    """``stream`` as a ``ShownStream`` when it is a terminal, else itself."""
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError, OSError):
        terminal = False
    return ShownStream(stream) if terminal and not isinstance(stream, ShownStream) else stream  # type: ignore[return-value]
