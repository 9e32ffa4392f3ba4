"""The workbench's chat, beside its session (``tui.session``).

The chat session of the change is the one ``reviewtui ask`` continues (``conversation``), so the
terminal and the workbench share one conversation; it is opened with the first question and
opened again on the person's plan when a level or a skip changed since. A mixin of
``TuiSession``, so the session's module keeps to the store, the decisions and the refresh.
No Textual here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from reviewtui.errors import ReviewTuiError, StoreError
from reviewtui.llm import token_counter
from reviewtui.pipeline import LoadedChange
from reviewtui.plan import FusedPlan
from reviewtui.sessions.store import SessionStore
from reviewtui.tui.session_fixes import client_for, workspace_for

if TYPE_CHECKING:  # the chat and the model client load when first used
    from reviewtui.conversation.engine import AskResult, ChatSession
    from reviewtui.llm.settings import LLMConfig
    from reviewtui.sessions.records import RoundRecord


# how the rounds line says a round's answer ended, when it is not whole (``RoundRecord.ending``)
_ENDED = {"interrupted": "interrupted", "filtered": "content filter", "cut_off": "cut off",
          "truncated": "cut short (token limit)"}


class _Host(Protocol):
    """What the chat needs of the session it is mixed into."""

    loaded: LoadedChange
    config: LLMConfig
    _chat: ChatSession | None
    _store_problem: str | None

    def store(self) -> SessionStore | None: ...

    def _session(self, create: bool) -> str | None: ...


class SessionChat:
    _chat: ChatSession | None  # opened with the first question (``TuiSession`` starts it None)

    def ask(self: _Host, plan: FusedPlan, question: str | None, *,
            on_delta: Callable[[str], None], on_tool: Callable[[Any], None],
            cancel: threading.Event,
            on_progress: Callable[[str], None] | None = None) -> AskResult:
        """One round of the chat; ``question`` None: go on with the last, unfinished answer."""
        chat = SessionChat._chat_session(self, plan)
        if question is None:
            return chat.continue_answer(on_delta=on_delta, on_tool=on_tool, cancel=cancel,
                                        on_progress=on_progress)
        return chat.ask(question, on_delta=on_delta, on_tool=on_tool, cancel=cancel,
                        on_progress=on_progress)

    def stopped_round(self: _Host) -> RoundRecord | None:
        """The chat's last round if the person stopped its answer (kept, marked interrupted):
        what ``c`` would continue. None when it was not kept (the round stays in flight), or
        when the model had said nothing (``stopped_unsaid``)."""
        return SessionChat._last_stopped(self, unsaid=False)

    def stopped_unsaid(self: _Host) -> RoundRecord | None:
        """The chat's last round if the person stopped its answer before the model said
        anything: kept, not continued (``reviewtui ask --continue`` refuses it too)."""
        return SessionChat._last_stopped(self, unsaid=True)

    def _last_stopped(self: _Host, *, unsaid: bool) -> RoundRecord | None:
        chat = self._chat
        if chat is None:
            return None
        try:  # (read again from the store)
            last = chat.stopped_unsaid() if unsaid else chat.unfinished()
        except StoreError:
            return None
        if last is None or not last.interrupted or chat.rounds.rounds[-1].index != last.index:
            return None
        return last

    def _chat_session(self: _Host, plan: FusedPlan) -> ChatSession:
        from reviewtui.conversation.engine import ChatSession

        if self._chat is not None and self._chat.workspace.plan != plan:
            # the person changed a level or a skip since: the static context (the kept units'
            # diffs) and the tools' plan are the new plan's; the session and its rounds stay
            self._chat = ChatSession.open(workspace_for(self.loaded, plan), self._chat.store,
                                          self._chat.client, self._chat.counter,
                                          session_id=self._chat.session.session_id)
        if self._chat is None:
            store = self.store()
            if store is None:
                raise ReviewTuiError(self._store_problem or "the session store is unavailable")
            workspace = workspace_for(self.loaded, plan)
            sid = self._session(create=True)
            self._chat = ChatSession.open(workspace, store, client_for(self.config),
                                          token_counter(self.config.model), session_id=sid)
        return self._chat

    def earlier_rounds(self: _Host) -> list[RoundRecord]:
        """The answered rounds the change's session already has (``reviewtui ask``, an earlier
        workbench): the conversation the next question continues."""
        store = self.store()
        try:
            sid = self._session(create=False) if store is not None else None
            if store is None or sid is None:
                return []
            return [r for r in store.rounds(sid) if r.ended_at is not None]
        except StoreError:
            return []

    def rounds_text(self: _Host) -> str:
        chat = self._chat
        records = chat.rounds.rounds if chat is not None else SessionChat.earlier_rounds(self)
        if not records:
            return "chat — no messages yet"
        lines = []
        for record in records[-3:]:
            inherited = ", ".join(record.inherited_files[:4]) or "-"
            stopped = f" · {_ENDED[record.ending]}" if record.ending else ""
            lines.append(f"round {record.index + 1}: {record.prompt_tokens}+"
                         f"{record.completion_tokens} tokens · inherited {inherited}{stopped}")
        stats = chat.rounds.cache_stats().get("inheritance") if chat is not None else None
        if stats is not None:
            lines.append(f"inheritance cache: {stats.hits} hits / {stats.misses} misses "
                         f"({stats.hit_rate:.0%})")
        return "\n".join(lines)
