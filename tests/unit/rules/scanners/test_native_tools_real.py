"""The real cppcheck, clang-tidy and cargo clippy, where installed, on real temporary repositories.

CI has none of them (each test is skipped there); a developer machine with them installed runs
the adapters end to end: the tool's real output, content that is not on disk, nothing written
into the repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from reviewtui.rules.scanners import ScannerIssue, run_scanners
from tests.conftest import GitRepoBuilder
from tests.unit.rules.scanners.conftest import off_disk, on_disk

# Read before the fixtures move HOME: rustup finds its toolchains under the real one.
_RUSTUP_HOME = os.environ.get("RUSTUP_HOME") or str(Path.home() / ".rustup")

DOUBLE_FREE = """#include <stdlib.h>

int leak(int n) {
    char *p = malloc(n);
    free(p);
    free(p);
    return 0;
}
"""
CLEAN = "int twice(int n) {\n    return 2 * n;\n}\n"


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def brief(issues: tuple[ScannerIssue, ...]) -> list[tuple[str, int, str, str]]:
    return [(i.path, i.line, i.severity, i.rule_id) for i in issues]


def test_cppcheck_finds_a_double_free_on_disk_and_off_disk(repo: GitRepoBuilder) -> None:
    _tool("cppcheck")
    repo.write("src/leak.c", DOUBLE_FREE)
    repo.write("src/twice.c", CLEAN)
    repo.commit()
    targets = [on_disk(repo.root, "src/leak.c", "c"),
               off_disk("src/twice.c", DOUBLE_FREE.replace("leak", "twice"), "c")]
    report = run_scanners(repo.root, targets, tools={"cppcheck"})
    assert report.ran == ("cppcheck",) and report.failed == {}
    assert ("src/leak.c", 6, "error", "doubleFree") in brief(report.issues)
    assert ("src/twice.c", 6, "error", "doubleFree") in brief(report.issues)  # the content
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""


def test_clang_tidy_with_a_compilation_database_reads_the_target_content(
        repo: GitRepoBuilder) -> None:
    _tool("clang-tidy")
    repo.write("src/leak.c", CLEAN)
    repo.write("compile_commands.json", f'[{{"directory": "{repo.root}", '
                                        '"command": "cc -c src/leak.c", "file": "src/leak.c"}]\n')
    repo.commit()
    clean = run_scanners(repo.root, [on_disk(repo.root, "src/leak.c", "c")],
                         tools={"clang-tidy"})
    assert clean.ran == ("clang-tidy",) and clean.issues == ()
    report = run_scanners(repo.root, [off_disk("src/leak.c", DOUBLE_FREE, "c")],
                          tools={"clang-tidy"})  # the disk still holds the clean version
    assert report.ran == ("clang-tidy",) and report.failed == {}
    assert ("src/leak.c", 6, "warning", "clang-analyzer-unix.Malloc") in brief(report.issues)
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""


def _clippy_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tool("cargo-clippy")
    monkeypatch.setenv("RUSTUP_HOME", _RUSTUP_HOME)
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "cargo-home"))
    probe = subprocess.run(["cargo", "clippy", "--version"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("cargo clippy does not run here")


def test_clippy_lints_a_crate_without_touching_the_repository(
        repo: GitRepoBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _clippy_env(tmp_path, monkeypatch)
    repo.write("parser/Cargo.toml", '[package]\nname = "parser"\nversion = "0.1.0"\n'
                                    'edition = "2021"\n')
    repo.write("parser/src/lib.rs", "pub fn empty(v: &[u32]) -> bool {\n    v.is_empty()\n}\n")
    repo.commit()
    lints = "pub fn empty(v: &[u32]) -> bool {\n    v.len() == 0\n}\n"
    report = run_scanners(repo.root, [off_disk("parser/src/lib.rs", lints, "rust")],
                          tools={"clippy"})
    assert report.failed == {} and report.ran == ("clippy",)
    assert brief(report.issues) == [("parser/src/lib.rs", 2, "warning", "clippy::len_zero")]
    broken = "pub fn empty(v: &[u32]) -> bool {\n    let n: u32 = \"x\";\n    v.is_empty()\n}\n"
    report = run_scanners(repo.root, [off_disk("parser/src/lib.rs", broken, "rust")],
                          tools={"clippy"})
    assert brief(report.issues) == [("parser/src/lib.rs", 2, "error", "E0308")]
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""  # no Cargo.lock
