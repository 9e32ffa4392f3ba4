"""What a chat call returns, as plain frozen dataclasses.

The rest of reviewtui (planner, agent, chat) works with these and never with the SDK's own
objects, so an SDK upgrade or a quirky server changes one module, not every caller.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for; ``arguments`` is the raw JSON text."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class ChatResult:
    content: str
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str | None
    usage: Usage | None
    model: str
    cut_off: bool = False  # the server closed the stream mid-answer (no finish reason)

    @property
    def truncated(self) -> bool:
        """The model stopped at its output token limit: the answer is not whole."""
        return self.finish_reason == "length"

    @property
    def filtered(self) -> bool:
        """The provider's content filter stopped the answer (``cut_off`` is set too)."""
        return self.finish_reason == "content_filter"
