"""One HTTP attempt of a chat request: blocking, or cancellable at once from another thread.

The blocking SDK cannot be interrupted while it waits on its socket: closing the client from
another thread does not wake a blocked read, which then waits out the whole timeout (measured:
30 s for ``timeout = 30``). A caller that can cancel (the workbench's Escape and ctrl+c) gets the
same request through the async SDK on a private event loop in its own thread; setting the cancel
event cancels the task, which closes the connection — the server stops generating and the
thread is free within ``POLL_SECONDS``. Callers that cannot cancel (the headless commands, where
ctrl+c interrupts the process anyway) keep the blocking client and its connection pool.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import openai

from reviewtui.errors import LLMCancelledError
from reviewtui.llm.settings import LLMConfig

POLL_SECONDS = 0.05
_T = TypeVar("_T")

Feed = Callable[[Any], None]  # takes one streamed chunk


def complete(sdk: openai.OpenAI, params: dict[str, Any], timeout: float) -> Any:
    """A non-streamed completion, blocking."""
    create: Callable[..., Any] = sdk.chat.completions.create
    return create(**params, timeout=timeout)


def _content_type(chunks: Any) -> str:
    """The answer's ``Content-Type`` (the SDK's stream keeps the HTTP response), "" unknown."""
    response = getattr(chunks, "response", None)
    headers = getattr(response, "headers", None)
    value = headers.get("content-type", "") if headers is not None else ""
    return value if isinstance(value, str) else ""


def stream(sdk: openai.OpenAI, params: dict[str, Any], timeout: float, feed: Feed) -> str:
    """A streamed completion, blocking; every chunk goes to ``feed``. Returns the answer's
    content type (a web page answering 200 holds no chunks: the caller names it)."""
    create: Callable[..., Any] = sdk.chat.completions.create
    chunks = create(**params, timeout=timeout)
    try:
        for chunk in chunks:
            feed(chunk)
    finally:
        chunks.close()
    return _content_type(chunks)


def _async_sdk(config: LLMConfig) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=config.endpoint, api_key=config.sdk_api_key,
                              timeout=config.timeout, max_retries=0)


def complete_cancellable(config: LLMConfig, params: dict[str, Any], timeout: float,
                         cancel: threading.Event) -> Any:
    """``complete``, abandoned (connection closed) as soon as ``cancel`` is set."""

    async def attempt() -> Any:
        sdk = _async_sdk(config)
        try:
            create: Callable[..., Awaitable[Any]] = sdk.chat.completions.create
            return await create(**params, timeout=timeout)
        finally:
            await sdk.close()

    return _run(attempt, cancel)


def stream_cancellable(config: LLMConfig, params: dict[str, Any], timeout: float,
                       cancel: threading.Event, feed: Feed) -> str:
    """``stream``, abandoned (connection closed) as soon as ``cancel`` is set."""

    async def attempt() -> str:
        sdk = _async_sdk(config)
        try:
            create: Callable[..., Awaitable[Any]] = sdk.chat.completions.create
            chunks = await create(**params, timeout=timeout)
            try:
                async for chunk in chunks:
                    feed(chunk)
            finally:
                await chunks.close()
            return _content_type(chunks)
        finally:
            await sdk.close()

    return _run(attempt, cancel)


def _run(attempt: Callable[[], Awaitable[_T]], cancel: threading.Event) -> _T:
    async def watched() -> _T:
        task = asyncio.ensure_future(attempt())
        while not task.done():
            if cancel.is_set():
                task.cancel()
                break
            await asyncio.wait({task}, timeout=POLL_SECONDS)
        try:
            return await task
        except asyncio.CancelledError:
            raise LLMCancelledError("the LLM request was cancelled") from None

    return asyncio.run(watched())


def can_run_cancellable() -> bool:
    """An event loop of our own needs a thread that runs none (the workbench's workers)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return True
    return False
