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

# Tab and newline are layout, and so is a carriage return ending a line (before a newline, or
# last: every line of a CRLF file would end in a picture); one inside a line is shown, as it
# prints what follows over what came before. The bidirectional embeddings, overrides and
# isolates reorder what follows them on screen (Trojan Source, CVE-2021-42574). In a table's
# cell (``one_line``) tab, newline and every carriage return are shown too.
_CONTROL = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n|\\Z)")
_LINE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_BIDI = ("LRE", "RLE", "PDF", "LRO", "RLO")  # U+202A..U+202E
_ISOLATES = ("LRI", "RLI", "FSI", "PDI")  # U+2066..U+2069
_PICTURES = {
    **{chr(code): chr(0x2400 + code) for code in range(0x20)}, "\x7f": "\u2421",
    **dict.fromkeys(map(chr, range(0x80, 0xA0)), "\ufffd"),
    **{chr(0x202A + n): f"\u27e8{name}\u27e9" for n, name in enumerate(_BIDI)},
    **{chr(0x2066 + n): f"\u27e8{name}\u27e9" for n, name in enumerate(_ISOLATES)}}


def shown_text(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character but tab, newline and a line-ending carriage
    return, and every bidirectional override or isolate, as a visible picture; ``one_line``
    (a path in a table's cell): tab, newline and every carriage return too."""
    found = _LINE_CONTROL if one_line else _CONTROL
    return found.sub(_picture, text) if found.search(text) else text


def _picture(found: re.Match[str]) -> str:
    return _PICTURES[found.group()]


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
