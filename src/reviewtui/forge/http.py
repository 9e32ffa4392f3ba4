"""The one HTTP client of the forge code: JSON in and out, errors mapped, rate limits waited out.

``httpx2`` is already installed (the ``openai`` SDK's transport), typed, and imported only here,
only when a forge is used. A token no header can carry (a line break, a non-ASCII character) is
refused before any request, without its value (httpx's own error would show the header).
Each answer is mapped onto ``errors.py``: 401 → ``ForgeAuthError`` naming the token's source
(never the token), 404 → ``ForgeNotFoundError``, 422 → ``ForgeValidationError`` with the
forge's own message, 403/429 with ``Retry-After`` (or an exhausted ``x-ratelimit-remaining``
with ``x-ratelimit-reset``) → wait and try again, at most ``MAX_RATE_WAITS`` times and
``MAX_WAIT_SECONDS`` each, then ``ForgeRateLimitError``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, TypeVar

from reviewtui import __version__
from reviewtui.errors import (
    ForgeAuthError,
    ForgeError,
    ForgeNotFoundError,
    ForgeRateLimitError,
    ForgeValidationError,
)
from reviewtui.forge.auth import Token

if TYPE_CHECKING:
    import httpx2
    from pydantic import BaseModel

T = TypeVar("T", bound="BaseModel")
PAGE_SIZE = 100
MAX_PAGES = 50  # 5,000 comments or discussions: more is not a request one reviews here

_HEADER_SAFE = re.compile(r"[!-~]+")  # visible ASCII: what a token in a header may hold
MAX_RATE_WAITS = 3
MAX_WAIT_SECONDS = 60.0
TIMEOUT_SECONDS = 30.0
Sleep = Callable[[float], None]


def _wait_seconds(response: httpx2.Response) -> float | None:
    """How long the forge asks to wait, or None when this 403/429 is not a rate limit."""
    retry_after = response.headers.get("retry-after")
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            pass
        try:  # the other form HTTP allows: a date (RFC 9110, 10.2.3)
            when = parsedate_to_datetime(retry_after.strip())
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            return None
        return max(0.0, when.timestamp() - time.time())
    if response.headers.get("x-ratelimit-remaining") == "0":
        reset = response.headers.get("x-ratelimit-reset")
        try:
            return max(0.0, float(reset) - time.time()) if reset else None
        except ValueError:
            return None
    # GitHub's secondary rate limits may come as a 403 that only says so: "wait for at least
    # one minute before retrying", as a 429 without headers
    return 60.0 if response.status_code == 429 or "rate limit" in _message(
        response).lower() else None


def _message(response: httpx2.Response) -> str:
    """The forge's own explanation, shortened: ``message`` plus its ``errors``."""
    try:
        data = response.json()
    except ValueError:
        return response.text.strip()[:200]
    if not isinstance(data, dict):
        return str(data)[:200]
    parts = [_said(data.get("message") or data.get("error") or "")]
    errors = data.get("errors") or []
    # GitLab gives ``errors`` as one string at times: read whole, not character by character
    for error in [errors] if isinstance(errors, str) else errors:
        parts.append(str(error.get("message") or error.get("code") or error)
                     if isinstance(error, dict) else str(error))
    return "; ".join(p for p in parts if p)[:300]


def _said(message: object) -> str:
    """A forge's ``message``: text, or GitLab's validation table ``{"note": ["is too long"]}``
    as ``note is too long``."""
    if isinstance(message, dict):
        return "; ".join(f"{key} {', '.join(map(str, value)) if isinstance(value, list) else value}"
                         for key, value in message.items())
    return str(message)


class ForgeHttp:
    """JSON requests against one forge API base URL with one token."""

    def __init__(self, base_url: str, token: Token, *, what: str,
                 auth_header: tuple[str, str] = ("Authorization", "Bearer "),
                 sleep: Sleep | None = None,
                 extra_headers: dict[str, str] | None = None) -> None:
        import httpx2

        if not _HEADER_SAFE.fullmatch(token.value):
            # httpx would raise on it (a traceback), or name the header -- the token -- in its
            # error: said here without the value
            raise ForgeAuthError(f"the {token} holds a character no HTTP header may carry (a "
                                 "space, a line break or a non-ASCII one such as '…')",
                                 hint="copy the whole token again, and only the token")
        name, prefix = auth_header
        headers = {name: f"{prefix}{token.value}", "User-Agent": f"reviewtui/{__version__}",
                   "Accept": "application/json", **(extra_headers or {})}
        self._client = httpx2.Client(base_url=base_url.rstrip("/") + "/", headers=headers,
                                     timeout=TIMEOUT_SECONDS, follow_redirects=True)
        self.token = token
        self.what = what  # "GitHub (api.github.com)": for messages
        self._sleep = sleep or time.sleep
        self.waited: list[float] = []  # the rate-limit waits taken, for the report

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ForgeHttp:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def refusable(self, path: str) -> Any:
        """``GET path``, or None when the forge refuses to answer it (HTTP 403/404: what it
        says to a token that is no user's); a rejected token (401) still raises."""
        try:
            return self.request("GET", path)
        except (ForgeAuthError, ForgeNotFoundError) as exc:
            if exc.status == 401:
                raise
            return None

    def pages(self, path: str) -> list[Any]:
        """Every item of a paged list answer (``per_page``/``page``, as GitHub and GitLab
        both page), at most ``MAX_PAGES`` pages."""
        items: list[Any] = []
        for page in range(1, MAX_PAGES + 1):
            data = self.request("GET", path, params={"per_page": PAGE_SIZE, "page": page})
            if not isinstance(data, list):
                raise ForgeError(f"{self.forge}'s answer for {path} is not a list")
            items += data
            if len(data) < PAGE_SIZE:
                break
        return items

    def parsed(self, model: type[T], data: Any, what: str) -> T:
        """``data`` read as ``model``; a ``ForgeError`` naming ``what`` when it is not."""
        from pydantic import ValidationError

        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise ForgeError(f"{self.forge}'s answer for {what} is not what its API "
                             f"describes: {exc.errors()[0]['msg']}") from None

    @property
    def forge(self) -> str:
        return self.what.split(" (", 1)[0]

    def request(self, method: str, path: str, *, body: dict[str, Any] | None = None,
                params: dict[str, str | int] | None = None, not_found: str = "") -> Any:
        """The decoded JSON answer of ``method path``; errors as in the module docstring."""
        import httpx2

        waits = 0
        while True:
            try:
                response = self._client.request(
                    method, path.lstrip("/"), params=params,
                    content=json.dumps(body).encode() if body is not None else None,
                    headers={"Content-Type": "application/json"} if body is not None else None)
            except httpx2.TimeoutException as exc:
                if isinstance(exc, httpx2.ConnectTimeout | httpx2.PoolTimeout):  # never sent
                    raise ForgeError(f"{self.what} cannot be reached: "
                                     f"{type(exc).__name__}: {exc}") from None
                # sent, maybe acted on: "cannot be reached" would say nothing was
                raise ForgeError(
                    f"{self.what} did not answer {method} {path} within "
                    f"{self._client.timeout.read or 0:g} s",
                    hint=None if method == "GET" else (
                        "it may have received it: publishing again finds what was sent "
                        "and does not send it twice")) from None
            except httpx2.HTTPError as exc:
                raise ForgeError(f"{self.what} cannot be reached: "
                                 f"{type(exc).__name__}: {exc}") from None
            status = response.status_code
            if status in (403, 429):
                wait = _wait_seconds(response)
                if wait is not None:
                    if wait > MAX_WAIT_SECONDS and waits == 0:
                        minutes = max(1, round(wait / 60))
                        raise ForgeRateLimitError(
                            f"{self.what} rate limit: it asks to wait {wait:.0f} s, longer "
                            f"than reviewtui waits ({MAX_WAIT_SECONDS:g} s)",
                            hint=f"try again in about {minutes} minute"
                                 f"{'s' if minutes != 1 else ''}", status=status)
                    if waits >= MAX_RATE_WAITS or wait > MAX_WAIT_SECONDS:
                        raise ForgeRateLimitError(
                            f"{self.what} rate limit: still limited after {waits} waits",
                            hint=f"it asks to wait {wait:.0f} s; try again later", status=status)
                    waits += 1
                    self.waited.append(wait)
                    self._sleep(wait)
                    continue
            if status < 400:
                if status == 204 or not response.content:
                    return None
                try:
                    return response.json()
                except ValueError:
                    raise ForgeError(f"{self.what} answered {method} {path} with "
                                     "something that is not JSON") from None
            self._raise(status, response, method, path, not_found)

    def _raise(self, status: int, response: httpx2.Response, method: str, path: str,
               not_found: str) -> None:
        detail = _message(response)
        if status == 401:
            raise ForgeAuthError(f"{self.what} rejected the {self.token} (HTTP 401)",
                                 hint="check that it is valid and not expired", status=status)
        if status == 403:
            raise ForgeAuthError(f"{self.what} refused {method} {path} with the {self.token} "
                                 f"(HTTP 403: {detail})", hint="the token may lack a scope",
                                 status=status)
        if status == 404:
            raise ForgeNotFoundError(
                not_found or f"{self.what}: {path} not found (HTTP 404)",
                hint=f"or the {self.token} cannot see it", status=status)
        if status == 422:
            raise ForgeValidationError(f"{self.what} refused {method} {path} (HTTP 422: "
                                       f"{detail})", status=status)
        raise ForgeError(f"{self.what} answered {method} {path} with HTTP {status}: {detail}",
                         status=status)
