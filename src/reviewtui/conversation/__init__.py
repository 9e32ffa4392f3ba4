"""The conversation stage: a chat about the change, over rounds (seeds 002, 004).

Entry point: ``ChatSession`` (``engine``; ``reviewtui ask`` and the workbench's chat: the
session it goes on in is ``session_choice``'s, the prompt it sends ``chat_prompt``'s, how it keeps
an answer ``turn_keeping``'s, which answer it may continue ``unfinished``'s). Each
question is a round (``rounds``: the files it mentioned or read, and the files it inherits from
earlier rounds by ``inheritance``'s relevance, with ``lru`` caches and ``keywords`` similarity);
the prompt is packed at send time under the token budget (``packing``: static context ->
``summary`` of older rounds -> recent window, its rounds as ``replay`` sends them -> the
question). The answer comes
from the agent's tool loop (``reviewtui.agent``); everything is stored in ``reviewtui.sessions``.
"""

from __future__ import annotations

from reviewtui.conversation.engine import AnswerInterrupted, AskResult, ChatSession

__all__ = ["AnswerInterrupted", "AskResult", "ChatSession"]
