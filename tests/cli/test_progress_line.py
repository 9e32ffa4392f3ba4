"""The progress line of headless commands: on a terminal after a second, erased, never piped."""

from __future__ import annotations

import io

from reviewtui.analysis.progress import AnalysisProgress
from reviewtui.cli.progress import TerminalProgress, progress_text, terminal_progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _at(done: int, left: tuple[str, ...] = ("big.py", "mid.py")) -> AnalysisProgress:
    return AnalysisProgress(done=done, total=10, elapsed=done * 0.5, largest_left=left)


def test_the_line_shows_after_a_second_is_rewritten_in_place_and_erased() -> None:
    out, clock = _Terminal(), _Clock()
    line = TerminalProgress(out, clock=clock)
    line(_at(1))
    assert out.getvalue() == ""  # quick work says nothing
    clock.now += 1.5
    line(_at(3))
    assert out.getvalue() == ("\r\x1b[Kanalysing 3/10 files (30%), 1.5 s; "
                              "largest left: big.py, mid.py")
    line(_at(4))  # within the interval: not rewritten
    assert "4/10" not in out.getvalue()
    clock.now += 0.2
    line(_at(5))
    assert out.getvalue().count("\r\x1b[K") == 2 and "\n" not in out.getvalue()
    line(_at(10, ()))  # complete: nothing more to say
    line.close()
    assert out.getvalue().endswith("\r\x1b[K") and "10/10" not in out.getvalue()


def test_nothing_is_written_when_stderr_is_not_a_terminal() -> None:
    piped, clock = io.StringIO(), _Clock()
    with terminal_progress(piped) as line:
        clock.now += 5
        line(_at(2))
    assert piped.getvalue() == ""
    line = TerminalProgress(piped, clock=clock)
    clock.now += 5
    line(_at(2))
    line.close()
    assert piped.getvalue() == "" and not line.shown


def test_the_text_fits_the_terminal() -> None:
    text = progress_text(_at(2, ("a/very/long/path/" * 8 + "x.py",)), 60)
    assert len(text) == 60 and text.endswith("…") and text.startswith("analysing 2/10 files")
    assert progress_text(AnalysisProgress(0, 0, 0.0, ()), 80) == "analysing 0/0 files (100%), 0.0 s"


def test_a_path_in_the_line_shows_its_controls_not_runs_them() -> None:
    out, clock = _Terminal(), _Clock()
    line = TerminalProgress(out, clock=clock)
    clock.now += 1.5
    line(_at(3, ("a\x1b[2Jb.py",)))
    assert out.getvalue().endswith("largest left: a\u241b[2Jb.py")
    assert out.getvalue().count("\x1b") == 1  # the line's own erase, nothing else
