"""The installed ``reviewtui`` workbench in a real terminal (tmux): keys in, screen out."""

from __future__ import annotations

import json
import time

from tests.conftest import GitRepoBuilder
from tests.e2e.test_tmux_smoke import reviewtui_command
from tests.e2e.tmux_harness import TmuxSession, isolated_env, requires_tmux

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
        assert "2 units · 2 kept · 0 reviewed" in term.screen()
        term.send_keys("j")  # to app/util.py
        term.wait_for("unit     u_", timeout=10)
        term.send_keys("4")
        term.wait_for("full_file by user", timeout=10)  # the final level and who decided
        term.send_keys("space")
        term.wait_for("1 reviewed", timeout=10)
        term.send_keys("/")
        term.type_text("risk:high")  # typed at once: every key must reach the filter
        term.send_keys("Enter")
        term.wait_for("1 units · 1 kept", timeout=10)
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
