"""The workbench's running LLM calls (planner, review, chat) and how to stop them.

Each call gets its own cancel event; Escape or ctrl+c sets every one of them, the LLM client then
closes the connection at once (``reviewtui.llm.transport``), and whatever the call still posts
back is ignored: ``finish`` says whether the job was cancelled. No Textual here.
"""

from __future__ import annotations

import threading


class LLMJobs:
    def __init__(self) -> None:
        self._events: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def start(self, name: str) -> threading.Event:
        """A new job ``name`` (replacing a running one of that name, which is cancelled)."""
        event = threading.Event()
        with self._lock:
            old = self._events.get(name)
            if old is not None:
                old.set()
            self._events[name] = event
        return event

    def finish(self, name: str, event: threading.Event) -> bool:
        """The job ended; True if its result counts (it was neither cancelled nor replaced)."""
        with self._lock:
            if self._events.get(name) is event:
                del self._events[name]
        return not event.is_set()

    def cancel(self) -> list[str]:
        """Cancel every running job; the names of those cancelled."""
        with self._lock:
            names = sorted(self._events)
            for event in self._events.values():
                event.set()
            self._events.clear()
        return names

    def running(self, name: str | None = None) -> bool:
        with self._lock:
            return bool(self._events) if name is None else name in self._events
