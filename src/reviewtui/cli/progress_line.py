"""One line of progress on stderr, rewritten in place, for headless work that can take a while.

Shown only when stderr is a terminal (a pipe or a log file gets nothing) and only once the work
has run for a second (a warm run is done before anyone could read it); cleared at the end so
the command's own output starts on a clean line.
"""

from __future__ import annotations

import time
from typing import TextIO


class ProgressLine:
    """``index: reading the history of the changed lines [#####.....] 12/40 files``."""

    def __init__(self, err: TextIO, label: str, unit: str, *, delay: float = 1.0) -> None:
        self._err = err
        self._label = label
        self._unit = unit
        self._on = err.isatty()
        self._started = time.monotonic()
        self._delay = delay
        self._shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self._on or time.monotonic() - self._started < self._delay:
            return
        filled = int(20 * done / total) if total else 20
        self._err.write(f"\r\x1b[K{self._label} [{'#' * filled}{'.' * (20 - filled)}] "
                        f"{done}/{total} {self._unit}")
        self._err.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            self._err.write("\r\x1b[K")
            self._err.flush()
            self._shown = False
