"""Summaries of old rounds, asked for by the round whose prompt needs them.

A round that leaves the recent window is sent as a summary line. Asking the model for that
summary right after the answer that pushed the round out made ``reviewtui ask`` wait on it
with the answer already printed; the next round, about to send a prompt that holds the line,
asks for it instead (and says so). One kept by another process meanwhile is used, not asked
for again; the store keeps the first one written; a failing request leaves the summary by
rules, kept (``Summarizer``).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

from reviewtui.conversation.packing import PackedPrompt
from reviewtui.conversation.rounds import RoundManager
from reviewtui.conversation.summary import Summarizer
from reviewtui.errors import StoreError
from reviewtui.sessions.records import MessageRecord, RoundRecord
from reviewtui.sessions.store import SessionStore


def unsummarised(ended: list[RoundRecord], packed: PackedPrompt,
                 window: int) -> list[RoundRecord]:
    """The rounds out of the recent ``window`` that ``packed`` sends as summary lines but
    have no summary yet (a round the window let go only to fit the budget has its line by
    rules, as one the summaries' share leaves out has none)."""
    sent = set(packed.summarized_rounds)
    old = ended[:-window] if len(ended) > window else []
    return [record for record in old if record.summary is None and record.index in sent]


def messages_by_round(store: SessionStore, session_id: str) -> dict[int, list[MessageRecord]]:
    """The session's stored messages, by round."""
    grouped: dict[int, list[MessageRecord]] = {}
    for message in store.messages(session_id):
        grouped.setdefault(message.round_index, []).append(message)
    return grouped


def summarise_due(store: SessionStore, session_id: str, rounds: RoundManager,
                  summarizer: Summarizer, pending: list[RoundRecord], window: int,
                  on_progress: Callable[[str], None] | None,
                  cancel: threading.Event | None) -> list[RoundRecord]:
    """Give each ``pending`` round its summary (kept by another process, else asked for and
    kept); the ended rounds again, with the summaries."""
    try:
        stored = {r.index: r.summary for r in store.rounds(session_id) if r.summary}
        by_round = messages_by_round(store, session_id)
    except StoreError:
        stored, by_round = {}, {}
    for record in pending:
        summary = stored.get(record.index)
        if summary is None:
            if on_progress is not None:
                on_progress(f"summarising round {record.index + 1} for the prompt (it left "
                            f"the last {window} rounds)")
            summary = summarizer.summarize(record, by_round.get(record.index, []),
                                           cancel=cancel)
            with contextlib.suppress(StoreError):  # not kept: asked again next time
                summary = store.keep_round_summary(session_id, record.index, summary)
        rounds.set_summary(record.index, summary)
    return [r for r in rounds.rounds if r.ended_at is not None]
