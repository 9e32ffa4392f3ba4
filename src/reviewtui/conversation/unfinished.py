"""Which answer a continuation can go on with, and why there is none.

An answer that is not whole (stopped at the model's output token limit, cut off by the server,
stopped by the person) is kept marked, and ``ChatSession.continue_answer`` asks the model to go
on from where it stopped. One the person stopped before the model said anything -- no text and
no tool round -- is kept too (its question, marked interrupted), but has no such place: a
continuation would ask the model to go on from nothing. ``reviewtui ask --continue`` and the
workbench's ``c`` both ask ``ChatSession.unfinished``, which leaves it out through
``said_nothing``; the person asks the question again. The session store refuses the claim on
such a round too, so a caller of ``ChatSession.ask(continues=...)`` cannot get past.
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewtui.errors import UsageError
from reviewtui.sessions import records
from reviewtui.sessions.records import RoundRecord
from reviewtui.sessions.store import SessionStore


def said_nothing(store: SessionStore, session_id: str, record: RoundRecord) -> bool:
    """Whether ``record`` is an answer the person stopped before the model said anything: no
    text, and no tool call among the round's stored messages (``records.said_nothing``, the
    test the store's claim on a continued round makes too)."""
    if not record.interrupted or record.answer.strip():
        return False  # (without reading its messages)
    return records.said_nothing(record, store.messages(session_id, since_round=record.index))


def nothing_to_continue(session_id: str, rounds: Sequence[RoundRecord],
                        unsaid: bool) -> UsageError:
    """The error for a continuation with nothing to go on with, after ``rounds`` (the
    session's, synced); ``unsaid``: the last ended round is one ``said_nothing`` is true of."""
    if rounds and rounds[-1].ended_at is None:
        return UsageError(f"nothing to continue: the last question of session {session_id} "
                          "has no answer (its request failed, or is still running)",
                          hint="ask it again")
    if unsaid:
        return UsageError(f"nothing to continue: the answer to the last question of session "
                          f"{session_id} was stopped before the model said anything",
                          hint="ask the question again")
    return UsageError(f"nothing to continue: the last answer of session {session_id} is "
                      "complete")
