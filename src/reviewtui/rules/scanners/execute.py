"""Finding tool executables and running them with a hard timeout, quietly.

Each tool runs in its own process group so that a timeout kills the whole tree (a wrapper
script's children would otherwise keep the pipes open and the run hanging). The environment
switches off colours, telemetry, update checks and Go's module downloads: scanners work on
local files and local configuration only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from reviewtui.rules.scanners.base import Adapter, ToolOutput, first_line

_QUIET_ENV = {
    "NO_COLOR": "1",
    "TERM": "dumb",
    "PYTHONDONTWRITEBYTECODE": "1",
    "SEMGREP_SEND_METRICS": "off",
    "SEMGREP_ENABLE_VERSION_CHECK": "0",
    "GOPROXY": "off",
    "GOTOOLCHAIN": "local",
    "CARGO_NET_OFFLINE": "true",
    "CARGO_TERM_COLOR": "never",
}
_DROP_ENV = ("FORCE_COLOR", "CLICOLOR_FORCE", "PY_COLORS")
_VERSION_TIMEOUT = 10.0


class ToolTimeout(Exception):
    pass


class ToolStartError(Exception):
    pass


def scanner_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    for key in _DROP_ENV:
        env.pop(key, None)
    env.update(_QUIET_ENV)
    return env


def find_executable(adapter: Adapter, root: Path) -> str | None:
    """Repo-local executables first (``node_modules/.bin``), then PATH, then the interpreter's
    own scripts directory for tools that are Python packages."""
    for rel in adapter.local_executables:
        candidate = root / rel
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    for name in (adapter.executable, *adapter.executable_alternatives):
        found = shutil.which(name)
        if found is None and adapter.python_module:
            found = shutil.which(name, path=str(Path(sys.executable).parent))
        if found is not None:
            return found
    return None


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def run_process(argv: Sequence[str], *, cwd: Path, stdin: bytes | None, timeout: float,
                env: Mapping[str, str]) -> ToolOutput:
    """Run to completion or kill the process group after ``timeout`` seconds."""
    try:
        proc = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env),
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise ToolStartError(exc.strerror or str(exc)) from None
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        with contextlib.suppress(subprocess.TimeoutExpired):  # a child escaped the group
            proc.communicate(timeout=5)
        raise ToolTimeout(timeout) from None
    return ToolOutput(proc.returncode, out.decode("utf-8", "replace"),
                      err.decode("utf-8", "replace"))


def executable_stamp(executable: str) -> str:
    try:
        stat = Path(executable).stat()
    except OSError:
        return executable
    return f"{executable}:{stat.st_mtime_ns}:{stat.st_size}"


_versions: dict[tuple[str, tuple[str, ...]], str] = {}
_versions_lock = threading.Lock()


def tool_version(executable: str, args: Sequence[str], *, cwd: Path,
                 env: Mapping[str, str]) -> str:
    """The first line of ``executable args`` (e.g. ``--version``), memoised per stamp; "" when
    the tool cannot tell."""
    key = (executable_stamp(executable), tuple(args))
    with _versions_lock:
        if key in _versions:
            return _versions[key]
    try:
        out = run_process([executable, *args], cwd=cwd, stdin=None, timeout=_VERSION_TIMEOUT,
                          env=env)
        text = (first_line(out.stdout) or first_line(out.stderr)) if out.returncode == 0 else ""
    except (ToolTimeout, ToolStartError):
        text = ""
    with _versions_lock:
        _versions[key] = text
    return text
