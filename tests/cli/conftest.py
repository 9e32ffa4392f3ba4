"""Run the real ``reviewtui`` command line in-process and as the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reviewtui.cli import main


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


CliRunner = Callable[..., Result]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> CliRunner:
    """Run ``reviewtui ARGS`` in-process and capture what it prints."""

    def run(*args: str | Path) -> Result:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def installed() -> CliRunner:
    """Run the installed console script as a user would."""

    def run(*args: str | Path, cwd: Path | None = None, stdin: bytes | None = None) -> Result:
        exe = shutil.which("reviewtui")
        command = [exe] if exe else [sys.executable, "-m", "reviewtui"]
        proc = subprocess.run([*command, *map(str, args)], cwd=cwd, input=stdin,
                              capture_output=True, check=False)
        return Result(proc.returncode, proc.stdout.decode(), proc.stderr.decode())

    return run
