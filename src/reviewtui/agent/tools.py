"""The review agent's read-only tools: schemas for the model, and a runner that never raises.

Seed 001 §5 lets the review agent ask for more code than its bundle holds (``read_file_hunk``,
project search...); seed 002 keeps full tool results in a tool memory the agent can read back
(``get_tool_result``). The model's arguments are untrusted text, so ``ToolBox.run`` checks them
against the same schema the model was given (``tool_specs``), confines every path to the
repository (``tool_paths``), runs the tool in a daemon thread under a timeout and caps what goes
back to the model. Every failure - bad JSON, an unknown tool, a refused path, a timeout, git
failing - is an ``ok=False`` outcome with one line the model can act on, never an exception.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from reviewtui.agent.tool_context import ToolContext
from reviewtui.agent.tool_impl import Reply, ToolImpl
from reviewtui.agent.tool_paths import ToolError
from reviewtui.agent.tool_specs import SPECS, TOOL_NAMES, parse_arguments

__all__ = ["TOOL_NAMES", "ToolBox", "ToolContext", "ToolError", "ToolOutcome"]

_log = logging.getLogger(__name__)

MIN_OUTPUT_CHARS = 200
_MARKER_ROOM = 100


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call's result. ``content`` goes back to the model (capped); ``full_content``
    is the uncapped text when ``content`` was truncated (for the tool memory), else None."""

    name: str
    ok: bool
    content: str
    truncated: bool
    files: tuple[str, ...]  # repository paths the call read or returned
    seconds: float
    full_content: str | None = field(default=None, repr=False)

    @property
    def full_text(self) -> str:
        """The whole result: what the tool memory should store."""
        return self.full_content if self.full_content is not None else self.content


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "failed"


def _cap(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, ending in a marker saying how much was left out."""
    if len(text) <= limit:
        return text, False
    keep = limit - _MARKER_ROOM
    newline = text.rfind("\n", 0, keep)
    if newline > keep * 0.8:
        keep = newline
    rest = len(text) - keep
    marker = (f"\n… truncated ({rest} more characters; narrow the range or use "
              "get_tool_result)")
    return text[:keep] + marker, True


class ToolBox:
    """The agent's tools over one change. ``run``/``arun`` never raise."""

    def __init__(self, ctx: ToolContext, *, max_output_chars: int = 16_000,
                 timeout: float = 20.0) -> None:
        if max_output_chars < MIN_OUTPUT_CHARS:
            raise ValueError(f"max_output_chars must be at least {MIN_OUTPUT_CHARS}")
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self.ctx = ctx
        self.max_output_chars = max_output_chars
        self.timeout = timeout
        self._impl = ToolImpl(ctx, timeout=timeout, max_output_chars=max_output_chars)
        self._specs = {spec.name: spec for spec in SPECS}

    @property
    def names(self) -> tuple[str, ...]:
        return TOOL_NAMES

    def schemas(self) -> list[dict[str, Any]]:
        """The OpenAI ``tools`` list (function definitions with JSON-schema parameters)."""
        return [spec.schema() for spec in SPECS]

    def run(self, name: str, arguments: str) -> ToolOutcome:
        """Run tool ``name`` with the model's raw JSON ``arguments``, under the timeout."""
        started = time.monotonic()
        spec = self._specs.get(name) if isinstance(name, str) else None
        if spec is None:
            shown = repr(name)[:80]
            return self._failure(str(name)[:80], f"unknown tool {shown}; available: "
                                 f"{', '.join(TOOL_NAMES)}", started)
        try:
            args = parse_arguments(spec, arguments)
        except ToolError as exc:
            return self._failure(name, str(exc), started)
        box: list[Reply | BaseException] = []

        def work() -> None:
            try:
                box.append(spec.handler(self._impl, args))
            except BaseException as exc:  # handed to the caller's thread, never lost
                box.append(exc)

        worker = threading.Thread(target=work, name=f"reviewtui-tool-{name}", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive() or not box:  # the thread may still finish in the background
            return self._failure(name, f"{name} timed out after {self.timeout:g}s; ask for "
                                 "less (a narrower range, glob or query)", started)
        result = box[0]
        if isinstance(result, ToolError):
            return self._failure(name, str(result), started)
        if isinstance(result, BaseException):
            _log.warning("tool %s failed", name, exc_info=result)
            detail = str(result) or type(result).__name__
            return self._failure(name, f"{name} failed: {detail}", started)
        return self._success(name, result, started)

    async def arun(self, name: str, arguments: str) -> ToolOutcome:
        """``run`` in a worker thread: the event loop never waits on git or the disk."""
        return await asyncio.to_thread(self.run, name, arguments)

    def _success(self, name: str, reply: Reply, started: float) -> ToolOutcome:
        if reply.paged:
            content, truncated = reply.text, reply.more
            if len(content) > self.max_output_chars:  # never more than promised
                content, _ = _cap(content, self.max_output_chars)
            full = None
        else:
            content, truncated = _cap(reply.text, self.max_output_chars)
            full = reply.text if truncated else None
        return ToolOutcome(name, True, content, truncated, reply.files,
                           time.monotonic() - started, full)

    def _failure(self, name: str, message: str, started: float) -> ToolOutcome:
        content, truncated = _cap(_one_line(message), self.max_output_chars)
        return ToolOutcome(name, False, content, truncated, (), time.monotonic() - started)
