"""Turn what the SDK raises into one-line ``LLMError``s, and decide what is worth a retry.

Every message names the endpoint and says what to do, and none ever contains the API key: a
server's own text is scrubbed of it (OpenAI's 401 even echoes part of the key, so for 401/403
the server's text is not used at all).
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping

import openai

from reviewtui.errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMError,
    LLMModelNotFoundError,
    LLMRateLimitError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
)
from reviewtui.llm.settings import LLMConfig

BACKOFF_BASE = 0.5  # seconds before the first retry; doubles per attempt
BACKOFF_CAP = 20.0
RETRY_AFTER_CAP = 60.0  # a server's Retry-After is honoured up to this many seconds
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 520, 522, 524, 529})


def one_line(text: str, limit: int = 200) -> str:
    """Collapse whitespace and shorten to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def scrub(text: str, config: LLMConfig) -> str:
    if config.api_key:
        text = text.replace(config.api_key, "***")
    if config.shown_endpoint != config.endpoint:  # a password or a key in the base URL
        text = text.replace(config.endpoint, config.shown_endpoint)
    return text


def server_message(exc: openai.APIStatusError) -> str:
    """The server's own explanation, from ``{"error": {"message": ...}}`` or similar."""
    body = exc.body
    if isinstance(body, Mapping):
        for key in ("message", "detail", "error", "msg"):
            value = body.get(key)
            if isinstance(value, Mapping):
                value = value.get("message")
            if isinstance(value, str) and value.strip():
                return value
            if isinstance(value, list) and value:  # FastAPI-style validation details
                return str(value[0].get("msg", value[0]) if isinstance(value[0], Mapping)
                           else value[0])
    if isinstance(body, str) and body.strip():
        return body
    return exc.message


def is_retryable(status: int) -> bool:
    return status in RETRY_STATUSES or status >= 500


def is_quota_exhausted(exc: openai.APIStatusError) -> bool:
    """OpenAI answers 429 ``insufficient_quota`` when the account is out of credit."""
    code = exc.code or ""
    return exc.status_code == 429 and ("quota" in code or "quota" in server_message(exc).lower())


def _retry_after(headers: Mapping[str, str]) -> float | None:
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return float(millis) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()


def retry_delay(attempt: int, headers: Mapping[str, str] | None = None) -> float:
    """Seconds to wait before retry number ``attempt + 1``."""
    if headers is not None:
        after = _retry_after(headers)
        if after is not None and after >= 0:
            return min(after, RETRY_AFTER_CAP)
    return float(min(BACKOFF_BASE * 2**attempt, BACKOFF_CAP))


def _attempts(count: int, spent: float | None = None) -> str:
    tried = "1 attempt" if count == 1 else f"{count} attempts"
    return tried if spent is None else f"{tried}, {spent:.1f} s in all"


def status_error(exc: openai.APIStatusError, config: LLMConfig, attempts: int,
                 spent: float | None = None) -> LLMError:
    status = exc.status_code
    url = config.shown_endpoint
    said = one_line(scrub(server_message(exc), config))
    if status in (401, 403):
        if config.has_api_key:
            return LLMAuthError(f"the LLM endpoint {url} rejected the API key (HTTP {status}); "
                                "set OPENAI_API_KEY", status=status)
        return LLMAuthError(f"the LLM endpoint {url} needs an API key (HTTP {status}); "
                            "set OPENAI_API_KEY", status=status)
    if status == 404:
        return LLMModelNotFoundError(
            f"model '{config.model}' not found at {url}",
            hint="check the model name and that the URL is the API's base, often ending in /v1",
            status=status)
    if status == 429:
        if is_quota_exhausted(exc):
            return LLMRateLimitError(f"the LLM endpoint {url} reports an exhausted quota "
                                     f"(HTTP 429): {said}", status=status)
        return LLMRateLimitError(f"the LLM endpoint {url} is rate-limiting requests (HTTP 429, "
                                 f"{_attempts(attempts, spent)}); try again later",
                                 status=status)
    if status >= 500:
        return LLMServerError(f"the LLM endpoint {url} failed with HTTP {status} "
                              f"({_attempts(attempts, spent)}): {said}", status=status)
    if status == 408:
        return timeout_error(config, attempts, spent)
    return LLMBadRequestError(f"the LLM endpoint {url} rejected the request (HTTP {status}): "
                              f"{said}", status=status)


def timeout_error(config: LLMConfig, attempts: int,
                  spent: float | None = None) -> LLMTimeoutError:
    return LLMTimeoutError(
        f"the LLM endpoint {config.shown_endpoint} did not answer within {config.timeout:g} s "
        f"({_attempts(attempts, spent)}); raise [llm] timeout if the model is slow")


def _root_cause(exc: BaseException) -> str:
    seen: set[int] = set()
    current: BaseException | None = exc
    text = ""
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if str(current):
            text = str(current)
        current = current.__cause__ or current.__context__
    return text


def connection_error(exc: BaseException, config: LLMConfig, attempts: int = 1,
                     spent: float | None = None) -> LLMConnectionError:
    reason = one_line(scrub(_root_cause(exc), config), 120)
    reason = re.sub(r"^\[Errno -?\d+\]\s*", "", reason)
    suffix = f": {reason}" if reason and reason != "Connection error." else ""
    tried = f" ({_attempts(attempts, spent)})" if spent is not None else ""
    return LLMConnectionError(f"cannot connect to {config.shown_endpoint}{tried}{suffix}")


def response_error(detail: str, config: LLMConfig) -> LLMResponseError:
    return LLMResponseError(f"the LLM endpoint {config.shown_endpoint} sent an unusable answer: "
                            f"{one_line(scrub(detail, config), 160)}")


def transport_kind(exc: BaseException) -> str | None:
    """"timeout" / "connection" for an HTTP library's transport error, whatever its version."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if isinstance(exc, TimeoutError) or names & {"TimeoutException", "APITimeoutError"}:
        return "timeout"
    if isinstance(exc, ConnectionError) or names & {"TransportError", "NetworkError",
                                                    "APIConnectionError", "StreamError"}:
        return "connection"
    return None
