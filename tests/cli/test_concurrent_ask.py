"""Many ``reviewtui ask`` processes on one change at once, and one killed mid-answer: real
subprocesses, the scripted server, one SQLite store. Every question is its own round under its
own index; a reader sees rounds in flight or whole; a SIGKILL leaves the store consistent."""

from __future__ import annotations

import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from reviewtui.sessions import SessionStore
from reviewtui.sessions.store import default_store_path
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

PROCESSES = 16


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")
    return repo


def _command(*args: str) -> list[str]:
    exe = shutil.which("reviewtui")
    return [*([exe] if exe else [sys.executable, "-m", "reviewtui"]), *args]


def _answer(request: dict[str, Any]) -> Reply:
    """The chat answer names the question it answers (summaries of old rounds are asked for
    too, without streaming)."""
    if not request.get("stream"):
        return Reply.text("They asked about the charge.")
    asked = str(request["messages"][-1]["content"])
    found = re.findall(r"Q\d\d", asked)
    text = f"About {found[-1] if found else '?'}: the charge now triples the amount."
    return Reply.text(text, chunk_delay=0.02)


def _integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def _check_whole(store: SessionStore) -> int:
    """Every round a reader sees is in flight with its question, or ended with its answer;
    the number of rounds seen."""
    seen = 0
    for session in store.list_sessions(limit=0):
        rounds = store.rounds(session.session_id)  # read first: what ended has its messages
        by_round: dict[int, list[str]] = {}
        for message in store.messages(session.session_id):
            by_round.setdefault(message.round_index, []).append(message.role)
        for record in rounds:
            roles = by_round.get(record.index, [])
            assert roles[:1] == ["user"], (record.index, roles)
            if record.ended_at is not None:
                assert roles[-1] == "assistant" and record.answer, (record.index, roles)
        seen += len(rounds)
    return seen


def test_sixteen_asks_at_once_store_sixteen_rounds(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(*[_answer] * (PROCESSES * 4))
    questions = [f"What does Q{n:02d} change?" for n in range(PROCESSES)]
    procs = [subprocess.Popen(_command("ask", "--rules-plan", question), cwd=repo.root,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for question in questions]
    try:
        reads = 0
        deadline = time.monotonic() + 240
        while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
            if default_store_path().exists():
                with SessionStore() as reader:  # a reader opening the session mid-write
                    _check_whole(reader)
                    reads += 1
            time.sleep(0.05)
        outcomes = [(p.wait(timeout=60), *p.communicate()) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for code, out, err in outcomes:
        assert code == 0, err
        assert "the charge now triples the amount" in out
    assert reads > 0
    with SessionStore() as store:
        [session] = store.list_sessions(limit=0)  # created once, by whichever came first
        rounds = store.rounds(session.session_id)
        assert _check_whole(store) == PROCESSES
        messages = store.messages(session.session_id)
    assert [r.index for r in rounds] == list(range(PROCESSES))
    assert sorted(r.user_message for r in rounds) == questions
    for record in rounds:
        asked = re.findall(r"Q\d\d", record.user_message)[0]
        assert record.ended_at is not None and not record.incomplete
        assert record.answer == f"About {asked}: the charge now triples the amount."
        own = [(m.role, m.content) for m in messages if m.round_index == record.index]
        assert own == [("user", record.user_message), ("assistant", record.answer)]
    assert _integrity(default_store_path()) == "ok"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_an_ask_killed_mid_answer_leaves_a_consistent_store(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    words = [f"word{n} " for n in range(40)]
    fake_llm.script(Reply.text("".join(words), chunks=words, chunk_delay=0.25))
    proc = subprocess.Popen(_command("ask", "--rules-plan", "Q00: what changed?"),
                            cwd=repo.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        assert proc.stdout.read(5) == b"word0"  # the answer is streaming
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _integrity(default_store_path()) == "ok"
    with SessionStore() as store:
        [session] = store.list_sessions(limit=0)
        [flight] = store.rounds(session.session_id)
        assert (flight.index, flight.ended_at, flight.answer) == (0, None, "")
        assert [(m.role, m.content) for m in store.messages(session.session_id)] == [
            ("user", "Q00: what changed?")]
    fake_llm.script(_answer)
    after = subprocess.run(_command("ask", "--rules-plan", "Q01: and now?"), cwd=repo.root,
                           capture_output=True, text=True, check=False)
    assert after.returncode == 0, after.stderr
    assert "round 2:" in after.stderr
    with SessionStore() as store:
        rounds = store.rounds(session.session_id)
        assert [(r.index, r.ended_at is not None) for r in rounds] == [(0, False), (1, True)]
        assert rounds[1].answer == "About Q01: the charge now triples the amount."
        assert _check_whole(store) == 2


def test_two_continues_of_one_cut_off_round_continue_it_once(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    """Two ``reviewtui ask --continue`` processes started together on the same unfinished
    round: one goes on with it, the other is refused with one line and exit status 2 before
    asking the model anything, and the store holds exactly one continuation."""
    _repo(repo)
    fake_llm.script(Reply.text("It triples the charge, which breaks", finish_reason="length"))
    first = subprocess.run(_command("ask", "--rules-plan", "What changed?"), cwd=repo.root,
                           capture_output=True, text=True, check=False)
    assert first.returncode == 3, first.stderr
    words = [f"more{n} " for n in range(30)]  # 6 s of answer: both runs start meanwhile
    fake_llm.script(*[Reply.text("".join(words), chunks=words, chunk_delay=0.2)] * 2)
    procs = [subprocess.Popen(_command("ask", "--rules-plan", "--continue"), cwd=repo.root,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    try:
        outcomes = sorted((p.wait(timeout=120), *p.communicate()) for p in procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    (won, won_out, won_err), (lost, lost_out, lost_err) = outcomes
    assert won == 0, won_err
    assert won_out == "".join(words) + "\n"
    assert lost == 2, lost_err
    assert lost_out == ""
    [error] = [line for line in lost_err.splitlines() if line.startswith("reviewtui: ")]
    assert error.startswith("reviewtui: error: round 1 of session ")
    assert "is already being continued by another run (round 2, started " in error
    assert "Traceback" not in lost_err
    assert "continuing round" not in lost_err  # it never held the round
    assert "continuing round 1" in won_err
    # the question and one continuation: the refused run asked the model nothing
    assert len([r for r in fake_llm.chat_requests if r.body.get("stream")]) == 2
    with SessionStore() as store:
        [session] = store.list_sessions(limit=0)
        rounds = store.rounds(session.session_id)
    assert [(r.index, r.continues, r.ended_at is not None) for r in rounds] == [
        (0, None, True), (1, 0, True)]
    assert rounds[1].answer == "".join(words)
