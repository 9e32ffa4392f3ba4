"""Times in a real terminal: from starting a command in tmux to what the screen shows.

``bench_tui.py --terminal`` uses this to time ``reviewtui`` as people start it -- a process
importing everything, collecting the change, painting -- beside the floor of a bare Textual
app with a 100-row DataTable in the same terminal. A private tmux server (``-L``) runs the
command in a detached session of a fixed size; the pane is captured every ``POLL`` seconds and
the first time each mark (a piece of text) is on screen is recorded. Then the keys that quit
are sent and the session is killed. Needs ``tmux``; only the standard library is used.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

SOCKET = "reviewtui-bench"
POLL = 0.01

BARE_APP = '''
from textual.app import App, ComposeResult
from textual.widgets import DataTable


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield DataTable()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("name", "value")
        table.add_rows([(f"row {n}", str(n)) for n in range(100)])


Bare().run()
'''


class TerminalError(RuntimeError):
    """tmux is missing, or a mark never showed."""


def _tmux(*args: str) -> str:
    proc = subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True,
                          check=False)
    return proc.stdout


def time_marks(command: list[str], cwd: Path, env: Mapping[str, str],
               marks: Mapping[str, str], *, size: tuple[int, int] = (160, 50),
               timeout: float = 300.0, quit_keys: tuple[str, ...] = ("q",),
               until: str | None = None) -> dict[str, float]:
    """Seconds from starting ``command`` until each of ``marks`` (name -> text) shows; with
    ``until``, only until that mark shows (the others may never have: a screen too quick)."""
    if shutil.which("tmux") is None:
        raise TerminalError("tmux is not installed")
    session = "bench"
    _tmux("kill-server")
    line = " ".join(["env", *(f"{k}={shlex.quote(v)}" for k, v in env.items()),
                     shlex.join(command), "; echo EXITED; sleep 60"])
    start = time.perf_counter()
    subprocess.run(["tmux", "-L", SOCKET, "new-session", "-d", "-s", session,
                    "-x", str(size[0]), "-y", str(size[1]), "-c", str(cwd), line], check=True)
    found: dict[str, float] = {}
    try:
        while (until not in found) if until is not None else len(found) < len(marks):
            screen = _tmux("capture-pane", "-p", "-t", session)
            now = time.perf_counter() - start
            for name, text in marks.items():
                if name not in found and text in screen:
                    found[name] = now
            if now > timeout:
                missing = ", ".join(sorted(set(marks) - set(found)))
                raise TerminalError(f"not on screen after {timeout:.0f}s: {missing}\n{screen}")
            time.sleep(POLL)
        for key in quit_keys:
            _tmux("send-keys", "-t", session, key)
        deadline = time.perf_counter() + 30
        while "EXITED" not in _tmux("capture-pane", "-p", "-t", session):
            if time.perf_counter() > deadline:
                break
            time.sleep(0.05)
    finally:
        _tmux("kill-server")
    return found


def bare_app_time(cwd: Path, env: Mapping[str, str], *, size: tuple[int, int] = (160, 50),
                  timeout: float = 60.0) -> float:
    """The floor: a bare Textual app showing a 100-row DataTable, started the same way."""
    with tempfile.TemporaryDirectory(prefix="reviewtui-bare-") as temp:
        script = Path(temp) / "bare.py"
        script.write_text(BARE_APP)
        found = time_marks([sys.executable, str(script)], cwd, env, {"rows": "row 0"},
                           size=size, timeout=timeout, quit_keys=("C-q",))
    return found["rows"]
