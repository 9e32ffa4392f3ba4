"""Blank what looks like a secret in text that is stored or sent to a model.

One place for the patterns, so the session store, the change's stated purpose (commit messages,
descriptions), the context bundles, the exports and anything else that leaves the process redact
the same things: OpenAI-style keys, ``Bearer`` tokens, AWS access key ids and
``aws_secret_access_key = ...`` assignments -- and, where it is known, the configured key.
Plain ``re``, no imports of the LLM client: the git stage uses it too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

REDACTED = "[REDACTED]"
MIN_KEY_LENGTH = 8  # a configured key shorter than this is not blanked (it would hit words)
SECRET_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # OpenAI-style keys (sk-..., sk-proj-..., sk-ant-...), not "task-..." or "disk-...".
    (re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}"), REDACTED),
    # Authorization headers and pasted curl commands.
    (re.compile(r"\b((?i:bearer))(\s+)[A-Za-z0-9._~+/=-]{16,}"), rf"\1\2{REDACTED}"),
    # AWS access key ids (AKIA... long-term, ASIA... temporary).
    (re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])"), REDACTED),
    # aws_secret_access_key = "...", AWS_SECRET_ACCESS_KEY: ... (40 base64-ish characters).
    (re.compile(r"((?i:aws_secret_access_key)[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}"),
     rf"\1{REDACTED}"),
)


def redact_secrets(text: str) -> str:
    """``text`` with anything that looks like an API key (``sk-…``, ``Bearer …``, AWS keys)
    blanked."""
    for pattern, replacement in SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact_text(text: str, also: str | None = None) -> str:
    """``text`` with the secret patterns blanked, and ``also`` (the configured key, whatever
    its shape; ignored when shorter than 8 characters, which would blank ordinary words)."""
    text = redact_secrets(text)
    return text.replace(also, REDACTED) if also and len(also) >= MIN_KEY_LENGTH else text


def redact_value(value: Any, also: str | None = None) -> Any:
    """JSON-like data (dicts, lists, strings...) with every string redacted as ``redact_text``
    does; dict keys and other values stay as they are."""
    if isinstance(value, str):
        return redact_text(value, also)
    if isinstance(value, Mapping):
        return {key: redact_value(item, also) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(item, also) for item in value]
    return value


def redact_message(message: Mapping[str, Any], also: str | None = None) -> dict[str, Any]:
    """A chat message as sent: its text (``content`` as a string or as text parts) with the
    secret patterns blanked, and ``also`` (the configured key, whatever its shape) too."""
    out = dict(message)
    content = out.get("content")
    if isinstance(content, str):
        out["content"] = redact_text(content, also)
    elif isinstance(content, list):
        out["content"] = [{**part, "text": redact_text(part["text"], also)}
                          if isinstance(part, dict) and isinstance(part.get("text"), str)
                          else part for part in content]
    return out
