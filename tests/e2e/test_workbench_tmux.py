"""The installed ``reviewtui`` workbench in a real terminal (tmux): keys in, screen out."""

from __future__ import annotations

import json
import time

from tests.conftest import GitRepoBuilder
from tests.e2e.test_tmux_smoke import reviewtui_command
from tests.e2e.tmux_harness import TmuxSession, isolated_env, requires_tmux
from tests.support.openai_server import Reply, ScriptedOpenAIServer

pytestmark = requires_tmux


def _escape(term: TmuxSession) -> None:
    """Escape, then a pause: a key right after it would arrive as Alt+key (ESC prefix)."""
    term.send_keys("Escape")
    time.sleep(0.4)


def test_triage_in_a_real_terminal(repo: GitRepoBuilder) -> None:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b + 0\n")
    env = isolated_env()
    with TmuxSession(reviewtui_command(), cwd=repo.root, env=env, width=140,
                     height=32) as term:
        term.wait_for("app/auth.py:L2", timeout=30)
        assert "2 units (50% high) · 2 kept · 0 reviewed" in term.screen()
        term.send_keys("j")  # to app/util.py
        term.wait_for("unit     u_", timeout=10)
        term.send_keys("4")
        term.wait_for("full_file by user", timeout=10)  # the final level and who decided
        term.send_keys("space")
        term.wait_for("1 reviewed", timeout=10)
        term.send_keys("/")
        term.type_text("risk:high")  # typed at once: every key must reach the filter
        term.send_keys("Enter")
        term.wait_for("1 units (100% high) · 1 kept", timeout=10)
        _escape(term)
        term.send_keys("?")
        term.wait_for("reviewtui keys", timeout=10)
        _escape(term)
        term.send_keys("c")
        term.wait_for("REVIEWTUI_MODEL", timeout=10)  # no model: the chat says how
        _escape(term)
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
        term.wait_for("app/mod0.py", timeout=30)
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
        _escape(term)  # leave the chat input
        term.send_keys("q")
        assert term.wait_for_exit(timeout=15) == 0
