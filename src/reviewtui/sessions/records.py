"""Persisted conversation data: what the session store keeps and the conversation engine uses.

Pydantic because these cross a boundary (the SQLite store, and JSON for ``reviewtui sessions``).
Storage keeps everything; what is *sent* to the model is decided at send time by the packer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SessionInfo(_Record):
    """A conversation about one change of one repository."""

    session_id: str
    repo_key: str  # the repository's resolved root (one store serves every repository)
    change_key: str  # which change: mode and sides, e.g. "range:1a2b..3c4d"
    title: str
    created_at: str  # ISO 8601, UTC
    updated_at: str
    rounds: int = 0
    # of them, those with an answer (not in flight, interrupted, nor left empty by the model)
    answered: int = 0
    interrupted: int = 0  # of them, those the person stopped mid-answer (kept, marked)
    model: str | None = None


class MessageRecord(_Record):
    """One message of the stream; tool results keep a compressed body and a ``ref_id``."""

    message_id: int | None = None  # assigned by the store
    round_index: int
    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)  # OpenAI wire form
    tool_call_id: str | None = None
    name: str | None = None  # the tool's name for role "tool"
    ref_id: str | None = None  # tool memory id of the full result
    tokens: int = 0
    created_at: str = ""


# how an answer that is not whole ended (``RoundRecord.ending``)
RoundEnding = Literal["interrupted", "filtered", "cut_off", "truncated"]


class RoundRecord(_Record):
    """One round: a user message, its tool calls and the answer (seed 004 ConversationRound)."""

    index: int  # 0-based within the session
    user_message: str
    answer: str = ""
    files: list[str] = Field(default_factory=list)  # files the round mentioned or read
    units: list[str] = Field(default_factory=list)  # unit ids it mentioned
    inherited_files: list[str] = Field(default_factory=list)  # context it received
    keywords: list[str] = Field(default_factory=list)
    summary: str | None = None  # once the round has been summarised
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    started_at: str = ""
    ended_at: str | None = None  # None while the round is in flight
    cut_off: bool = False  # the server closed the stream before the answer was finished
    truncated: bool = False  # the model stopped at its output token limit (finish "length")
    filtered: bool = False  # the provider's content filter stopped it (``cut_off`` too)
    continues: int | None = None  # the index of the round whose answer this one goes on with
    interrupted: bool = False  # the person stopped it (Ctrl-C, the chat's stop key) mid-answer

    @property
    def incomplete(self) -> bool:
        """The answer is not whole: cut off by the server, stopped by the token limit, or
        stopped by the person."""
        return self.ending is not None

    @property
    def ending(self) -> RoundEnding | None:
        """How an answer that is not whole ended (None: it is whole). The one order of the
        marks, which every place that words them (the prompt's marker, the summary line, the
        workbench) looks up: a filtered answer is cut off too, and said to be filtered."""
        if self.interrupted:
            return "interrupted"
        if self.filtered:
            return "filtered"
        if self.cut_off:
            return "cut_off"
        return "truncated" if self.truncated else None


class ToolResultRecord(_Record):
    """The full output of one tool call, addressable by ``ref_id``."""

    ref_id: str
    round_index: int
    tool: str
    arguments: str
    content: str
    created_at: str = ""


def said_nothing(record: RoundRecord, messages: Iterable[MessageRecord]) -> bool:
    """Whether ``record`` is an answer the person stopped before the model said anything: no
    text, and no tool call among ``messages`` (those of other rounds are ignored). It is kept,
    but a continuation would have nothing to go on from: the store refuses to let one claim
    it, and the conversation does not offer it."""
    if not record.interrupted or record.answer.strip():
        return False
    return not any(message.tool_calls for message in messages
                   if message.round_index == record.index)
