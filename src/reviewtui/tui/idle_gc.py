"""Full garbage collections while the person pauses, not on a key press.

Textual's painting leaves reference cycles behind (a painted line, a ``Strip``, keeps seven
small caches, which may hold the line itself): thousands of objects that outlive the young
generations in Textual's caches and are only freed by a full collection. Measured on the
workbench (100 and 5,000 units, keys pressed as a person does): a full collection ran every
few seconds of typing and took 50-230 ms each, freeing 15-22k objects -- about one key in ten
answered that much later. Young garbage is still collected as usual (generations 0 and 1);
the full collection waits until the input has paused ``IDLE`` seconds, or runs anyway once it
has waited ``MAX_DEFER`` seconds (steady input must not grow memory without bound).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

IDLE = 0.5  # seconds without a key or a click before a waiting full collection runs
MAX_DEFER = 10.0  # seconds a full collection may wait for a pause
CHECK_EVERY = 0.5  # seconds between two looks (the app's timer)
NEVER = 1 << 30  # a threshold the count of young collections does not reach
DEFAULT_FULL = 10  # the interpreter's own threshold of the oldest generation
PENDING = 3  # middle-generation collections since the last full one worth a full one


class IdleCollector:
    """Holds the automatic full collections back while ``started``; ``tick`` runs the one
    that waits when the input has paused (or has waited too long)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._saved: tuple[int, int, int] | None = None
        self._last_input = self._last_full = clock()

    @property
    def started(self) -> bool:
        return self._saved is not None

    def start(self) -> None:
        if self._saved is None:
            young, middle, full = gc.get_threshold()
            # (another workbench in this process may hold them already: give back the usual)
            self._saved = (young, middle, full if full != NEVER else DEFAULT_FULL)
            gc.set_threshold(young, middle, NEVER)
            self._last_full = self._clock()

    def stop(self) -> None:
        """Give the interpreter its own thresholds back."""
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def touched(self) -> None:
        """The person pressed a key or used the mouse."""
        self._last_input = self._clock()

    def tick(self) -> bool:
        """Run the waiting full collection if now is the time; whether it ran."""
        if self._saved is None or not gc.isenabled() or gc.get_count()[2] < PENDING:
            return False
        now = self._clock()
        if now - self._last_input < IDLE and now - self._last_full < MAX_DEFER:
            return False
        gc.collect()
        self._last_full = self._clock()
        return True
