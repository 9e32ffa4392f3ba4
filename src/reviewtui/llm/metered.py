"""An ``LLMClient`` that keeps the account of what it sent: requests and tokens.

``reviewtui eval --review`` reports what each case cost. The endpoint's own usage is the truth
when it gives one; a server that leaves usage out (some local servers do) is counted with the
model's token counter instead, and the account says so (``estimated``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reviewtui.llm.client import LLMClient
from reviewtui.llm.settings import LLMConfig
from reviewtui.llm.tokens import TokenCounter
from reviewtui.llm.types import ChatResult


@dataclass(frozen=True, slots=True)
class Account:
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False  # some request's tokens were counted here, not by the server


class MeteredClient(LLMClient):
    """``chat`` as usual, with every answered request added to ``take()``'s account."""

    def __init__(self, config: LLMConfig, counter: TokenCounter) -> None:
        super().__init__(config)
        self._counter = counter
        self._account = Account()
        self._account_lock = threading.Lock()

    def chat(self, messages: Sequence[Mapping[str, Any]], *,
             tools: Sequence[Mapping[str, Any]] | None = None,
             json_schema: Mapping[str, Any] | None = None, schema_name: str = "result",
             max_tokens: int | None = None, on_delta: Callable[[str], None] | None = None,
             cancel: threading.Event | None = None) -> ChatResult:
        result = super().chat(messages, tools=tools, json_schema=json_schema,
                              schema_name=schema_name, max_tokens=max_tokens,
                              on_delta=on_delta, cancel=cancel)
        if result.usage is not None:
            prompt, completion, estimated = (result.usage.prompt_tokens,
                                             result.usage.completion_tokens, False)
        else:
            count = self._counter
            prompt = count.count_messages(messages) + count.count_tools(tools)
            completion = count.count(result.content) + sum(
                count.count(call.name) + count.count(call.arguments)
                for call in result.tool_calls)
            estimated = True
        with self._account_lock:
            now = self._account
            self._account = Account(now.requests + 1, now.prompt_tokens + prompt,
                                    now.completion_tokens + completion,
                                    now.estimated or estimated)
        return result

    def take(self) -> Account:
        """The account since the last ``take``, and a fresh one from now on."""
        with self._account_lock:
            account, self._account = self._account, Account()
        return account
