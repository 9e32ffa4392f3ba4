"""What an OpenAI-compatible endpoint accepts, learned from the 400s it answers.

"OpenAI-compatible" servers differ: many reject ``response_format`` of type ``json_schema``
(some also ``json_object``), older ones reject ``stream_options``, and OpenAI's reasoning models
reject ``temperature`` and ``max_tokens``. Instead of a table of servers, the client sends the
best request, and when the server answers 400/422 it drops or downgrades the feature the
message points at (or, if the message names none, the likeliest one), retries, and remembers
what worked for the rest of the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from reviewtui.llm.settings import JsonMode

# json_mode → the response formats to try, best first.
FORMAT_CHAINS: dict[JsonMode, tuple[str, ...]] = {
    "auto": ("json_schema", "json_object", "off"),
    "json_schema": ("json_schema",),
    "json_object": ("json_object",),
    "off": ("off",),
}

# A 400 with one of these is about the request's size, which no downgrade fixes.
_HARD_FAILURES = (
    "context length", "context_length", "maximum context", "context window", "too many tokens",
    "prompt is too long", "reduce the length",
)
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "json mode", "structured output",
                 "guided_json", "response format")
_STREAM_WORDS = ("stream_options", "include_usage")


@dataclass(frozen=True)
class Compat:
    """The request features this endpoint is known to accept (for one client instance)."""

    format_index: int = 0  # position in the json_mode's FORMAT_CHAINS entry
    stream_usage: bool = True  # send stream_options={"include_usage": True} when streaming
    temperature: bool = True  # send the configured temperature
    max_tokens_field: str = "max_tokens"  # or "max_completion_tokens"


@dataclass(frozen=True)
class Sent:
    """Which optional features one request used."""

    response_format: bool
    stream_options: bool
    temperature: bool
    max_tokens: bool


def response_format(kind: str, schema: Mapping[str, Any],
                    name: str) -> dict[str, Any] | None:
    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": dict(schema)}}
    if kind == "json_object":
        return {"type": "json_object"}
    return None


def degrade(compat: Compat, chain: tuple[str, ...], message: str, sent: Sent) -> Compat | None:
    """The compat state to retry with after a 400/422 with ``message``, or None to give up."""
    text = message.lower()
    if any(marker in text for marker in _HARD_FAILURES):
        return None
    can_format = sent.response_format and compat.format_index + 1 < len(chain)
    named = False
    if any(word in text for word in _STREAM_WORDS):
        named = True
        if sent.stream_options:
            return replace(compat, stream_usage=False)
    if "max_completion_tokens" in text:
        named = True
        if sent.max_tokens and compat.max_tokens_field == "max_tokens":
            return replace(compat, max_tokens_field="max_completion_tokens")
    if any(word in text for word in _FORMAT_WORDS):
        named = True
        if can_format:
            return replace(compat, format_index=compat.format_index + 1)
    if "temperature" in text:
        named = True
        if sent.temperature:
            return replace(compat, temperature=False)
    if named:
        return None
    # The message names nothing we know: try the likeliest culprits in turn.
    if can_format:
        return replace(compat, format_index=compat.format_index + 1)
    if sent.stream_options:
        return replace(compat, stream_usage=False)
    return None
