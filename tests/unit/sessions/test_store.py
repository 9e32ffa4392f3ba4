"""The session store on a real SQLite file: every API, concurrency, secrets, damage, SIGKILL."""

from __future__ import annotations

import importlib.util
import os
import random
import secrets
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from reviewtui.config import LLMSettings, Settings
from reviewtui.errors import StoreError
from reviewtui.models import (
    CallersRequest,
    ContextLevel,
    PreviousVersionRequest,
    SearchRequest,
    SymbolSearchRequest,
)
from reviewtui.plan.schema import OverrideSet, UnitOverride
from reviewtui.sessions.marks import ReviewMark
from reviewtui.sessions.records import MessageRecord, RoundRecord, ToolResultRecord
from reviewtui.sessions.store import (
    SCHEMA_VERSION,
    SessionStore,
    default_store_path,
    redact_secrets,
)

WRITER = Path(__file__).resolve().parents[2] / "data" / "store_kill_writer.py"
KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2
TOKEN = "eyJhbGciOiJIUzI1NiJ9.abcdefghijklmnop"


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "sessions.sqlite3"


@pytest.fixture
def store(store_path: Path) -> Iterator[SessionStore]:
    with SessionStore(store_path) as opened:
        yield opened


def _count(path: Path, table: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def _message(index: int, content: str, **extra: object) -> MessageRecord:
    return MessageRecord.model_validate({"round_index": index, "role": "user",
                                         "content": content, **extra})


# -- location -----------------------------------------------------------------------------------


def test_default_path_follows_the_platform_and_the_override(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    home = Path.home()
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert default_store_path() == home / ".local/share/reviewtui/sessions.sqlite3"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_store_path() == tmp_path / "xdg/reviewtui/sessions.sqlite3"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    assert default_store_path() == home / ".local/share/reviewtui/sessions.sqlite3"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert default_store_path() == (home / "Library" / "Application Support" / "reviewtui"
                                    / "sessions.sqlite3")
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert default_store_path() == tmp_path / "local" / "reviewtui" / "sessions.sqlite3"
    monkeypatch.setenv("REVIEWTUI_DATA_DIR", str(tmp_path / "mine"))
    assert default_store_path() == tmp_path / "mine" / "sessions.sqlite3"


def test_default_store_is_created_private(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    with SessionStore() as opened:
        assert opened.path == tmp_path / "xdg" / "reviewtui" / "sessions.sqlite3"
        assert opened.path.is_file()
        if os.name == "posix":
            assert opened.path.parent.stat().st_mode & 0o777 == 0o700
            assert opened.path.stat().st_mode & 0o777 == 0o600


def test_schema_version_wal_and_reopen(store_path: Path) -> None:
    with SessionStore(store_path) as first:
        sid = first.create_session("/r", "c", "t").session_id
    conn = sqlite3.connect(store_path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x52765475
    finally:
        conn.close()
    with SessionStore(store_path) as again:
        info = again.session(sid)
        assert info is not None and info.title == "t"


def test_a_version_1_store_is_upgraded_in_place(store_path: Path) -> None:
    """A store written before rounds could be cut off keeps its rounds, which read as whole."""
    from reviewtui.sessions.schema import APPLICATION_ID, MIGRATIONS

    store_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(store_path)
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO sessions VALUES ('s_00000001', '/r', 'c', 't', '2024-01-01', "
                 "'2024-01-01', NULL)")
    conn.execute("INSERT INTO rounds (session_id, idx, user_message, answer, started_at, "
                 "ended_at) VALUES ('s_00000001', 0, 'why?', 'because', '2024-01-01', "
                 "'2024-01-01')")
    conn.commit()
    conn.close()
    with SessionStore(store_path) as upgraded:
        [record] = upgraded.rounds("s_00000001")
        assert (record.answer, record.cut_off) == ("because", False)
        done = record.model_copy(update={"index": 1, "answer": "partial", "cut_off": True})
        upgraded.end_round("s_00000001", done)
        assert [r.cut_off for r in upgraded.rounds("s_00000001")] == [False, True]


def test_an_empty_file_becomes_a_store(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_bytes(b"")
    with SessionStore(store_path) as opened:
        assert opened.list_sessions() == []


# -- sessions -----------------------------------------------------------------------------------


def test_session_round_trip(store: SessionStore) -> None:
    info = store.create_session("/repo", "range:1a..2b", "why is this slow?", model="gpt-x")
    assert info.session_id.startswith("s_") and len(info.session_id) == 10
    assert info.rounds == 0 and info.model == "gpt-x"
    assert info.created_at == info.updated_at and info.created_at.endswith("+00:00")
    assert store.session(info.session_id) == info
    assert store.session("s_00000000") is None
    assert store.session("") is None


def test_prefix_lookup(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = iter(["abcd0001", "abcd0001", "abcd0002", "ffff0003"])  # one collision, retried
    monkeypatch.setattr(secrets, "token_hex", lambda _n: next(ids))
    first = store.create_session("/r", "c", "one")
    second = store.create_session("/r", "c", "two")
    third = store.create_session("/r", "c", "three")
    assert (first.session_id, second.session_id) == ("s_abcd0001", "s_abcd0002")
    assert store.session("s_ff") == third
    assert store.session("ff") == third  # the "s_" may be left out
    assert store.session("abcd0002") == second
    with pytest.raises(StoreError, match="ambiguous"):
        store.session("s_abcd")
    assert store.session("s_9") is None


def test_latest_and_list_ordering(store: SessionStore) -> None:
    a = store.create_session("/repo", "working", "a")
    b = store.create_session("/repo", "working", "b")
    other = store.create_session("/other", "working", "c")
    latest = store.latest_session("/repo", "working")
    assert latest is not None and latest.session_id == b.session_id
    store.add_message(a.session_id, _message(0, "touch a"))
    latest = store.latest_session("/repo", "working")
    assert latest is not None and latest.session_id == a.session_id
    assert store.latest_session("/repo", "staged") is None
    assert [s.title for s in store.list_sessions()] == ["a", "c", "b"]
    assert [s.title for s in store.list_sessions("/repo")] == ["a", "b"]
    assert [s.title for s in store.list_sessions(limit=1)] == ["a"]
    assert len(store.list_sessions(limit=0)) == 3
    store.start_round(other.session_id, RoundRecord(index=0, user_message="q"))
    store.start_round(other.session_id, RoundRecord(index=1, user_message="q2"))
    counts = {s.title: s.rounds for s in store.list_sessions()}
    assert counts == {"a": 0, "b": 0, "c": 2}
    assert store.list_sessions()[0].title == "c"


def test_delete_cascades(store: SessionStore, store_path: Path) -> None:
    keep = store.create_session("/r", "c", "keep")
    gone = store.create_session("/r", "c", "gone")
    for info in (keep, gone):
        sid = info.session_id
        store.start_round(sid, RoundRecord(index=0, user_message="q"))
        store.add_message(sid, _message(0, "q"))
        store.save_tool_result(sid, ToolResultRecord(ref_id="t1", round_index=0, tool="read",
                                                     arguments="{}", content="body"))
        store.set_overrides(sid, OverrideSet(units={"u": UnitOverride(skip=True)}))
    store.mark_reviewed("/r", _mark("u.py", "c_1"))
    assert store.delete_session(gone.session_id) is True
    assert store.delete_session(gone.session_id) is False
    assert store.session(gone.session_id) is None
    for table in ("rounds", "messages", "tool_results", "overrides"):
        assert _count(store_path, table) == 1, table
    assert [m.key for m in store.review_marks("/r")] == [("u.py", "c_1")]
    assert len(store.messages(keep.session_id)) == 1


def test_writes_to_an_unknown_session_are_refused(store: SessionStore) -> None:
    with pytest.raises(StoreError, match="no session s_nope"):
        store.add_message("s_nope", _message(0, "x"))
    with pytest.raises(StoreError, match="no session"):
        store.start_round("s_nope", RoundRecord(index=0, user_message="q"))
    with pytest.raises(StoreError, match="no session"):
        store.set_overrides("s_nope", OverrideSet())
    assert store.messages("s_nope") == [] and store.rounds("s_nope") == []
    assert store.overrides("s_nope") == OverrideSet()
    assert store.tool_result("s_nope", "t") is None


# -- rounds, messages, tool memory --------------------------------------------------------------


def test_a_round_summary_is_kept_once_the_first_written_wins(store: SessionStore) -> None:
    # two processes summarising one round at once: the second does not replace the first
    sid = store.create_session("/r", "c", "t").session_id
    store.end_round(sid, RoundRecord(index=0, user_message="why?", answer="because"))
    assert store.keep_round_summary(sid, 0, "first") == "first"
    assert store.keep_round_summary(sid, 0, "second") == "first"
    assert store.rounds(sid)[0].summary == "first"
    with pytest.raises(StoreError, match="no round 3"):
        store.keep_round_summary(sid, 3, "x")


def test_round_lifecycle(store: SessionStore) -> None:
    sid = store.create_session("/r", "c", "t").session_id
    store.start_round(sid, RoundRecord(index=0, user_message="first?"))
    [flight] = store.rounds(sid)
    assert flight.ended_at is None and flight.started_at and flight.answer == ""
    # A round is never replaced: not one in flight, not one that has ended.
    with pytest.raises(StoreError, match=r"round 0 of session s_\w+ is in flight"):
        store.start_round(sid, RoundRecord(index=0, user_message="first, again?"))
    assert [r.user_message for r in store.rounds(sid)] == ["first?"]
    store.update_round_summary(sid, 0, "asked why; slow loop")
    done = flight.model_copy(update={
        "answer": "because", "files": ["a.py", "b.py"], "units": ["u1"],
        "inherited_files": ["c.py"], "keywords": ["slow", "loop"], "prompt_tokens": 100,
        "completion_tokens": 20, "cached_tokens": 64})
    store.end_round(sid, done)  # a record without a summary keeps the stored one
    [ended] = store.rounds(sid)
    assert ended.ended_at is not None
    assert ended == done.model_copy(update={"ended_at": ended.ended_at,
                                            "summary": "asked why; slow loop"})
    with pytest.raises(StoreError, match="already ended"):
        store.start_round(sid, RoundRecord(index=0, user_message="again"))
    with pytest.raises(StoreError, match="already ended"):
        store.end_round(sid, done.model_copy(update={"answer": "overwritten"}))
    assert store.rounds(sid)[0].answer == "because"
    with pytest.raises(StoreError, match="no round 5"):
        store.update_round_summary(sid, 5, "x")
    # end_round on a round that was never started inserts it whole.
    store.end_round(sid, RoundRecord(index=1, user_message="second", answer="yes",
                                     started_at="2024-01-01T00:00:00+00:00",
                                     ended_at="2024-01-01T00:00:05+00:00"))
    assert [(r.index, r.answer) for r in store.rounds(sid)] == [(0, "because"), (1, "yes")]
    assert store.rounds(sid)[1].ended_at == "2024-01-01T00:00:05+00:00"
    info = store.session(sid)
    assert info is not None and info.rounds == 2


def test_open_round_numbers_rounds_and_writes_a_round_whole(store: SessionStore,
                                                            store_path: Path) -> None:
    """The store picks the index (the caller's guess is ignored), the question goes in with the
    round, the answer's messages and tool results with its end: a second connection sees the
    round in flight or whole, never in between."""
    sid = store.create_session("/r", "c", "t").session_id
    store.start_round(sid, RoundRecord(index=0, user_message="crashed"))  # never ended
    first = store.open_round(sid, RoundRecord(index=0, user_message="q1"),
                             [_message(7, "q1")])
    second = store.open_round(sid, RoundRecord(index=0, user_message="q2"),
                              [_message(0, "q2")])
    assert (first.index, second.index) == (1, 2)
    with SessionStore(store_path) as reader:
        assert [(m.round_index, m.content) for m in reader.messages(sid)] == [
            (1, "q1"), (2, "q2")]
        answer = [_message(2, "a2").model_copy(update={"role": "assistant"})]
        result = ToolResultRecord(ref_id="tm_1", round_index=2, tool="read", arguments="{}",
                                  content="body")
        store.end_round(sid, second.model_copy(update={"answer": "a2", "truncated": True}),
                        answer, [result])
        done = reader.rounds(sid)
        assert [(r.index, r.ended_at is not None) for r in done] == [
            (0, False), (1, False), (2, True)]
        assert done[2].truncated and done[2].incomplete and not done[2].cut_off
        assert [m.content for m in reader.messages(sid, since_round=2)] == ["q2", "a2"]
        assert reader.tool_result(sid, "tm_1") is not None


def test_messages_round_trip(store: SessionStore) -> None:
    sid = store.create_session("/r", "c", "t").session_id
    calls = [{"id": "call_1", "type": "function",
              "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}]
    written = [
        MessageRecord(round_index=0, role="user", content="hi ✓", tokens=3),
        MessageRecord(round_index=0, role="assistant", content="", tool_calls=calls),
        MessageRecord(round_index=0, role="tool", content="head…tail", tool_call_id="call_1",
                      name="read_file", ref_id="t_1", tokens=9),
        MessageRecord(round_index=1, role="user", content="next",
                      created_at="2024-01-01T00:00:00+00:00"),
    ]
    ids = [store.add_message(sid, m) for m in written]
    assert ids == sorted(ids) and len(set(ids)) == 4
    read = store.messages(sid)
    assert [m.message_id for m in read] == ids
    for got, want, mid in zip(read, written, ids, strict=True):
        assert got.created_at
        assert got == want.model_copy(update={"message_id": mid, "created_at": got.created_at})
    assert read[3].created_at == "2024-01-01T00:00:00+00:00"
    assert [m.content for m in store.messages(sid, since_round=1)] == ["next"]


def test_tool_results(store: SessionStore) -> None:
    sid = store.create_session("/r", "c", "t").session_id
    record = ToolResultRecord(ref_id="t_1", round_index=0, tool="grep",
                              arguments='{"pattern": "x"}', content="x" * 50_000)
    store.save_tool_result(sid, record)
    got = store.tool_result(sid, "t_1")
    assert got is not None and got.created_at
    assert got == record.model_copy(update={"created_at": got.created_at})
    store.save_tool_result(sid, record.model_copy(update={"content": "replaced"}))
    again = store.tool_result(sid, "t_1")
    assert again is not None and again.content == "replaced"
    assert store.tool_result(sid, "t_2") is None
    other = store.create_session("/r", "c", "other").session_id
    assert store.tool_result(other, "t_1") is None  # ref ids are per session


# -- overrides and review marks -----------------------------------------------------------------


def test_overrides_round_trip_with_typed_requests(store: SessionStore) -> None:
    sid = store.create_session("/r", "c", "t").session_id
    assert store.overrides(sid) == OverrideSet()
    overrides = OverrideSet(units={
        "u1": UnitOverride(level=ContextLevel.FULL_FILE, skip=False,
                           add_requests=[CallersRequest(symbol="parse"),
                                         PreviousVersionRequest()],
                           remove_requests=[SymbolSearchRequest(type="search_callers",
                                                                symbol="g")]),
        "u2": UnitOverride(skip=True),
    })
    store.set_overrides(sid, overrides)
    got = store.overrides(sid)
    assert got == overrides
    first = got.units["u1"]
    assert first.level is ContextLevel.FULL_FILE
    assert isinstance(first.add_requests[0], CallersRequest)
    assert isinstance(first.add_requests[1], PreviousVersionRequest)
    assert isinstance(first.remove_requests[0], SymbolSearchRequest)
    store.set_overrides(sid, OverrideSet())
    assert store.overrides(sid) == OverrideSet()


def _mark(path: str, content: str, key: str = "f", lines: tuple[int, int] = (3, 5)
          ) -> ReviewMark:
    return ReviewMark(path, content, f"{path}::{key}", "u_" + content[2:], *lines)


def test_review_marks_are_kept_per_content(store: SessionStore) -> None:
    assert store.review_marks("/r") == []
    store.mark_reviewed("/r", _mark("src/a.py", "c_1", "parse"))
    store.mark_reviewed("/r", _mark("src/a.py", "c_2", "parse", (40, 41)))  # its other unit
    store.mark_reviewed("/r", _mark("src/b.py", "c_1", "load"))
    store.mark_reviewed("/other", _mark("src/a.py", "c_1", "parse"))
    marks = store.review_marks("/r")
    assert [m.key for m in marks] == [("src/a.py", "c_1"), ("src/a.py", "c_2"),
                                      ("src/b.py", "c_1")]
    second = marks[1]
    assert (second.unit_key, second.unit_id, second.span) == ("src/a.py::parse", "u_2",
                                                              (40, 41))
    assert second.marked_at.endswith("+00:00")
    store.mark_reviewed("/r", _mark("src/a.py", "c_2", "parse", (41, 42)))  # the same: one
    store.unmark_reviewed("/r", "src/a.py", "c_1")
    store.unmark_reviewed("/r", "src/a.py", "never-marked")
    assert [(m.key, m.span) for m in store.review_marks("/r")] == [
        (("src/b.py", "c_1"), (3, 5)), (("src/a.py", "c_2"), (41, 42))]
    assert [m.key for m in store.review_marks("/other")] == [("src/a.py", "c_1")]


# -- secrets ------------------------------------------------------------------------------------


def test_redact_secrets() -> None:
    assert redact_secrets(f"key={KEY}!") == "key=[REDACTED]!"
    assert redact_secrets(f"Authorization: Bearer {TOKEN}") == "Authorization: Bearer [REDACTED]"
    assert redact_secrets(f"curl -H 'authorization: bearer {TOKEN}'") == (
        "curl -H 'authorization: bearer [REDACTED]'")
    kept = "task-abcdefghijklmnopqrstuvwxyz sk-short a bearer of news"
    assert redact_secrets(kept) == kept


def test_api_keys_never_reach_the_file(store: SessionStore, store_path: Path) -> None:
    info = store.create_session("/r", "c", f"title {KEY}")
    sid = info.session_id
    assert KEY not in info.title
    store.start_round(sid, RoundRecord(index=0, user_message=f"my key is {KEY}",
                                       keywords=[KEY]))
    store.end_round(sid, RoundRecord(index=0, user_message="q", answer=f"Bearer {TOKEN}"))
    store.update_round_summary(sid, 0, f"summary {KEY}")
    store.add_message(sid, _message(0, f"use {KEY}", tool_calls=[
        {"id": "c", "function": {"name": "f", "arguments": f'{{"h": "Bearer {TOKEN}"}}'}}]))
    store.save_tool_result(sid, ToolResultRecord(ref_id="t", round_index=0, tool="read",
                                                 arguments=KEY, content=f"env: {KEY}"))
    store.set_overrides(sid, OverrideSet(units={"u": UnitOverride(
        add_requests=[SearchRequest(keyword=KEY)])}))
    texts = [m.content for m in store.messages(sid)] + [store.rounds(sid)[0].answer]
    assert all("[REDACTED]" in text for text in texts)
    assert store.messages(sid)[0].tool_calls[0]["function"]["arguments"] == (
        '{"h": "Bearer [REDACTED]"}')
    keyword = store.overrides(sid).units["u"].add_requests[0]
    assert isinstance(keyword, SearchRequest) and keyword.keyword == "[REDACTED]"
    store.close()
    raw = b"".join(p.read_bytes() for p in store_path.parent.iterdir())
    assert KEY.encode() not in raw and TOKEN.encode() not in raw
    assert b"A1b2C3d4E5f6" not in raw


def test_settings_objects_are_refused(store: SessionStore, store_path: Path) -> None:
    llm = LLMSettings(model="m", api_key=KEY)
    with pytest.raises(StoreError, match="settings and API keys are never stored"):
        store.create_session("/r", "c", "t", model=llm)  # type: ignore[arg-type]
    sid = store.create_session("/r", "c", "t").session_id
    with pytest.raises(StoreError, match="refusing to store a LLMSettings"):
        store.add_message(sid, MessageRecord(round_index=0, role="assistant", content="",
                                             tool_calls=[{"settings": llm}]))
    with pytest.raises(StoreError, match="refusing to store a Settings"):
        store.set_overrides(sid, Settings())  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="refusing"):
        store.add_message(sid, llm)  # type: ignore[arg-type]
    assert store.messages(sid) == [] and len(store.list_sessions()) == 1
    store.close()
    raw = b"".join(p.read_bytes() for p in store_path.parent.iterdir())
    assert KEY.encode() not in raw


# -- sharing: processes and threads -------------------------------------------------------------


def test_two_stores_on_one_file_interleave(store_path: Path) -> None:
    with SessionStore(store_path) as one, SessionStore(store_path) as two:
        sid = one.create_session("/r", "c", "shared").session_id
        assert two.session(sid) is not None
        for i in range(10):
            writer = one if i % 2 else two
            writer.add_message(sid, _message(0, f"m{i}"))
            reader = two if i % 2 else one
            assert reader.messages(sid)[-1].content == f"m{i}"
        two.set_overrides(sid, OverrideSet(units={"u": UnitOverride(skip=True)}))
        assert one.overrides(sid).units["u"].skip is True
        one.mark_reviewed("/r", _mark("u.py", "c_1"))
        assert [m.key for m in two.review_marks("/r")] == [("u.py", "c_1")]
        assert [m.content for m in one.messages(sid)] == [f"m{i}" for i in range(10)]


def test_concurrent_writes_from_threads(store_path: Path) -> None:
    threads_per_store, per_thread = 4, 25
    with SessionStore(store_path) as one, SessionStore(store_path) as two:
        sid = one.create_session("/r", "c", "busy").session_id
        barrier = threading.Barrier(2 * threads_per_store)
        errors: list[BaseException] = []
        ids: list[int] = []

        def work(target: SessionStore, name: str) -> None:
            try:
                barrier.wait()
                for i in range(per_thread):
                    ids.append(target.add_message(sid, _message(0, f"{name}-{i}")))
                    if i % 5 == 0:
                        target.mark_reviewed("/r", _mark(f"{name}-{i}.py", "c_1"))
                        target.list_sessions()
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(target, f"{tag}{n}"))
                   for tag, target in (("a", one), ("b", two))
                   for n in range(threads_per_store)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert errors == []
        messages = one.messages(sid)
        assert len(messages) == len(set(ids)) == 2 * threads_per_store * per_thread
        assert sorted(m.message_id or 0 for m in messages) == sorted(ids)
        for tag in ("a", "b"):  # each thread's messages are in its own order
            for n in range(threads_per_store):
                mine = [m.content for m in messages if m.content.startswith(f"{tag}{n}-")]
                assert mine == [f"{tag}{n}-{i}" for i in range(per_thread)]
        assert len(two.review_marks("/r")) == 2 * threads_per_store * 5


def test_a_held_write_lock_is_waited_for_then_reported(store_path: Path) -> None:
    with SessionStore(store_path) as opened:
        sid = opened.create_session("/r", "c", "t").session_id
    other = sqlite3.connect(store_path, isolation_level=None, check_same_thread=False)
    try:
        other.execute("BEGIN IMMEDIATE")
        with SessionStore(store_path, busy_timeout=0.05) as impatient:
            with pytest.raises(StoreError, match="busy"):
                impatient.add_message(sid, _message(0, "x"))
            assert impatient.messages(sid) == []  # readers are not blocked (WAL)
        timer = threading.Timer(0.2, lambda: other.execute("COMMIT"))
        timer.start()
        with SessionStore(store_path) as patient:
            patient.add_message(sid, _message(0, "waited"))
            assert [m.content for m in patient.messages(sid)] == ["waited"]
        timer.join()
    finally:
        other.close()


# -- damage -------------------------------------------------------------------------------------


def test_a_corrupt_file_is_a_clear_error(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    garbage = random.Random(7).randbytes(8192)
    store_path.write_bytes(garbage)
    with pytest.raises(StoreError) as caught:
        SessionStore(store_path)
    message = str(caught.value)
    assert message.startswith(f"{store_path} is not a reviewtui session store (")
    assert message.endswith("move it away to start fresh")
    assert "\n" not in message
    assert store_path.read_bytes() == garbage  # left untouched


def test_a_store_from_a_newer_version_is_refused(store_path: Path) -> None:
    with SessionStore(store_path):
        pass
    conn = sqlite3.connect(store_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer reviewtui") as caught:
        SessionStore(store_path)
    assert "upgrade reviewtui" in str(caught.value)


def test_another_programs_database_is_refused(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(store_path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="is not a reviewtui session store"):
        SessionStore(store_path)
    conn = sqlite3.connect(store_path)
    assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("notes",)]
    conn.close()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="needs POSIX permissions and a non-root user")
def test_an_unreadable_file_is_a_clear_error(store_path: Path) -> None:
    with SessionStore(store_path):
        pass
    store_path.chmod(0)
    try:
        with pytest.raises(StoreError, match="cannot use the session store"):
            SessionStore(store_path)
    finally:
        store_path.chmod(0o600)


def test_unusable_locations_are_clear_errors(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(StoreError, match="cannot use the session store"):
        SessionStore(folder)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("REVIEWTUI_DATA_DIR", str(blocker / "sub"))
    with pytest.raises(StoreError, match="cannot create the session store") as caught:
        SessionStore()
    assert "REVIEWTUI_DATA_DIR" in str(caught.value)


def test_a_closed_store_says_so(store_path: Path) -> None:
    opened = SessionStore(store_path)
    opened.close()
    opened.close()  # idempotent
    with pytest.raises(StoreError, match="is closed"):
        opened.list_sessions()


# -- SIGKILL ------------------------------------------------------------------------------------


def _writer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("store_kill_writer", WRITER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def _spawn(path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(WRITER), str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _kill(proc: subprocess.Popen[str]) -> str:
    """SIGKILL, then what the writer had printed and the test not read yet.

    Read through ``proc.stdout`` (not ``communicate``, which reads the raw pipe and would skip
    lines already in the text buffer from earlier ``readline`` calls).
    """
    assert proc.stdout is not None and proc.stderr is not None
    proc.send_signal(signal.SIGKILL)
    out = proc.stdout.read()
    err = proc.stderr.read()
    assert proc.wait(timeout=30) == -signal.SIGKILL, err
    return out


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_killing_a_writer_loses_at_most_the_message_in_flight(tmp_path: Path) -> None:
    content: Callable[[int], str] = _writer().content
    path = tmp_path / "kill" / "sessions.sqlite3"
    rng = random.Random(4242)
    survived: dict[str, int] = {}
    for lines in (1, 3, 8, 16, 29):
        proc = _spawn(path)
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert first.startswith("session "), proc.stderr.read() if proc.stderr else ""
            sid = first.split()[1]
            printed = [proc.stdout.readline() for _ in range(lines)]
            time.sleep(rng.uniform(0.0, 0.003))
            printed += _kill(proc).splitlines(keepends=True)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        reported = [int(line) for line in printed if line.endswith("\n")]
        assert reported == list(range(len(reported)))
        assert _integrity(path) == "ok"
        with SessionStore(path) as reopened:
            messages = reopened.messages(sid)
            count = len(messages)
            assert len(reported) <= count <= len(reported) + 1, (lines, len(reported), count)
            for index, message in enumerate(messages):
                assert message.content == content(index), index
            rounds = reopened.rounds(sid)
            assert [r.index for r in rounds] == list(range(len(rounds)))
            assert len(rounds) in ((count + 9) // 10, count // 10 + 1)
            for earlier, earlier_count in survived.items():
                assert len(reopened.messages(earlier)) == earlier_count
            assert len(reopened.list_sessions(limit=0)) == len(survived) + 1
        survived[sid] = count
    assert _integrity(path) == "ok"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_killing_a_chat_writer_leaves_only_whole_rounds(tmp_path: Path) -> None:
    """Killed at any moment, a writer of rounds leaves each round in flight with just its
    question, or ended with every message and tool result of its answer."""
    writer = _writer()
    path = tmp_path / "rounds" / "sessions.sqlite3"
    rng = random.Random(2727)
    for lines in (0, 1, 4, 9):
        proc = subprocess.Popen([sys.executable, str(WRITER), str(path), "rounds"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert first.startswith("session "), proc.stderr.read() if proc.stderr else ""
            sid = first.split()[1]
            printed = [proc.stdout.readline() for _ in range(lines)]
            time.sleep(rng.uniform(0.0, 0.01))
            printed += _kill(proc).splitlines(keepends=True)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        ended = [int(line) for line in printed if line.endswith("\n")]
        assert _integrity(path) == "ok"
        with SessionStore(path) as reopened:
            rounds = reopened.rounds(sid)
            messages = reopened.messages(sid)
            assert [r.index for r in rounds] == list(range(len(rounds)))
            assert len(ended) <= len([r for r in rounds if r.ended_at]) <= len(ended) + 1
            for record in rounds:
                own = [(m.role, m.content) for m in messages if m.round_index == record.index]
                whole = [("user", "question"), *writer.answer(record.index)]
                assert own == (whole if record.ended_at else whole[:1]), record.index
                result = reopened.tool_result(sid, f"tm_{record.index}")
                assert (result is not None) == (record.ended_at is not None)
            assert all(r.ended_at for r in rounds[:-1])  # only the last may be in flight


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_killing_the_first_open_leaves_a_usable_store(tmp_path: Path) -> None:
    # The kill lands before, during or after the store is created and migrated.
    for n, delay in enumerate((0.05, 0.12, 0.16, 0.2, 0.3)):
        path = tmp_path / f"fresh{n}" / "sessions.sqlite3"
        proc = _spawn(path)
        time.sleep(delay)
        try:
            _kill(proc)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if path.exists():
            assert _integrity(path) == "ok"
        with SessionStore(path) as reopened:
            sid = reopened.create_session("/r", "c", "after").session_id
            assert reopened.session(sid) is not None


def test_followed_places_are_written_only_over_what_was_read(store: SessionStore) -> None:
    from reviewtui.sessions.review_records import ReviewComment, StoredFinding

    sid = store.create_session("/r", "c", "t").session_id
    store.merge_findings(sid, [
        StoredFinding(fingerprint=p, title=p, file_path="a.py", start_line=2, end_line=2)
        for p in ("f1", "f2")], lambda _f: True)
    first = store.save_comment(sid, ReviewComment(file_path="a.py", start_line=2, end_line=2,
                                                  body="one"))
    second = store.save_comment(sid, ReviewComment(file_path="a.py", start_line=3,
                                                   end_line=3, body="two"))
    read = {f.fingerprint: f for f in store.findings(sid)}
    comments = store.comments(sid)
    # meanwhile another process dismisses f2 and edits the second comment
    store.set_finding_state(sid, "f2", "dismissed", "fine")
    store.save_comment(sid, second.model_copy(update={"body": "two, edited"}))
    moved = {p: f.model_copy(update={"start_line": 5, "end_line": 5}) for p, f in read.items()}
    written = store.follow_records(
        sid, [(read[p], moved[p]) for p in ("f1", "f2")],
        [(c, c.model_copy(update={"start_line": 9, "end_line": 9})) for c in comments])
    assert written == 2
    now = {f.fingerprint: f for f in store.findings(sid)}
    assert (now["f1"].start_line, now["f2"].start_line, now["f2"].state) == (5, 2, "dismissed")
    by_id = {c.comment_id: c for c in store.comments(sid)}
    assert by_id[first.comment_id].start_line == 9
    assert (by_id[second.comment_id].start_line, by_id[second.comment_id].body) == (
        3, "two, edited")
