"""What a change holds is shown on a terminal, not run: controls as their pictures."""

from __future__ import annotations

import io

from reviewtui.app.terminal_text import ShownStream, for_terminal, shown_text


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_controls_are_shown_as_their_pictures() -> None:
    assert shown_text("a\x1b[2Jb.py") == "a\u241b[2Jb.py"
    assert shown_text("x\x00\x07\rx\x7f\x9b") == "x\u2400\u2407\u240dx\u2421\ufffd"
    assert shown_text("keeps\ttabs\nand lines") == "keeps\ttabs\nand lines"
    # a CRLF file's line endings are layout; a carriage return inside a line prints over it
    assert shown_text("a = 1\r\nb = 2\r") == "a = 1\r\nb = 2\r"
    assert shown_text("safe()\revil()\r\n") == "safe()\u240devil()\r\n"
    # Trojan Source: what reorders the line on screen is named where it stands
    assert shown_text("if (a) /*\u202e } \u2066if (b)\u2069 */") == (
        "if (a) /*\u27e8RLO\u27e9 } \u27e8LRI\u27e9if (b)\u27e8PDI\u27e9 */")
    hebrew = "\u200f\u05e9\u05dc\u05d5\u05dd"  # a right-to-left mark and a word: left alone
    assert shown_text(hebrew) is hebrew
    plain = "nothing to do: ünïcode 中"
    assert shown_text(plain) is plain


def test_one_line_shows_tabs_and_newlines_too() -> None:
    assert shown_text("a\nb\tc.py", one_line=True) == "a\u240ab\u2409c.py"
    assert shown_text("a\x1b.py", one_line=True) == "a\u241b.py"
    assert shown_text("plain.py", one_line=True) == "plain.py"


def test_a_terminal_gets_pictures_a_pipe_the_exact_text() -> None:
    terminal, piped = _Terminal(), io.StringIO()
    shown, exact = for_terminal(terminal), for_terminal(piped)  # type: ignore[arg-type]
    assert isinstance(shown, ShownStream) and exact is piped
    assert for_terminal(shown) is shown  # not wrapped twice
    for stream in (shown, exact):
        assert stream.write("a\x1b]0;title\x07b\n") == len("a\x1b]0;title\x07b\n")
        stream.flush()
    assert terminal.getvalue() == "a\u241b]0;title\u2407b\n"
    assert piped.getvalue() == "a\x1b]0;title\x07b\n"
    assert shown.isatty() and shown.encoding == terminal.encoding
