"""The real mypy from the dev environment: in place, through --shadow-file, and in a mirror."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from reviewtui.rules.scanners import DEFAULT_SCANNER_CONFIG, run_scanners
from tests.conftest import GitRepoBuilder
from tests.unit.rules.scanners.conftest import off_disk, on_disk

TYPED = "def total(values: list[int]) -> int:\n    return sum(values)\n"
BROKEN = "from .core import total\n\n\ndef twice() -> int:\n    return total([1]) + missing\n"


def test_mypy_checks_the_content_with_package_context(repo: GitRepoBuilder) -> None:
    if shutil.which("mypy", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("mypy is not installed next to the interpreter")
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/core.py", TYPED)
    repo.write("pkg/changed.py", "VALUE = 1\n")
    repo.write("pkg/same.py", "x: int = 'text'\n")
    repo.commit()
    config = {"python": {"mypy": DEFAULT_SCANNER_CONFIG["python"]["mypy"].model_copy(
        update={"enabled": True})}}
    targets = [
        on_disk(repo.root, "pkg/same.py"),
        off_disk("pkg/changed.py", BROKEN),  # exists on disk with other content: shadow file
        off_disk("pkg/added.py", "\n" + BROKEN),  # not on disk at all: mirror
    ]
    report = run_scanners(repo.root, targets, config, tools={"mypy"})
    assert report.failed == {} and report.ran == ("mypy",)
    assert [(i.path, i.line, i.severity, i.rule_id) for i in report.issues] == [
        ("pkg/added.py", 6, "error", "name-defined"),
        ("pkg/changed.py", 5, "error", "name-defined"),
        ("pkg/same.py", 1, "error", "assignment"),
    ]
    assert repo.git("status", "--porcelain", "--ignored") == ""  # no .mypy_cache
