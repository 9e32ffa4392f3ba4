"""A small, blocking chat client for any OpenAI-compatible endpoint.

It wraps the official ``openai`` SDK (with the SDK's own retries off) and adds what the rest of
reviewtui needs: one retry policy with backoff that honours ``Retry-After``, can be tested
without waiting (``sleep`` and ``clock`` are injected) and never waits longer in all than
``timeout × (max_retries + 1)``; streaming that a cancel event stops at once (``transport``);
a stream cut off before its first word asked once more, one cut mid-answer marked ``cut_off``;
tool calls assembled from streamed fragments; JSON output that degrades from ``json_schema`` to
``json_object`` to plain text on servers that do not support it (remembered per client); and
errors that are one readable line. It is meant to be called from worker threads; a TUI never
blocks its event loop on it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import openai

from reviewtui.errors import LLMCancelledError, LLMError, LLMNotConfiguredError
from reviewtui.llm import failures, transport
from reviewtui.llm.assemble import StreamAssembler, read_completion
from reviewtui.llm.compat import FORMAT_CHAINS, Compat, Sent, degrade, response_format
from reviewtui.llm.redact import redact_message
from reviewtui.llm.settings import NOT_CONFIGURED_HINT, LLMConfig
from reviewtui.llm.types import ChatResult

MIN_ATTEMPT_SHARE = 0.25  # a retry with less than this share of ``timeout`` left is not sent


class _CutOff(Exception):
    """The server closed a stream before its first text: nothing was shown, so asking again
    is safe (once)."""


class _DeltaFailed(Exception):
    """The caller's ``on_delta`` raised (its stdout is gone: ``reviewtui ask | head``): not a
    stream the server cut, nor a failure to retry -- the caller's own error, given back to it
    as it was raised (``error``)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class _Rejected(Exception):
    """A 400/422: maybe a feature the server lacks; the caller decides whether to downgrade."""

    def __init__(self, message: str, error: LLMError) -> None:
        super().__init__(message)
        self.message = message
        self.error = error


def _merge(known: Compat, learned: Compat) -> Compat:
    """Combine two sessions' findings; features only ever get dropped."""
    return Compat(
        format_index=max(known.format_index, learned.format_index),
        stream_usage=known.stream_usage and learned.stream_usage,
        temperature=known.temperature and learned.temperature,
        max_tokens_field=("max_completion_tokens" if "max_completion_tokens" in
                          (known.max_tokens_field, learned.max_tokens_field) else "max_tokens"),
    )


class LLMClient:
    """``chat()`` sends one request (with retries) and returns a ``ChatResult``."""

    def __init__(self, config: LLMConfig, *,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not config.configured:
            raise LLMNotConfiguredError(NOT_CONFIGURED_HINT)
        self.config = config
        self._sleep = sleep
        self._clock = clock
        self._lock = threading.Lock()
        self._compat = Compat()
        self._sdk = openai.OpenAI(base_url=config.endpoint, api_key=config.sdk_api_key,
                                  timeout=config.timeout, max_retries=0)

    def __repr__(self) -> str:
        return f"LLMClient({self.config!r})"

    def close(self) -> None:
        self._sdk.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def compat(self) -> Compat:
        """What this client has learned the endpoint accepts."""
        with self._lock:
            return self._compat

    def chat(self, messages: Sequence[Mapping[str, Any]], *,
             tools: Sequence[Mapping[str, Any]] | None = None,
             json_schema: Mapping[str, Any] | None = None, schema_name: str = "result",
             max_tokens: int | None = None, on_delta: Callable[[str], None] | None = None,
             cancel: threading.Event | None = None) -> ChatResult:
        """Send the conversation; stream content to ``on_delta`` when given.

        With ``json_schema`` the answer is requested as JSON per ``config.json_mode``; the
        caller validates it. An answer with empty content (a refusal, or cut off by
        ``finish_reason == "length"``) is returned as it is, for the caller to judge; a
        malformed answer, or one without any choice, raises ``LLMResponseError``. Every
        failure is an ``LLMError`` subclass.
        """
        chain = FORMAT_CHAINS[self.config.json_mode] if json_schema is not None else ("off",)
        start = compat = self.compat
        while True:
            params, sent = self._params(compat, chain, messages, tools, json_schema, schema_name,
                                        max_tokens, streaming=on_delta is not None)
            try:
                result = self._send(params, on_delta, cancel)
            except _DeltaFailed as failed:
                raise failed.error from None
            except _Rejected as rejected:
                better = degrade(compat, chain, rejected.message, sent)
                if better is None:
                    raise rejected.error from None
                compat = better
                continue
            if compat != start:
                with self._lock:
                    self._compat = _merge(self._compat, compat)
            return result

    # --- one request ------------------------------------------------------------------------
    def _params(self, compat: Compat, chain: tuple[str, ...],
                messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None,
                json_schema: Mapping[str, Any] | None, schema_name: str, max_tokens: int | None,
                *, streaming: bool) -> tuple[dict[str, Any], Sent]:
        config = self.config
        params: dict[str, Any] = {
            "model": config.model,
            # nothing that looks like a secret leaves: a key pasted in a question, one a
            # change adds (the model sees [REDACTED] where it stood), the configured key
            "messages": [redact_message(message, config.api_key) for message in messages],
            compat.max_tokens_field: max_tokens or config.max_output_tokens,
        }
        if tools:
            params["tools"] = [dict(tool) for tool in tools]
        send_temperature = config.temperature is not None and compat.temperature
        if send_temperature:
            params["temperature"] = config.temperature
        fmt = None
        if json_schema is not None:
            kind = chain[min(compat.format_index, len(chain) - 1)]
            fmt = response_format(kind, json_schema, schema_name)
            if fmt is not None:
                params["response_format"] = fmt
        stream_options = streaming and compat.stream_usage
        if streaming:
            params["stream"] = True
            if stream_options:
                params["stream_options"] = {"include_usage": True}
        return params, Sent(response_format=fmt is not None, stream_options=stream_options,
                            temperature=send_temperature, max_tokens=True)

    def _send(self, params: dict[str, Any], on_delta: Callable[[str], None] | None,
              cancel: threading.Event | None) -> ChatResult:
        """One logical request: the attempts, with backoff between them, all within
        ``timeout × (max_retries + 1)`` seconds (a silent server is not waited on longer)."""
        config = self.config
        started = self._clock()
        deadline = started + config.timeout * (config.max_retries + 1)
        attempt = 0
        while True:
            _check(cancel)
            emitted: list[bool] = [False]
            timeout = max(self._min_attempt, min(config.timeout, deadline - self._clock()))
            try:
                if on_delta is None:
                    return self._complete(params, cancel, timeout)
                return self._stream(params, on_delta, cancel, emitted, timeout)
            except openai.APIStatusError as exc:
                status = exc.status_code
                spent = self._clock() - started
                if status in (400, 422):
                    raise _Rejected(failures.server_message(exc),
                                    failures.status_error(exc, config, attempt + 1,
                                                          spent)) from exc
                can_retry = failures.is_retryable(status) and not failures.is_quota_exhausted(exc)
                delay = failures.retry_delay(attempt, exc.response.headers)
                if (not can_retry or attempt >= config.max_retries or emitted[0]
                        or not self._time_left(deadline, delay)):
                    raise failures.status_error(exc, config, attempt + 1, spent) from exc
            except _CutOff as cut:
                # The server closed the stream before any text: ask once more, if time allows.
                delay = failures.retry_delay(0)
                if attempt >= 1 or not self._time_left(deadline, delay):
                    raise failures.response_error(str(cut), config) from None
            except (LLMError, _Rejected, _DeltaFailed):
                raise
            except Exception as exc:
                kind = failures.transport_kind(exc)
                if kind is None:
                    if isinstance(exc, (openai.APIError, json.JSONDecodeError)):
                        raise failures.response_error(str(exc), config) from exc
                    raise
                delay = failures.retry_delay(attempt)
                if (attempt >= config.max_retries or emitted[0]
                        or not self._time_left(deadline, delay)):
                    spent = self._clock() - started
                    if kind == "timeout":
                        raise failures.timeout_error(config, attempt + 1, spent) from exc
                    raise failures.connection_error(exc, config, attempt + 1, spent) from exc
            self._wait(delay, cancel)
            attempt += 1

    @property
    def _min_attempt(self) -> float:
        return max(0.1, self.config.timeout * MIN_ATTEMPT_SHARE)

    def _time_left(self, deadline: float, delay: float) -> bool:
        """Is there room for a useful attempt after waiting ``delay`` seconds?"""
        return deadline - self._clock() - delay >= self._min_attempt

    def _wait(self, seconds: float, cancel: threading.Event | None) -> None:
        if cancel is not None and self._sleep is time.sleep:
            cancel.wait(seconds)
        else:
            self._sleep(seconds)
        _check(cancel)

    def _complete(self, params: dict[str, Any], cancel: threading.Event | None,
                  timeout: float) -> ChatResult:
        if cancel is not None and transport.can_run_cancellable():
            response = transport.complete_cancellable(self.config, params, timeout, cancel)
        else:
            response = transport.complete(self._sdk, params, timeout)
        _check(cancel)
        result = read_completion(response, self.config.model or "")
        if result is None:
            raise failures.response_error(_no_choice(response), self.config)
        return result

    def _stream(self, params: dict[str, Any], on_delta: Callable[[str], None],
                cancel: threading.Event | None, emitted: list[bool],
                timeout: float) -> ChatResult:
        assembler = StreamAssembler(fallback_model=self.config.model or "")

        def feed(chunk: Any) -> None:
            _check(cancel)
            text = assembler.feed(chunk)
            if text:
                emitted[0] = True
                try:
                    on_delta(text)
                except Exception as error:
                    raise _DeltaFailed(error) from error

        try:
            if cancel is not None and transport.can_run_cancellable():
                content_type = transport.stream_cancellable(self.config, params, timeout,
                                                            cancel, feed)
            else:
                content_type = transport.stream(self._sdk, params, timeout, feed)
        except (LLMCancelledError, _DeltaFailed):
            raise
        except Exception:
            if not emitted[0] or assembler.finish_reason is not None:
                raise
            # The stream failed after the answer began (an error event, a broken connection):
            # what came is kept, cut off -- as when the server hangs up -- not thrown away.
            _check(cancel)
            return assembler.result(cut_off=True)
        _check(cancel)
        if assembler.finish_reason is None:  # no finish reason: the stream was cut off
            if not emitted[0]:
                kind = content_type.split(";", 1)[0].strip().lower()
                if kind and kind != "text/event-stream":  # a web page, a proxy's login form
                    raise failures.response_error(
                        f"it answered with {kind}, not a stream of chat chunks (is the base "
                        "URL an OpenAI-compatible API, often ending in /v1?)", self.config)
                raise _CutOff("the server closed the stream before the answer began")
            return assembler.result(cut_off=True)
        return assembler.result()


def _no_choice(response: Any) -> str:
    if isinstance(response, str):
        return f"not a chat completion: {response!r}"
    return "the answer holds no choices"


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise LLMCancelledError("the LLM request was cancelled")
