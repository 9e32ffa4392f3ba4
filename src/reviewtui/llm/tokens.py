"""Count tokens to fit context bundles into a model's window — offline, and never failing.

Counting uses tiktoken with the encodings shipped in the package (see ``encodings``): o200k for
the GPT-4o / 4.1 / 5 and o-series models, cl100k for everything else (for an unknown or local
model it is a fair approximation). When no encoding can be loaded, counts are an estimate:
about one token per four bytes, one per CJK character. Special-token text such as
``<|endoftext|>`` inside reviewed code is counted as ordinary text, never rejected.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from reviewtui.llm.encodings import load_encoding

MESSAGE_OVERHEAD = 4  # role and separators per message
REPLY_PRIMING = 3  # every reply is primed with <|start|>assistant<|message|>
TOOL_CALL_OVERHEAD = 4

_CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]"
)
_O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "chatgpt-4o", "gpt-oss", "o1", "o3",
                   "o4")


def estimate_tokens(text: str) -> int:
    """A rough count without an encoding: ~4 UTF-8 bytes per token, 1 per CJK character."""
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    rest = len(_CJK.sub("", text).encode("utf-8", "replace"))
    return cjk + math.ceil(rest / 4)


class TokenCounter:
    """Counts with one encoding (``exact``), or estimates (``name == "estimate"``)."""

    def __init__(self, name: str, encoding: Any | None = None) -> None:
        self._encoding = encoding
        self.exact = encoding is not None
        self.name = name if encoding is not None else "estimate"

    def __repr__(self) -> str:
        return f"TokenCounter({self.name!r}, exact={self.exact})"

    def count(self, text: str) -> int:
        if not text:
            return 0
        if self._encoding is not None:
            try:
                return len(self._encoding.encode(text, disallowed_special=()))
            except Exception:
                pass
        return estimate_tokens(text)

    def _content(self, content: Any) -> int:
        if content is None:
            return 0
        if isinstance(content, str):
            return self.count(content)
        if isinstance(content, Sequence):  # content parts: [{"type": "text", "text": ...}]
            total = 0
            for part in content:
                if isinstance(part, Mapping):
                    total += self.count(str(part.get("text") or ""))
                else:
                    total += self.count(str(part))
            return total
        return self.count(str(content))

    def count_messages(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of a chat request's messages: contents, names, tool calls and overheads."""
        total = REPLY_PRIMING if messages else 0
        for message in messages:
            total += MESSAGE_OVERHEAD + self._content(message.get("content"))
            for key in ("name", "tool_call_id"):
                value = message.get(key)
                if isinstance(value, str):
                    total += self.count(value)
            for call in message.get("tool_calls") or ():
                function = call.get("function") if isinstance(call, Mapping) else None
                if isinstance(function, Mapping):
                    total += TOOL_CALL_OVERHEAD + self.count(str(function.get("name") or ""))
                    arguments = function.get("arguments")
                    if not isinstance(arguments, str):
                        arguments = json.dumps(arguments)
                    total += self.count(arguments)
        return total

    def count_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> int:
        """Approximate tokens of tool definitions (their JSON)."""
        return self.count(json.dumps(list(tools), separators=(",", ":"))) if tools else 0

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix ending at a line boundary that fits in ``max_tokens``.

        When not even the first line fits, that line is cut where the tokens run out.
        """
        if max_tokens <= 0 or not text:
            return ""
        if self.count(text) <= max_tokens:
            return text
        lines = text.splitlines(keepends=True)
        ends = list(itertools.accumulate(len(line) for line in lines))

        def fits(k: int) -> bool:  # do the first k lines fit?
            return k == 0 or self.count(text[: ends[k - 1]]) <= max_tokens

        low = used = 0  # a first guess from per-line counts (BPE is not quite additive)
        for line in lines:
            used += self.count(line)
            if used > max_tokens:
                break
            low += 1
        while low and not fits(low):
            low -= 1
        high = len(lines) - 1  # all of them do not fit
        if low < high and fits(low + 1):  # per-line counts were pessimistic: search upwards
            low += 1
            while low < high:
                middle = (low + high + 1) // 2
                if fits(middle):
                    low = middle
                else:
                    high = middle - 1
        if low:
            return text[: ends[low - 1]]
        return self._cut_line(lines[0], max_tokens)

    def _cut_line(self, line: str, max_tokens: int) -> str:
        low, high = 0, len(line)  # the longest prefix that fits, by binary search
        while low < high:
            middle = (low + high + 1) // 2
            if self.count(line[:middle]) <= max_tokens:
                low = middle
            else:
                high = middle - 1
        return line[:low]


def encoding_name_for(model: str | None) -> str:
    """The shipped encoding that fits ``model``: o200k_base or cl100k_base."""
    if not model:
        return "cl100k_base"
    base = model.strip().lower().rsplit("/", 1)[-1]  # "openai/gpt-4o" (OpenRouter style)
    try:
        import tiktoken

        name = tiktoken.encoding_name_for_model(base)
    except Exception:
        name = ""
    if name.startswith("o200k"):
        return "o200k_base"
    if name == "cl100k_base":
        return name
    return "o200k_base" if base.startswith(_O200K_PREFIXES) else "cl100k_base"


@functools.cache
def counter_for_encoding(name: str) -> TokenCounter:
    """The counter for one encoding, loaded once per process (an estimator if it cannot be)."""
    try:
        encoding = load_encoding(name)
    except Exception:
        encoding = None
    return TokenCounter(name, encoding)


def token_counter(model: str | None = None) -> TokenCounter:
    """The token counter for ``model`` (cl100k for unknown and local models)."""
    return counter_for_encoding(encoding_name_for(model))
