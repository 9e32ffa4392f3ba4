"""Read a ``ChatResult`` out of a completion or a stream of chunks.

The SDK builds its response objects without validating them, so a quirky server's answer may
lack fields; everything here reads defensively (``getattr`` with a default) and reports a
missing answer as ``None`` for the client to turn into an ``LLMResponseError``. Streamed tool
calls arrive in pieces keyed by ``index`` (id and name first, the arguments JSON in fragments);
servers that omit the index get one call per new id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reviewtui.llm.surrogates import ends_in_high_surrogate, whole_text
from reviewtui.llm.types import ChatResult, ToolCall, Usage


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def read_usage(raw: Any) -> Usage | None:
    if raw is None:
        return None
    details = getattr(raw, "prompt_tokens_details", None)
    return Usage(
        prompt_tokens=_int(getattr(raw, "prompt_tokens", 0)),
        completion_tokens=_int(getattr(raw, "completion_tokens", 0)),
        cached_tokens=_int(getattr(details, "cached_tokens", 0)) if details is not None else 0,
    )


FILTERED = "content_filter"  # a finish reason: the answer is not whole, as if cut off


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def read_completion(response: Any, fallback_model: str) -> ChatResult | None:
    """The result of a non-streamed completion, or None when it holds no choice at all."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        return None
    choice = choices[0]
    message = getattr(choice, "message", None)
    if message is None:
        return None
    calls = []
    for number, raw in enumerate(getattr(message, "tool_calls", None) or []):
        function = getattr(raw, "function", None)
        name = _text(getattr(function, "name", None))
        if name:
            calls.append(ToolCall(id=_text(getattr(raw, "id", None)) or f"call_{number}",
                                  name=name,
                                  arguments=_text(getattr(function, "arguments", None))))
    return ChatResult(
        content=whole_text(_text(getattr(message, "content", None))),
        tool_calls=tuple(calls),
        finish_reason=getattr(choice, "finish_reason", None),
        usage=read_usage(getattr(response, "usage", None)),
        model=_text(getattr(response, "model", None)) or fallback_model,
        cut_off=getattr(choice, "finish_reason", None) == FILTERED,
    )


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class StreamAssembler:
    """Feed it chunks in order; ``result()`` gives the assembled answer."""

    fallback_model: str
    parts: list[str] = field(default_factory=list)
    calls: dict[int, _PartialCall] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Usage | None = None
    model: str = ""
    choices: int = 0  # chunks that carried a choice
    _held: str = ""  # a surrogate pair's first half, until its second arrives

    def feed(self, chunk: Any) -> str:
        """Take one chunk; return its content delta ("" when it has none)."""
        self.model = self.model or _text(getattr(chunk, "model", None))
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self.usage = read_usage(usage)
        choices = getattr(chunk, "choices", None)
        if not isinstance(choices, list) or not choices:
            return ""
        choice = choices[0]
        self.choices += 1
        finish = getattr(choice, "finish_reason", None)
        if isinstance(finish, str):
            self.finish_reason = finish
        delta = getattr(choice, "delta", None)
        if delta is None:
            return ""
        for raw in getattr(delta, "tool_calls", None) or []:
            self._feed_call(raw)
        text = self._held + _text(getattr(delta, "content", None))
        self._held = ""
        if ends_in_high_surrogate(text):  # its pair's second half comes in the next chunk
            text, self._held = text[:-1], text[-1]
        text = whole_text(text)
        if text:
            self.parts.append(text)
        return text

    def _feed_call(self, raw: Any) -> None:
        index = getattr(raw, "index", None)
        call_id = _text(getattr(raw, "id", None))
        if not isinstance(index, int):
            known = [n for n, call in self.calls.items() if call.id == call_id]
            if known:
                index = known[0]
            elif call_id or not self.calls:
                index = len(self.calls)
            else:
                index = max(self.calls)
        call = self.calls.setdefault(index, _PartialCall())
        call.id = call.id or call_id
        function = getattr(raw, "function", None)
        name = _text(getattr(function, "name", None))
        if name and not call.name:
            call.name = name
        arguments = _text(getattr(function, "arguments", None))
        if arguments:
            call.arguments.append(arguments)

    def result(self, *, cut_off: bool = False) -> ChatResult:
        """The answer so far; ``cut_off``: the stream ended before a finish reason."""
        calls = tuple(
            ToolCall(id=call.id or f"call_{index}", name=call.name,
                     arguments="".join(call.arguments))
            for index, call in sorted(self.calls.items()) if call.name
        )
        held = "\ufffd" if self._held else ""  # half a pair whose other half never came
        return ChatResult(content="".join(self.parts) + held, tool_calls=calls,
                          finish_reason=self.finish_reason, usage=self.usage,
                          model=self.model or self.fallback_model,
                          cut_off=cut_off or self.finish_reason == FILTERED)
