"""The installed ``reviewtui`` workbench in a real terminal (tmux): keys in, screen out."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.conftest import GitRepoBuilder
from tests.e2e.test_tmux_smoke import reviewtui_command
from tests.e2e.tmux_harness import TmuxSession, isolated_env, requires_tmux
from tests.support.openai_server import Reply, ScriptedOpenAIServer

pytestmark = requires_tmux


def _escape(term: TmuxSession) -> None:
    """Escape, then a pause: a key right after it would arrive as Alt+key (ESC prefix)."""
    term.send_keys("Escape")
    time.sleep(0.4)


def _leave_chat(term: TmuxSession) -> None:
    """Escape from the chat input, and wait until the footer's "leave chat" is gone: a letter
    sent any sooner (a busy machine reads Escape late) would be typed into the chat."""
    term.wait_for("leave chat", timeout=10)
    _escape(term)
    term.wait_gone("leave chat", timeout=10)


def _workbench(term: TmuxSession, text: str) -> None:
    """Past the loading view (whose streamed rows show the same paths): the workbench's table
    (its ``final`` column), with ``text`` in it."""
    term.wait_for(" final ", timeout=30)
    term.wait_for(text, timeout=10)


def test_triage_in_a_real_terminal(repo: GitRepoBuilder) -> None:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b + 0\n")
    env = isolated_env()
    with TmuxSession(reviewtui_command(), cwd=repo.root, env=env, width=140,
                     height=32) as term:
        _workbench(term, "app/auth.py:L2")
        assert "2 units (50% high) · 2 kept · 0 reviewed" in term.screen()
        term.send_keys("j")  # to app/util.py
        term.wait_for("unit     u_", timeout=10)
        term.send_keys("4")
        term.wait_for("full_file by user", timeout=10)  # the final level and who decided
        term.send_keys("space")
        term.wait_for("1 reviewed", timeout=10)
        term.send_keys("/")
        term.wait_for("filter: words", timeout=10)  # the filter is open and has the focus
        term.type_text("risk:high")  # typed at once: every key must reach the filter
        term.send_keys("Enter")
        term.wait_for("1 units (100% high) · 1 kept", timeout=10)
        term.send_keys("?")  # Enter gave the focus back to the table: its keys work
        term.wait_for("reviewtui keys", timeout=10)
        _escape(term)
        term.wait_gone("reviewtui keys", timeout=10)
        term.send_keys("c")
        term.wait_for("REVIEWTUI_MODEL", timeout=10)  # no model: the chat says how
        _leave_chat(term)
        term.send_keys("q")
        assert term.wait_for_exit(timeout=15) == 0
    # The decisions outlived the process: the same change lists one session with them.
    with TmuxSession([*reviewtui_command(), "sessions", "--json"], cwd=repo.root,
                     env=env) as term:
        assert term.wait_for_exit() == 0
        sessions = json.loads(term.output())
    assert len(sessions) == 1


def test_an_80x24_terminal_shows_the_chat_answer_and_escape_stops_a_silent_model(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    for n in range(12):
        repo.write(f"app/mod{n}.py", f"def f{n}():\n    return {n}\n")
    repo.commit("base")
    for n in range(12):
        repo.write(f"app/mod{n}.py", f"def f{n}():\n    return {n + 1}\n")
    answer = "\n\n".join(f"Item {n}: f{n} now returns {n + 1}." for n in range(12))
    fake_llm.script(Reply.text(answer + "\n\nEND-OF-ANSWER"), Reply.delay(30.0))
    with TmuxSession(reviewtui_command(), cwd=repo.root, env=isolated_env(), width=80,
                     height=24) as term:
        _workbench(term, "app/mod0.py")
        screen = term.screen()
        assert "final" in screen and "risk" in screen  # the columns a reviewer needs first
        assert "P asks test-model" in screen  # honest: a model is there, the plan is the rules'
        term.send_keys("c")
        time.sleep(0.5)
        term.type_text("what changed?")
        term.send_keys("Enter")
        term.wait_for("END-OF-ANSWER", timeout=20)  # the newest text is on screen
        term.type_text("and now?")
        term.send_keys("Enter")
        term.wait_for("> and now?", timeout=10)
        time.sleep(1.0)
        started = time.monotonic()
        _escape(term)
        term.wait_for("cancelled", timeout=5)
        assert time.monotonic() - started < 5  # not after the 30 s the server would take
        _leave_chat(term)
        term.send_keys("q")
        assert term.wait_for_exit(timeout=15) == 0


def test_finish_a_review_in_a_real_terminal(repo: GitRepoBuilder, tmp_path: Path,
                                            fake_llm: ScriptedOpenAIServer) -> None:
    """Review with the scripted model, dismiss one finding and accept the other, comment on a
    line, edit the file through $EDITOR (ctrl+e), refresh (r), export Markdown (X)."""
    body = ("def charge(amount):\n    total = amount * 3\n    return total\n" + "\n" * 12 +
            "def refund(amount):\n    return -amount\n")
    repo.write("app/billing.py", body.replace("amount * 3", "amount * 2").replace(
        "-amount", "amount"))
    repo.commit("base")
    repo.write("app/billing.py", body)
    fake_llm.script(Reply.json({"verdict": "request_changes", "summary": "", "findings": [
        {"title": "Charge rate tripled", "body": "pay() now charges 30.", "severity": "P1",
         "confidence": 0.9, "file_path": "app/billing.py", "start_line": 2, "end_line": 2},
        {"title": "Refund sign flipped", "body": "Refunds are negative.", "severity": "P3",
         "confidence": 0.5, "file_path": "app/billing.py", "start_line": 17, "end_line": 17},
    ]}))
    editor = tmp_path / "bin" / "vim"  # takes +LINE FILE; changes line 2, as a person would
    editor.parent.mkdir()
    editor.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$0.args"\n'
                      'sed -i "s/amount \\* 3/amount * 4/" "$2"\n')
    editor.chmod(0o755)
    env = isolated_env({"EDITOR": str(editor), "VISUAL": ""})
    with TmuxSession(reviewtui_command(), cwd=repo.root, env=env, width=140,
                     height=36) as term:
        _workbench(term, "app/billing.py:L")
        term.send_keys("R")
        term.wait_for("review: 2 findings (2 new", timeout=30)
        term.send_keys("c")  # the report opened in the chat: close it
        term.send_keys("f")
        term.wait_for("finding 1 of 2 open", timeout=10)
        if "Charge rate tripled" not in term.screen().splitlines()[-2]:
            term.send_keys("f")
            term.wait_for("open: P1 Charge rate tripled", timeout=10)
        term.send_keys("x")
        term.wait_for("Dismiss: Charge rate tripled", timeout=10)
        term.type_text("intended: the new rate")
        term.send_keys("Enter")
        term.wait_for("dismissed: Charge rate tripled", timeout=10)
        term.send_keys("f")
        term.wait_for("finding 1 of 1 open: P3 Refund sign flipped", timeout=10)
        term.send_keys("a")
        term.wait_for("accepted: Refund sign flipped", timeout=10)
        term.send_keys("m")
        term.wait_for("Comment on app/billing.py", timeout=10)
        term.type_text("Refunds need a test.")
        term.send_keys("Enter")
        term.wait_for("comment saved on app/billing.py", timeout=10)
        term.send_keys("C-e")
        term.wait_for("refreshed:", timeout=20)  # the editor ran, the app came back and r'd
        term.send_keys("X")
        term.wait_for("Export the review", timeout=10)
        term.send_keys("C-s")
        term.wait_for("exported to", timeout=10)
        term.send_keys("q")
        assert term.wait_for_exit(timeout=15) == 0
    assert "amount * 4" in (repo.root / "app/billing.py").read_text()
    args = (tmp_path / "bin" / "vim.args").read_text().split()
    assert args[0].startswith("+") and args[1] == str(repo.root / "app/billing.py")
    exported = (repo.root / ".git" / "reviewtui" / "review.md").read_text()  # not in the change
    assert exported.startswith("## Review:")
    assert "Refunds need a test." in exported
    assert "Refund sign flipped" in exported  # accepted
    assert "Charge rate tripled" not in exported  # dismissed: only with --all-findings


def test_a_fix_previewed_applied_and_undone_in_a_real_terminal(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    """ctrl+f reaches the workbench through a terminal: the model's fix is previewed, applied
    (a) and undone (u), byte for byte."""
    body = "def charge(amount):\r\n    total = amount * 3\r\n    return total"
    repo.write("app/billing.py", body.replace("* 3", "* 1"))
    repo.commit("base")
    repo.write("app/billing.py", body)
    fake_llm.script(
        Reply.json({"verdict": "comment", "summary": "", "findings": [
            {"title": "Charge rate tripled", "body": "30, not 20.", "severity": "P1",
             "confidence": 0.9, "file_path": "app/billing.py", "start_line": 2,
             "end_line": 2}]}),
        Reply.json({"fix": {"start_line": 2, "end_line": 2,
                            "replacement": "    total = amount * 2"}, "explanation": "x"}))
    target = repo.root / "app/billing.py"
    # the code under test, also where the console script was installed from another checkout
    extra = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    with TmuxSession(reviewtui_command(), cwd=repo.root, env=isolated_env(extra), width=140,
                     height=36) as term:
        _workbench(term, "app/billing.py:L")
        term.send_keys("R")
        term.wait_for("review: 1 findings (1 new", timeout=30)
        term.send_keys("c")  # close the report
        term.send_keys("f")
        term.wait_for("finding 1 of 1 open", timeout=10)
        term.send_keys("C-f")
        term.wait_for("a applies it", timeout=20)
        assert "+    total = amount * 2" in term.screen()
        term.send_keys("a")
        term.wait_for("fix applied to app/billing.py", timeout=10)
        assert target.read_bytes() == body.replace("* 3", "* 2").encode()
        term.send_keys("u")
        term.wait_for("fix undone", timeout=10)
        assert target.read_bytes() == body.encode()
        term.send_keys("q")
        assert term.wait_for_exit(timeout=15) == 0
