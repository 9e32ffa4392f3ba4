"""Drive a real terminal program inside a private, detached tmux server.

End-to-end tests of the workbench need a real terminal: a pty of a known size, real key
sequences, and a screen to read back. tmux gives all three without a display. Every session
runs on its own server (``-L <unique>``, ``-f /dev/null``), so a developer's tmux, its
configuration and its sessions are never touched, and ``kill()`` takes the whole server down.

The pane stays after the program exits (``remain-on-exit``) so that its last screen can still be
read; tmux may then scroll one line to print "Pane is dead", which is why ``output()`` reads the
scrollback too. The exit status is recorded by a small ``sh`` wrapper around the command.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

import pytest

TMUX = shutil.which("tmux")

requires_tmux = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")

#: Variables a test's isolated environment consists of (see tests/conftest.py).
ISOLATED_PREFIXES = ("HOME", "XDG_", "GIT_", "REVIEWTUI_", "OPENAI_", "NO_PROXY", "no_proxy")

_DEAD_LINE = re.compile(r"^Pane is dead \(.*\)\s*$")


class TmuxError(RuntimeError):
    """A tmux command failed, or the screen did not show what was waited for."""


def isolated_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test's isolated variables from ``os.environ`` (HOME, XDG_*, GIT_*, ...), plus
    ``PATH`` and the locale, so the program finds its tools and prints UTF-8."""
    env = {key: value for key, value in os.environ.items() if key.startswith(ISOLATED_PREFIXES)}
    env["PATH"] = os.environ.get("PATH", os.defpath)
    env["LANG"] = os.environ.get("LANG") or "C.UTF-8"
    if "LC_ALL" in os.environ:
        env["LC_ALL"] = os.environ["LC_ALL"]
    env.update(extra or {})
    return env


class TmuxSession:
    """One program in one detached tmux session of ``width`` x ``height`` cells.

    Use as a context manager (or call ``kill()``)::

        with TmuxSession(["reviewtui"], cwd=repo, env=isolated_env()) as tui:
            tui.wait_for("UNIT")
            tui.send_keys("j", "j", "Enter")
            assert "reviewed" in tui.screen()
    """

    def __init__(self, command: Sequence[str], cwd: Path | str,
                 env: Mapping[str, str] | None = None, width: int = 120,
                 height: int = 40) -> None:
        if TMUX is None:
            raise TmuxError("tmux is not installed")
        if not command:
            raise ValueError("no command given")
        self.tmux = TMUX
        self.name = f"rtui-{os.getpid()}-{uuid.uuid4().hex[:10]}"
        self.width = width
        self.height = height
        self.command = list(command)
        self._alive = False
        self.socket_path: Path | None = None
        # Passed both to the server's environment and with ``env`` in front of the command, so
        # the program sees these values whatever tmux does with its global environment. TMUX is
        # dropped: inside a developer's tmux it would point at their server; so are LINES and
        # COLUMNS (pytest-xdist's workers set 24 x 80): they would override the pane's size.
        variables = dict(env or {})
        self._server_env = {k: v for k, v in os.environ.items()
                            if k not in ("TMUX", "TMUX_PANE", "LINES", "COLUMNS")}
        self._server_env.update(variables)
        assignments = [f"{key}={value}" for key, value in sorted(variables.items())]
        self._state_dir = Path(tempfile.mkdtemp(prefix="rtui-tmux-"))
        self._status_file = self._state_dir / "status"
        partial = self._state_dir / "status.partial"
        # The shell catches SIGINT and SIGQUIT (catches, not ignores: the program must still get
        # them) so that it survives Ctrl-C and records the program's status (130 for Ctrl-C).
        wrapper = (f'trap : INT QUIT; "$@"; echo $? > {shlex.quote(str(partial))} && '
                   f"mv {shlex.quote(str(partial))} {shlex.quote(str(self._status_file))}")
        try:
            self._tmux(
                "start-server", ";",
                "set-option", "-g", "remain-on-exit", "on", ";",
                "set-option", "-g", "status", "off", ";",
                "set-option", "-g", "history-limit", "10000", ";",
                "set-option", "-s", "escape-time", "0", ";",
                "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height),
                "-c", str(cwd), "--", "sh", "-c", wrapper, "sh", "env", *assignments,
                *self.command,
            )
            self._alive = True
            self.socket_path = Path(self._tmux("display-message", "-p", "-t", self.name,
                                               "#{socket_path}").strip())
        except BaseException:
            self._alive = True
            self.kill()
            raise

    # --- plumbing -----------------------------------------------------------------------------

    def _tmux(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run([self.tmux, "-L", self.name, "-f", "/dev/null", *args],
                              capture_output=True, text=True, env=self._server_env,
                              check=False, timeout=30)
        if check and proc.returncode != 0:
            raise TmuxError(f"tmux {' '.join(args[:3])} failed: {proc.stderr.strip()}")
        return proc.stdout

    # --- input --------------------------------------------------------------------------------

    def send_keys(self, *keys: str) -> None:
        """Press keys, in tmux's names: ``"j"``, ``"Enter"``, ``"Escape"``, ``"C-c"``, ``"Space"``,
        ``"Up"``, ``"BSpace"``, ``"S-Tab"``. A multi-character string that is not a key name is
        typed character by character (tmux's own rule)."""
        if keys:
            self._tmux("send-keys", "-t", self.name, *keys)

    def type_text(self, text: str) -> None:
        """Type ``text`` literally (no key-name lookup: ``"Enter"`` types five letters)."""
        if text:
            self._tmux("send-keys", "-t", self.name, "-l", text)

    def resize(self, width: int, height: int) -> None:
        self._tmux("resize-window", "-t", self.name, "-x", str(width), "-y", str(height))
        self.width, self.height = width, height

    # --- output -------------------------------------------------------------------------------

    def screen(self, *, scrollback: bool = False) -> str:
        """The visible screen as text (trailing blanks trimmed by tmux); with ``scrollback``,
        the lines that scrolled off the top come first."""
        args = ["capture-pane", "-p", "-t", self.name]
        if scrollback:
            args += ["-S", "-"]
        return self._tmux(*args)

    def output(self) -> str:
        """Everything the program printed (scrollback + screen), without tmux's "Pane is dead"
        line and trailing blank lines: for commands that print and exit."""
        lines = [line for line in self.screen(scrollback=True).splitlines()
                 if not _DEAD_LINE.match(line)]
        return "\n".join(lines).rstrip() + "\n"

    def wait_for(self, text: str | re.Pattern[str], timeout: float = 10.0, *,
                 scrollback: bool = False, interval: float = 0.05) -> str:
        """Poll the screen until it contains ``text`` (or matches the pattern); return the screen.

        Raises ``TmuxError`` with the last screen when it does not appear within ``timeout``.
        """
        return self._poll(text, True, timeout, scrollback, interval)

    def wait_gone(self, text: str | re.Pattern[str], timeout: float = 10.0, *,
                  interval: float = 0.05) -> str:
        """Poll the screen until ``text`` is no longer on it; return the screen."""
        return self._poll(text, False, timeout, False, interval)

    def _poll(self, text: str | re.Pattern[str], present: bool, timeout: float,
              scrollback: bool, interval: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen(scrollback=scrollback)
            found = (text.search(shown) is not None if isinstance(text, re.Pattern)
                     else text in shown)
            if found is present:
                return shown
            if time.monotonic() >= deadline:
                wanted = text.pattern if isinstance(text, re.Pattern) else text
                state = "not on screen" if present else "still on screen"
                raise TmuxError(f"{wanted!r} {state} after {timeout}s; "
                                f"command {self.command}; screen:\n{shown}")
            time.sleep(interval)

    def wait_for_exit(self, timeout: float = 30.0, interval: float = 0.05) -> int:
        """Wait until the program exits; its exit status."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.exit_status()
            if status is not None:
                return status
            if time.monotonic() >= deadline:
                raise TmuxError(f"{self.command} still running after {timeout}s; screen:\n"
                                f"{self.screen()}")
            time.sleep(interval)

    def exit_status(self) -> int | None:
        """The program's exit status (128 + N when killed by signal N), or None while it runs.

        Read from the file the wrapper shell writes, not from tmux: tmux 3.3 now and then misses
        the child's exit (the pane stays a zombie and ``#{pane_dead_status}`` never fills in).
        """
        try:
            text = self._status_file.read_text()
        except FileNotFoundError:
            return None
        return int(text.strip())

    # --- teardown -----------------------------------------------------------------------------

    def kill(self) -> None:
        """Stop the program and the private tmux server, and remove its socket. Idempotent."""
        if not self._alive:
            return
        self._alive = False
        self._tmux("kill-server", check=False)
        if self.socket_path is not None:
            self.socket_path.unlink(missing_ok=True)
        shutil.rmtree(self._state_dir, ignore_errors=True)

    def __enter__(self) -> TmuxSession:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.kill()
