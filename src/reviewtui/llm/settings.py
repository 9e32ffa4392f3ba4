"""Which LLM endpoint to talk to: the ``[llm]`` settings overridden by the environment.

The environment wins over the files so that a one-off ``REVIEWTUI_MODEL=... reviewtui`` (or an
already exported ``OPENAI_API_KEY``) works without editing any configuration. Local servers
(Ollama, vLLM, llama.cpp) need no key, so a missing key is not an error: the SDK insists on a
non-empty one, so it gets a placeholder. The key never appears in a ``repr``, nor does a secret
in the base URL (a proxy's ``user:password@``, a key in the query string): messages show
``shown_endpoint``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from reviewtui.config import LLMSettings

JsonMode = Literal["auto", "json_schema", "json_object", "off"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
PLACEHOLDER_API_KEY = "not-needed"

NOT_CONFIGURED_HINT = (
    "no LLM model is configured: set REVIEWTUI_MODEL (and OPENAI_BASE_URL / OPENAI_API_KEY), "
    'or [llm] model = "..." in .reviewtui.toml or ~/.config/reviewtui/config.toml'
)

# The first variable that is set (and not empty) wins; the reviewtui-specific one comes first.
MODEL_VARIABLES = ("REVIEWTUI_MODEL",)
BASE_URL_VARIABLES = ("REVIEWTUI_BASE_URL", "OPENAI_BASE_URL")
API_KEY_VARIABLES = ("REVIEWTUI_API_KEY", "OPENAI_API_KEY")


@dataclass(frozen=True, repr=False)
class LLMConfig:
    """The resolved endpoint settings. ``configured`` is False until a model is named."""

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, compare=False)
    timeout: float = 120.0
    max_retries: int = 3
    context_window: int = 32_000
    max_output_tokens: int = 4_096
    json_mode: JsonMode = "auto"
    temperature: float | None = 0.0

    @property
    def configured(self) -> bool:
        return bool(self.model)

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (the OpenAI API when none is set)."""
        return (self.base_url or DEFAULT_BASE_URL).rstrip("/")

    @property
    def shown_endpoint(self) -> str:
        """``endpoint`` as messages may print it: a password and query values masked."""
        return shown_url(self.endpoint)

    @property
    def has_api_key(self) -> bool:
        return bool(self.api_key)

    @property
    def sdk_api_key(self) -> str:
        """What the SDK gets: the key, or a placeholder for servers that need none."""
        return self.api_key or PLACEHOLDER_API_KEY

    def __repr__(self) -> str:
        key = "'***'" if self.api_key else "None"
        return (
            f"LLMConfig(model={self.model!r}, "
            f"base_url={shown_url(self.base_url) if self.base_url else None!r}, api_key={key}, "
            f"timeout={self.timeout!r}, max_retries={self.max_retries!r}, "
            f"context_window={self.context_window!r}, "
            f"max_output_tokens={self.max_output_tokens!r}, json_mode={self.json_mode!r}, "
            f"temperature={self.temperature!r})"
        )

    __str__ = __repr__


def shown_url(url: str) -> str:
    """``url`` with the password of its user part and the values of its query masked: what an
    error message or a log line may show of it."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # not a URL we can take apart: show none of it that could be secret
        return url.split("?", 1)[0].rsplit("@", 1)[-1]
    netloc = parts.netloc
    if password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.split(':', 1)[0]}:***@{host}"
    query = "&".join(f"{item.split('=', 1)[0]}=***" if "=" in item else item
                     for item in parts.query.split("&")) if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _first(env: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return None


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    return value.strip() or None


def resolve_llm(settings: LLMSettings, env: Mapping[str, str] | None = None) -> LLMConfig:
    """Combine the ``[llm]`` settings with the environment (``os.environ`` by default)."""
    env = os.environ if env is None else env
    return LLMConfig(
        model=_first(env, MODEL_VARIABLES) or _clean(settings.model),
        base_url=_first(env, BASE_URL_VARIABLES) or _clean(settings.base_url),
        api_key=_first(env, API_KEY_VARIABLES) or _clean(settings.api_key),
        timeout=settings.timeout,
        max_retries=settings.max_retries,
        context_window=settings.context_window,
        max_output_tokens=settings.max_output_tokens,
        json_mode=settings.json_mode,
        temperature=settings.temperature,
    )
