"""A chat answer streaming into its Markdown widget: the model's pieces, shown coalesced.

The chat worker's thread hands over every streamed piece (``feed``) and never waits for the
screen; on the app's loop one task shows what arrived since the last time with one
``Markdown.append`` (which parses from the last block on, not the whole answer), then lets the
pieces gather for ``FRAME`` seconds. Replacing the whole document once per piece (``update``,
a parse and a remount of every block, each piece a new task) showed an 841-word answer 94 s
after the server had sent it, and quitting meanwhile left hundreds of those tasks cancelled and
unawaited. ``finish`` shows the final text exactly; ``close`` drops the stream (the workbench
closes).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widgets import Markdown

FRAME = 0.1  # seconds between two appends while pieces stream in


class AnswerStream:
    """One answer being streamed; made on the app's loop (``ChatPane.start_exchange``)."""

    def __init__(self, answer: Markdown) -> None:
        self.answer = answer
        self._loop = asyncio.get_running_loop()
        self._lock = threading.Lock()
        self._pending: list[str] = []  # fed, not shown yet
        self._woken = False  # a wake-up is on its way to the loop
        self._closing = False
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def feed(self, piece: str) -> None:
        """The next piece of the answer (any thread; never waits for the screen)."""
        with self._lock:
            if self._closing or not piece:
                return
            self._pending.append(piece)
            if self._woken:
                return
            self._woken = True
        with contextlib.suppress(RuntimeError):  # the loop is gone: the workbench closed
            self._loop.call_soon_threadsafe(self._wake_up)

    def _wake_up(self) -> None:
        if self._closing:
            return
        if self._task is None:
            self._task = self._loop.create_task(self._show())
        self._wake.set()

    def _take(self) -> str:
        with self._lock:
            text = "".join(self._pending)
            self._pending.clear()
            self._woken = False
        return text

    async def _show(self) -> None:
        while not self._closing:
            await self._wake.wait()
            self._wake.clear()
            text = self._take()
            if self._closing:
                with self._lock:  # ``finish`` shows it
                    self._pending.insert(0, text)
                return
            if text and self.answer.is_attached:
                await self.answer.append(text)
            if not self._closing:  # let the next pieces gather (finish cuts the wait short)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), FRAME)

    async def _end(self) -> None:
        self._closing = True
        self._stop.set()
        self._wake.set()
        task, self._task = self._task, None
        if task is not None:
            await asyncio.wait([task])  # after the append under way, if any
            if not task.cancelled():
                task.result()  # (a failure to show the answer is not swallowed)

    @property
    def finished(self) -> bool:
        return self._closing

    async def finish(self, text: str | None = None) -> None:
        """The answer is over: show ``text`` exactly (None: whatever was fed)."""
        await self._end()
        rest = self._take()
        if text is None:
            text = self.answer.source + rest
        shown = self.answer.source
        if not self.answer.is_attached or shown == text:
            return
        if text.startswith(shown):
            await self.answer.append(text[len(shown):])
        else:  # the text shown is not the answer's start (a turn before tool calls)
            await self.answer.update(text)

    def close(self) -> None:
        """Stop at once, showing nothing more (the workbench closes)."""
        with self._lock:
            self._closing = True
            self._pending.clear()
        self._stop.set()
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
