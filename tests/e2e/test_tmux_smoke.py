"""Smoke tests of the tmux harness: the installed ``reviewtui`` in a real terminal, and keys
reaching a Textual app through tmux. The full workbench e2e test builds on the same harness."""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from reviewtui import __version__
from tests.conftest import GitRepoBuilder
from tests.e2e.tmux_harness import TmuxError, TmuxSession, isolated_env, requires_tmux

pytestmark = requires_tmux


def reviewtui_command() -> list[str]:
    """The installed console script (next to this interpreter first: the venv need not be on
    PATH), else ``python -m reviewtui``."""
    beside = Path(sys.executable).with_name("reviewtui")
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("reviewtui")
    return [found] if found else [sys.executable, "-m", "reviewtui"]


@pytest.fixture
def changed_repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/payments.py", "def charge(amount):\n    return amount\n")
    repo.commit("base")
    repo.write("app/payments.py", "def charge(amount):\n    return amount * 2\n")
    return repo


def test_version_in_a_terminal(tmp_path: Path) -> None:
    with TmuxSession([*reviewtui_command(), "--version"], cwd=tmp_path,
                     env=isolated_env()) as term:
        assert term.wait_for_exit() == 0
        assert term.output().strip() == f"reviewtui {__version__}"


def test_index_in_a_terminal(changed_repo: GitRepoBuilder) -> None:
    with TmuxSession([*reviewtui_command(), "index"], cwd=changed_repo.root,
                     env=isolated_env(), width=120, height=20) as term:
        assert term.wait_for_exit() == 0
        out = term.output()
    assert "1 files, 1 units, +1 -1" in out
    header = next(line for line in out.splitlines() if line.startswith("UNIT"))
    assert header.split() == ["UNIT", "LOCATION", "LANG", "TYPE", "+/-", "LEVEL", "CONF",
                              "RISK", "PRIO", "TAGS"]
    assert re.search(r"^u_[0-9a-f]{12}\s+app/payments\.py:L2\s+python\s+modify\s+\+1/-1",
                     out, re.MULTILINE), out


def test_error_is_one_line_and_status_2(tmp_path: Path) -> None:
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    with TmuxSession([*reviewtui_command(), "index"], cwd=outside, width=400,
                     env=isolated_env({"GIT_CEILING_DIRECTORIES": str(tmp_path)})) as term:
        assert term.wait_for_exit() == 2  # wide: a long temporary path must not wrap
        lines = term.output().strip().splitlines()
    assert len(lines) == 1, lines
    assert "not a git repository" in lines[0], lines


def test_the_program_sees_the_isolated_environment(tmp_path: Path) -> None:
    script = "import os; print('HOME=' + os.environ['HOME']); print('X=' + os.environ['X'])"
    with TmuxSession([sys.executable, "-c", script], cwd=tmp_path,
                     env=isolated_env({"X": "a b  c"})) as term:
        assert term.wait_for_exit() == 0
        out = term.output()
    assert f"HOME={os.environ['HOME']}" in out
    assert "X=a b  c" in out


def test_keys_and_text_reach_a_program(tmp_path: Path) -> None:
    script = "import sys\nfor line in sys.stdin:\n    print('got', repr(line.rstrip('\\n')))\n"
    with TmuxSession([sys.executable, "-u", "-c", script], cwd=tmp_path, env=isolated_env(),
                     width=60, height=10) as term:
        term.type_text("Enter ;$HOME 'x'")
        term.send_keys("Enter")
        term.wait_for("got \"Enter ;$HOME 'x'\"")
        term.send_keys("C-d")
        assert term.wait_for_exit() == 0


def test_ctrl_c_reaches_the_program_and_its_status_is_kept(tmp_path: Path) -> None:
    script = "import time; print('ready', flush=True); time.sleep(60)"
    with TmuxSession([sys.executable, "-c", script], cwd=tmp_path, env=isolated_env()) as term:
        term.wait_for("ready")
        term.send_keys("C-c")
        assert term.wait_for_exit(timeout=10) == 130  # killed by SIGINT, as a shell reports it


def test_wait_for_reports_the_screen_on_timeout(tmp_path: Path) -> None:
    with TmuxSession([sys.executable, "-c", "print('hello'); input()"], cwd=tmp_path,
                     env=isolated_env(), width=40, height=5) as term:
        term.wait_for("hello")
        assert term.exit_status() is None
        with pytest.raises(TmuxError, match=r"(?s)'goodbye' not on screen.*hello"):
            term.wait_for("goodbye", timeout=0.3)
        assert term.wait_for(re.compile(r"h.llo")).startswith("hello")


def test_kill_stops_the_private_server(tmp_path: Path) -> None:
    term = TmuxSession([sys.executable, "-c", "import time; time.sleep(60)"], cwd=tmp_path,
                       env=isolated_env())
    assert term.socket_path is not None and term.socket_path.exists()
    assert term.name in term.socket_path.name  # a private socket, never the user's "default"
    term.kill()
    term.kill()  # idempotent
    assert not term.socket_path.exists()


TEXTUAL_APP = textwrap.dedent("""\
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Counter(App[None]):
        BINDINGS = [("j", "step(1)", "down"), ("k", "step(-1)", "up"), ("q", "quit", "quit"),
                    ("escape", "step(100)", "esc")]
        count = 0

        def compose(self) -> ComposeResult:
            yield Static("count=0", id="c")

        def action_step(self, by: int) -> None:
            self.count += by
            self.query_one("#c", Static).update(f"count={self.count}")

    Counter().run()
""")


def test_keys_reach_a_textual_app(tmp_path: Path) -> None:
    app = tmp_path / "counter.py"
    app.write_text(TEXTUAL_APP)
    with TmuxSession([sys.executable, str(app)], cwd=tmp_path, env=isolated_env(),
                     width=80, height=12) as term:
        term.wait_for("count=0", timeout=20)
        term.send_keys("j", "j", "j", "k")
        term.wait_for("count=2")
        term.send_keys("Escape")  # escape-time 0: reaches the app at once, not as Alt+key
        term.wait_for("count=102")
        term.send_keys("q")
        assert term.wait_for_exit(timeout=20) == 0
