"""The LLM layer: settings resolution, an OpenAI-compatible chat client, offline token counting.

``LLMClient`` (which imports the ``openai`` SDK, about half a second) is loaded on first use, so
code that only counts tokens or reads settings stays fast to import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from reviewtui.llm.settings import NOT_CONFIGURED_HINT, LLMConfig, resolve_llm
from reviewtui.llm.tokens import TokenCounter, estimate_tokens, token_counter
from reviewtui.llm.types import ChatResult, ToolCall, Usage

if TYPE_CHECKING:
    from reviewtui.llm.client import LLMClient

__all__ = [
    "NOT_CONFIGURED_HINT",
    "ChatResult",
    "LLMClient",
    "LLMConfig",
    "TokenCounter",
    "ToolCall",
    "Usage",
    "estimate_tokens",
    "resolve_llm",
    "token_counter",
]


def __getattr__(name: str) -> Any:
    if name == "LLMClient":
        return importlib.import_module("reviewtui.llm.client").LLMClient
    raise AttributeError(f"module 'reviewtui.llm' has no attribute {name!r}")
