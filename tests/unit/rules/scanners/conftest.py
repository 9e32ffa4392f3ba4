"""Fixtures for the scanner tests: fake tool executables on PATH, and targets read from a repo."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from reviewtui.rules.scanners import ScanTarget

PRELUDE = "import json, os, sys, time\n"


class FakeTools:
    """Python scripts named like real tools, in a directory put first on PATH."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def add(self, name: str, body: str, *, directory: Path | None = None) -> Path:
        folder = directory or self.directory
        folder.mkdir(parents=True, exist_ok=True)
        script = folder / name
        script.write_text(f"#!{sys.executable}\n{PRELUDE}{textwrap.dedent(body)}")
        script.chmod(0o755)
        return script


@pytest.fixture
def fake_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    directory = tmp_path / "fake-bin"
    directory.mkdir()
    monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ.get('PATH', '')}")
    return FakeTools(directory)


def on_disk(root: Path, path: str, language: str | None = "python") -> ScanTarget:
    return ScanTarget(path=path, language=language, content=(root / path).read_bytes(),
                      on_disk=True)


def off_disk(path: str, content: str, language: str | None = "python") -> ScanTarget:
    return ScanTarget(path=path, language=language, content=content.encode(), on_disk=False)
