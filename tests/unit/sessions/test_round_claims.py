"""Only one round goes on with an unfinished answer: the claim a continuation takes in the
store (a conditional UPDATE in the transaction that opens its round), raced by threads that
each hold their own connection to one real SQLite file."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from reviewtui.errors import RoundClaimedError, StoreError
from reviewtui.sessions.records import MessageRecord, RoundRecord
from reviewtui.sessions.store import SessionStore

RACERS = 4
CONTINUE = "go on"


def _question(store: SessionStore, sid: str, text: str, *,
              continues: int | None = None, stale_after: float | None = None) -> RoundRecord:
    return store.open_round(sid, RoundRecord(index=0, user_message=text, continues=continues),
                            [MessageRecord(round_index=0, role="user", content=text)],
                            claim_stale_after=stale_after)


def _truncated(store: SessionStore, sid: str, text: str) -> RoundRecord:
    record = _question(store, sid, text)
    done = record.model_copy(update={"answer": "It stops mid", "truncated": True})
    store.end_round(sid, done)
    return done


def test_racing_continuations_one_wins_the_others_write_nothing(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        sid = store.create_session("/repo", "all:HEAD..worktree", "t").session_id
    stores = [SessionStore(path) for _ in range(RACERS)]
    try:
        for attempt in range(15):
            with SessionStore(path) as store:
                unfinished = _truncated(store, sid, f"question {attempt}")
            start = threading.Barrier(RACERS)
            won: list[RoundRecord] = []
            refused: list[str] = []

            def race(mine: SessionStore, unfinished: RoundRecord = unfinished,
                     start: threading.Barrier = start, won: list[RoundRecord] = won,
                     refused: list[str] = refused) -> None:
                start.wait()
                try:
                    won.append(_question(mine, sid, "go on", continues=unfinished.index))
                except RoundClaimedError as exc:
                    refused.append(str(exc))

            threads = [threading.Thread(target=race, args=(s,)) for s in stores]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=60)
            assert len(won) == 1 and len(refused) == RACERS - 1, (won, refused)
            assert all(f"round {unfinished.index + 1} of session {sid} is already being "
                       "continued by another run" in message for message in refused)
            with SessionStore(path) as store:
                rounds = store.rounds(sid)
                assert [r.index for r in rounds] == list(range(won[0].index + 1))
                assert [r.continues for r in rounds if r.continues is not None].count(
                    unfinished.index) == 1
                store.end_round(sid, won[0].model_copy(update={"answer": "the rest."}))
    finally:
        for opened in stores:
            opened.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_a_claim_is_released_by_a_failed_continuation_and_held_by_an_ended_one(
        tmp_path: Path) -> None:
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        sid = store.create_session("/repo", "all:HEAD..worktree", "t").session_id
        unfinished = _truncated(store, sid, "why?")
        failed = _question(store, sid, "go on", continues=unfinished.index)
        store.release_claim(sid, unfinished.index, failed.index)  # its request failed
        second = _question(store, sid, "go on", continues=unfinished.index)
        store.end_round(sid, second.model_copy(update={"answer": "the rest."}))
        with pytest.raises(RoundClaimedError, match=r"round 1 of session \S+ was already "
                                                    r"continued, in round 3"):
            _question(store, sid, "go on", continues=unfinished.index)
        complete = _question(store, sid, "and?")
        store.end_round(sid, complete.model_copy(update={"answer": "done."}))
        with pytest.raises(StoreError, match=r"round 4 .* has no unfinished answer"):
            _question(store, sid, "go on", continues=complete.index)
        assert len(store.rounds(sid)) == 4  # nothing refused was written


def test_a_claim_in_flight_past_the_longest_round_is_taken_over(tmp_path: Path) -> None:
    """A continuation whose process was killed holds its claim only as long as a round can
    take; after that, another run may go on with the answer."""
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        sid = store.create_session("/repo", "all:HEAD..worktree", "t").session_id
        unfinished = _truncated(store, sid, "why?")
        _question(store, sid, "go on", continues=unfinished.index)  # then killed
        with pytest.raises(RoundClaimedError, match="already being continued"):
            _question(store, sid, "go on", continues=unfinished.index, stale_after=3600)
        taken = _question(store, sid, "go on", continues=unfinished.index, stale_after=0)
        assert taken.continues == unfinished.index


@pytest.mark.parametrize("stale_after", [1e12, 1e300, float("inf")])
def test_a_longest_round_beyond_the_calendar_means_the_claim_always_holds(
        tmp_path: Path, stale_after: float) -> None:
    # 'ask --continue --max-tool-rounds 999999999999' (or a huge [llm] timeout) made the
    # oldest stale start a date before year 1: an OverflowError traceback, nothing asked
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        sid = store.create_session("/repo", "all:HEAD..worktree", "t").session_id
        unfinished = _truncated(store, sid, "why?")
        first = _question(store, sid, "go on", continues=unfinished.index,
                          stale_after=stale_after)
        assert first.continues == unfinished.index
        with pytest.raises(RoundClaimedError, match="already being continued"):
            _question(store, sid, "go on", continues=unfinished.index,
                      stale_after=stale_after)


def test_a_round_stopped_before_the_model_said_anything_cannot_be_claimed(
        tmp_path: Path) -> None:
    """Kept (its question, marked interrupted), but there is nowhere to go on from: the
    store refuses the claim itself, whoever asks for it, and writes nothing."""
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        sid = store.create_session("/repo", "all:HEAD..worktree", "t").session_id
        unsaid = _question(store, sid, "why?")
        store.end_round(sid, unsaid.model_copy(update={"answer": " \n", "interrupted": True}))
        with pytest.raises(StoreError, match=r"round 1 of session \S+ was stopped before the "
                                             r"model said anything") as refused:
            _question(store, sid, CONTINUE, continues=unsaid.index)
        assert refused.value.hint is not None and "ask the question again" in refused.value.hint
        assert [r.index for r in store.rounds(sid)] == [0]  # nothing written
        assert store.rounds(sid)[0].summary is None
        # a tool round done before the stop is something to go on from: claimed
        read = _question(store, sid, "and the caller?")
        call = {"id": "c1", "type": "function",
                "function": {"name": "read_file_hunk", "arguments": "{}"}}
        store.end_round(sid, read.model_copy(update={"answer": "", "interrupted": True}), [
            MessageRecord(round_index=read.index, role="assistant", content="",
                          tool_calls=[call]),
            MessageRecord(round_index=read.index, role="tool", content="def f(): ...",
                          tool_call_id="c1", name="read_file_hunk")])
        going_on = _question(store, sid, CONTINUE, continues=read.index)
        assert going_on.continues == read.index
        # a tool call of another round does not count for this one
        other = _question(store, sid, "one more?")
        store.end_round(sid, other.model_copy(update={"answer": "", "interrupted": True}))
        with pytest.raises(StoreError, match="before the model said anything"):
            _question(store, sid, CONTINUE, continues=other.index)
