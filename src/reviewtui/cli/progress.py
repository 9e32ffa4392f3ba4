"""A progress line on stderr while a headless command analyses a large change.

Seconds of silence on a cold change look like a hang. When stderr is a terminal and the work
has taken more than a second, one line (files analysed / total, elapsed, the largest files
left) is rewritten in place with ``\\r`` and erased when the work is done. Piped or redirected
stderr gets nothing, so logs and scripts see only what they saw before.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from reviewtui.app.terminal_text import shown_text

if TYPE_CHECKING:  # the analysis loads with the pipeline, once a command needs it
    from reviewtui.analysis.progress import AnalysisProgress
    from reviewtui.git import ChangeSelector
    from reviewtui.pipeline import LoadedChange

DELAY = 1.0  # seconds of work before the line shows
INTERVAL = 0.1  # seconds between two rewrites of the line
_ERASE = "\r\x1b[K"


def progress_text(progress: AnalysisProgress, width: int) -> str:
    """``analysing 120/881 files (13%), 2.3 s; largest left: a.py, b.py`` cut to ``width``."""
    share = 100 * progress.done // progress.total if progress.total else 100
    text = (f"analysing {progress.done}/{progress.total} files ({share}%), "
            f"{progress.elapsed:.1f} s")
    if progress.largest_left:
        text += "; largest left: " + ", ".join(progress.largest_left)
    return text if len(text) <= width else text[:max(width - 1, 0)] + "…"


class TerminalProgress:
    """The callback ``load_change`` reports to; ``close`` erases the line if it was shown."""

    def __init__(self, stream: TextIO, *, delay: float = DELAY, interval: float = INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream
        try:
            self._enabled = stream.isatty()
        except (AttributeError, ValueError):  # a closed or unusual stream: stay quiet
            self._enabled = False
        self._delay, self._interval, self._clock = delay, interval, clock
        self._start = clock()
        self._last: float | None = None
        self.shown = False

    def __call__(self, progress: AnalysisProgress) -> None:
        if not self._enabled or progress.complete:
            return
        now = self._clock()
        if now - self._start < self._delay:
            return
        if self._last is not None and now - self._last < self._interval:
            return
        self._last = now
        self.show(progress_text(progress, shutil.get_terminal_size((80, 24)).columns - 1))

    def due(self) -> bool:
        """On a terminal, and past the first ``delay`` seconds of the work."""
        return self._enabled and self._clock() - self._start >= self._delay

    def show(self, text: str) -> None:
        """Rewrite the line with ``text``."""
        self._stream.write(_ERASE + shown_text(text))  # (a path's controls shown, not run)
        self._stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self._stream.write(_ERASE)
            self._stream.flush()
            self.shown = False


@contextmanager
def terminal_progress(stream: TextIO | None = None) -> Iterator[TerminalProgress]:
    """A progress line on ``stream`` (stderr) for the work inside the block, erased after."""
    progress = TerminalProgress(stream if stream is not None else sys.stderr)
    try:
        yield progress
    finally:
        progress.close()


def load_change(path: str | Path | None, selector: ChangeSelector, *,
                use_cache: bool = True) -> LoadedChange:
    """``pipeline.load_change`` with the progress line on stderr (for headless commands)."""
    from reviewtui.pipeline import load_change as load

    with terminal_progress() as progress:
        return load(path, selector, use_cache=use_cache, progress=progress)


class CountLine:
    """``index: reading the history of the changed lines [#####.....] 12/40 files``: the same
    line for work counted in steps (the files blamed), with the same terminal-only rules."""

    def __init__(self, stream: TextIO, label: str, unit: str, *, delay: float = DELAY) -> None:
        self._line = TerminalProgress(stream, delay=delay, interval=0.0)
        self._label, self._unit = label, unit

    def __call__(self, done: int, total: int) -> None:
        if self._line.due():
            filled = int(20 * done / total) if total else 20
            self._line.show(f"{self._label} [{'#' * filled}{'.' * (20 - filled)}] "
                            f"{done}/{total} {self._unit}")

    def close(self) -> None:
        self._line.close()
