"""``reviewtui index`` as its own process ends without freeing what it built (``cli.main``):
everything it printed still arrives whole, and a reader that goes away early is no error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder


def _change(repo: GitRepoBuilder) -> None:
    for i in range(150):
        repo.write(f"pkg/m{i}.py", "".join(f"def f{j}(x):\n    return x + {j}\n\n"
                                           for j in range(30)))
    repo.commit("base")
    for i in range(150):
        repo.write(f"pkg/m{i}.py", "".join(f"def f{j}(x):\n    return x * {j + i}\n\n"
                                           for j in range(30)))


def _process(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "reviewtui", *map(str, args)],
                          capture_output=True, check=False, env=env)


def test_the_process_prints_the_whole_index(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _change(repo)
    proc = _process("index", "--json", repo.root)
    assert proc.returncode == 0, proc.stderr.decode()
    assert len(proc.stdout) > 1 << 17  # more than a pipe holds: flushed before the exit
    printed = json.loads(proc.stdout)
    in_process = cli("index", "--json", repo.root).json()
    for data in (printed, in_process):
        data["review_metadata"].pop("timestamp")
    assert printed == in_process
    table = _process("index", repo.root)
    assert table.returncode == 0
    assert table.stdout.decode() == cli("index", repo.root).out


def test_a_reader_that_stops_early_is_no_error(repo: GitRepoBuilder, tmp_path: Path) -> None:
    _change(repo)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    script = f'"{sys.executable}" -m reviewtui index --json "{repo.root}" | head -c 100'
    proc = subprocess.run(["sh", "-c", script], capture_output=True, check=False, env=env)
    assert proc.returncode == 0
    assert len(proc.stdout) == 100
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize("command", [("index", "--json"), ("index",), ("plan", "--no-llm")])
def test_a_full_disk_is_one_line_not_a_traceback(repo: GitRepoBuilder,
                                                 command: tuple[str, ...]) -> None:
    _change(repo)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with Path("/dev/full").open("wb") as full:  # every write: ENOSPC
        proc = subprocess.run([sys.executable, "-m", "reviewtui", *command, str(repo.root)],
                              stdout=full, stderr=subprocess.PIPE, check=False, env=env)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "Traceback" not in err, err
    assert err.splitlines()[-1] == (
        "reviewtui: error: cannot write the output: No space left on device")


def test_bad_input_still_says_one_line(repo: GitRepoBuilder) -> None:
    _change(repo)
    proc = _process("index", "--range", "nope..HEAD", repo.root)
    assert proc.returncode == 2
    assert proc.stderr.decode().count("\n") == 1 and b"Traceback" not in proc.stderr
