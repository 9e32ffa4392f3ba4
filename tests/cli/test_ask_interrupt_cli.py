"""Ctrl-C in the middle of ``reviewtui ask``'s streamed answer: what was shown is kept.

A real ``reviewtui ask`` subprocess against the scripted server, which streams slowly; the test
sends SIGINT once the answer is on the screen and then reads the SQLite session. Before, the
round stayed in flight with no answer: everything the person had read was lost.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

import pytest

from reviewtui.sessions import SessionStore
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

WORDS = [f"word{n} " for n in range(60)]


def _repo(repo: GitRepoBuilder) -> None:
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")


def _interruptible() -> None:
    """Ctrl-C as a terminal gives it: a child inherits an ignored or blocked SIGINT from a
    test worker, and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _ask_and_interrupt(repo: GitRepoBuilder, *args: str) -> tuple[int, str, str]:
    """``reviewtui ask ARGS``, interrupted once five words of its answer are printed."""
    exe = shutil.which("reviewtui")
    command = [*([exe] if exe else [sys.executable, "-m", "reviewtui"]), "ask", "--rules-plan",
               *args]
    proc = subprocess.Popen(command, cwd=repo.root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=_interruptible)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        shown = b""
        while shown.count(b" ") < 5:
            piece = os.read(proc.stdout.fileno(), 4096)
            assert piece, proc.stderr.read().decode()
            shown += piece
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, (shown + out).decode(), err.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a subprocess is POSIX")
def test_ctrl_c_keeps_the_answer_so_far_marked_interrupted(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.text("It triples the amount now."),
                    Reply.text("".join(WORDS), chunks=WORDS, chunk_delay=0.2),
                    Reply.text("Yes: the partial list was about the charge."))
    assert cli("ask", "--rules-plan", "What changed?", repo.root).code == 0
    code, out, err = _ask_and_interrupt(repo, "List every caller.")
    assert code == 130, err
    lines = err.splitlines()
    assert "Traceback" not in err
    assert lines[-1].startswith("reviewtui: interrupted: the answer so far is kept in session ")
    assert "round 2, marked interrupted" in lines[-1]
    with SessionStore() as store:
        [session] = store.list_sessions(limit=0)
        first, second = store.rounds(session.session_id)
        messages = store.messages(session.session_id)
    # nothing that was in the session before is lost
    assert (first.answer, first.interrupted) == ("It triples the amount now.", False)
    assert second.ended_at is not None and second.interrupted and second.incomplete
    assert second.answer.startswith("word0 word1 word2 word3 word4")
    assert out.startswith(second.answer)  # what was printed is what is kept
    assert len(second.answer) < len("".join(WORDS))  # stopped, not waited out
    assert [(m.role, m.content) for m in messages if m.round_index == 1] == [
        ("user", "List every caller."), ("assistant", second.answer)]
    # the next round's context shows the answer, and that it was cut off by the person
    assert cli("ask", "--rules-plan", "Was that all?", repo.root).code == 0
    history = fake_llm.chat_requests[-1].body["messages"]
    [partial] = [m["content"] for m in history
                 if m["role"] == "assistant" and "word0" in (m["content"] or "")]
    assert partial.startswith(second.answer)
    assert "interrupted" in partial[len(second.answer):]


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell pipe")
def test_a_reader_that_goes_away_is_not_taken_for_a_server_that_cut_the_answer(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    # 'reviewtui ask ... | head -2': the broken pipe was taken for the server cutting the stream
    # off -- the round kept 'cut off' (and --continue offered 'the server closed the stream')
    _repo(repo)
    lines = [f"line{n}\n" for n in range(40)]
    fake_llm.script(Reply.text("".join(lines), chunks=lines, chunk_delay=0.05))
    exe = shutil.which("reviewtui")
    command = f"{exe or sys.executable + ' -m reviewtui'} ask --rules-plan 'Why?' | head -2"
    proc = subprocess.run(command, shell=True, cwd=repo.root, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.stdout == "line0\nline1\n" and "Traceback" not in proc.stderr
    with SessionStore() as store:
        [session] = store.list_sessions(limit=0)
        [record] = store.rounds(session.session_id)
    assert len(fake_llm.chat_requests) == 1  # not asked again either
    assert (record.cut_off, record.interrupted) == (False, True)
    assert record.ended_at is not None and record.answer.startswith("line0\nline1\n")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a subprocess is POSIX")
def test_ctrl_c_before_the_first_word_leaves_nothing_to_continue(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """Stopped while the model had said nothing (no text, no tool call), the round was kept and
    ``--continue`` asked the model to go on from nowhere; the workbench's ``c`` agrees now."""
    import time

    _repo(repo)
    fake_llm.script(Reply.delay(10.0, Reply.text("too late")))
    exe = shutil.which("reviewtui")
    command = [*([exe] if exe else [sys.executable, "-m", "reviewtui"]), "ask", "--rules-plan",
               "What changed?"]
    proc = subprocess.Popen(command, cwd=repo.root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=_interruptible)
    try:
        deadline = time.monotonic() + 60
        while not fake_llm.chat_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # (the request is on its way; no answer will come for seconds)
        proc.send_signal(signal.SIGINT)
        _, err_bytes = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = err_bytes.decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    last = err.splitlines()[-1]
    assert last.startswith("reviewtui: interrupted: the question is kept in session ")
    assert "the model had said nothing" in last and "ask it again" in last
    again = cli("ask", "--rules-plan", "--continue", repo.root)
    assert again.code == 2
    assert "nothing to continue" in again.err and "before the model said anything" in again.err
    assert len(fake_llm.chat_requests) == 1  # the continuation was never sent
    with SessionStore() as store:
        [session] = store.list_sessions(limit=0)
        [stopped] = store.rounds(session.session_id)
    assert (stopped.user_message, stopped.answer, stopped.interrupted) == (
        "What changed?", "", True)
