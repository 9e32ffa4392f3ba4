"""The real ruff from the dev environment, end to end, on real temporary git repositories."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from reviewtui.rules.scanners import ScannerIssue, run_scanners
from tests.conftest import GitRepoBuilder
from tests.unit.rules.scanners.conftest import FakeTools, off_disk, on_disk

BAD = "import os\n\n\ndef handler():\n    return undefined_name\n"
CLEAN = '"""A clean module."""\n\nVALUE = 1\n'


def _real_ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed")
    return found


@pytest.fixture
def ruff_log(fake_tools: FakeTools, tmp_path: Path) -> Path:
    """A ``ruff`` first on PATH that records each call and then runs the real ruff."""
    log = tmp_path / "ruff-calls.log"
    log.touch()
    real = _real_ruff()
    fake_tools.add("ruff", f"""
        with open({str(log)!r}, "a") as handle:
            handle.write(" ".join(sys.argv[1:]) + "\\n")
        os.execv({real!r}, [{real!r}, *sys.argv[1:]])
    """)
    return log


def calls(log: Path) -> int:
    return len(log.read_text().splitlines())


def brief(issues: tuple[ScannerIssue, ...]) -> list[tuple[str, int, int, str, str]]:
    return [(i.path, i.line, i.column, i.severity, i.rule_id) for i in issues]


def test_ruff_reports_errors_and_warnings(repo: GitRepoBuilder, ruff_log: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    repo.write("pkg/handlers.py", BAD)
    repo.commit()
    report = run_scanners(repo.root, [on_disk(repo.root, "pkg/handlers.py")], tools={"ruff"})
    assert report.ran == ("ruff",) and report.failed == {} and report.skipped == {}
    assert brief(report.issues) == [
        ("pkg/handlers.py", 1, 8, "warning", "F401"),
        ("pkg/handlers.py", 5, 12, "error", "F821"),
    ]
    assert all(i.tool == "ruff" for i in report.issues)
    assert "undefined_name" in report.issues[1].message
    assert capsys.readouterr() == ("", "")  # the core never prints
    assert repo.git("status", "--porcelain", "--ignored") == ""  # no .ruff_cache in the repo


def test_content_not_on_disk_is_what_gets_scanned(repo: GitRepoBuilder, ruff_log: Path) -> None:
    repo.write("pkg/now_clean.py", CLEAN)  # the commit under review had problems ...
    repo.write("pkg/now_bad.py", BAD)  # ... and this one was clean
    repo.commit()
    targets = [off_disk("pkg/now_clean.py", "\n\n" + BAD), off_disk("pkg/now_bad.py", CLEAN),
               off_disk("pkg/deleted_since.py", BAD)]
    report = run_scanners(repo.root, targets, tools={"ruff"})
    assert brief(report.issues) == [
        ("pkg/deleted_since.py", 1, 8, "warning", "F401"),
        ("pkg/deleted_since.py", 5, 12, "error", "F821"),
        ("pkg/now_clean.py", 3, 8, "warning", "F401"),
        ("pkg/now_clean.py", 7, 12, "error", "F821"),
    ]
    assert report.issues_for("pkg/now_bad.py") == ()
    assert (repo.root / "pkg/now_bad.py").read_text() == BAD  # the disk was not touched
    assert repo.git("status", "--porcelain", "--ignored") == ""


def test_repository_ruff_configuration_is_honoured(repo: GitRepoBuilder, ruff_log: Path) -> None:
    repo.write("pyproject.toml", '[tool.ruff.lint]\nselect = ["F401"]\n')
    repo.write("pkg/handlers.py", BAD)
    repo.commit()
    targets = [on_disk(repo.root, "pkg/handlers.py"), off_disk("pkg/other.py", BAD)]
    report = run_scanners(repo.root, targets, tools={"ruff"})
    assert brief(report.issues) == [
        ("pkg/handlers.py", 1, 8, "warning", "F401"),
        ("pkg/other.py", 1, 8, "warning", "F401"),
    ]  # F821 is not selected, neither in place nor through stdin


def test_second_run_is_answered_by_the_cache(repo: GitRepoBuilder, ruff_log: Path,
                                             tmp_path: Path) -> None:
    repo.write("pkg/a.py", BAD)
    repo.write("pkg/b.py", CLEAN)
    repo.commit()
    cache = tmp_path / "cache" / "reviewtui" / "scanners"
    targets = [on_disk(repo.root, "pkg/a.py"), on_disk(repo.root, "pkg/b.py"),
               off_disk("pkg/c.py", BAD)]
    first = run_scanners(repo.root, targets, tools={"ruff"}, cache_dir=cache)
    assert first.cached == 0 and calls(ruff_log) == 2  # one batch on disk, one stdin run
    second = run_scanners(repo.root, targets, tools={"ruff"}, cache_dir=cache)
    assert second.cached == 3 and calls(ruff_log) == 2  # ruff did not run again
    assert second.issues == first.issues and second.ran == ("ruff",)
    changed = [targets[0], targets[1], off_disk("pkg/c.py", CLEAN)]
    third = run_scanners(repo.root, changed, tools={"ruff"}, cache_dir=cache)
    assert third.cached == 2 and calls(ruff_log) == 3  # only the changed content ran
    assert third.issues_for("pkg/c.py") == ()
    assert not (repo.root / "cache").exists()


def test_editing_the_ruff_configuration_invalidates_the_cache(repo: GitRepoBuilder,
                                                              ruff_log: Path,
                                                              tmp_path: Path) -> None:
    repo.write("pkg/a.py", BAD)
    repo.commit()
    targets = [on_disk(repo.root, "pkg/a.py")]
    run_scanners(repo.root, targets, tools={"ruff"}, cache_dir=tmp_path / "c")
    repo.write("ruff.toml", '[lint]\nselect = ["F821"]\n')
    report = run_scanners(repo.root, targets, tools={"ruff"}, cache_dir=tmp_path / "c")
    assert report.cached == 0 and calls(ruff_log) == 2
    assert [i.rule_id for i in report.issues] == ["F821"]


def test_corrupt_cache_files_are_ignored_and_rewritten(repo: GitRepoBuilder, ruff_log: Path,
                                                      tmp_path: Path) -> None:
    repo.write("pkg/a.py", BAD)
    repo.commit()
    cache = tmp_path / "cache"
    targets = [on_disk(repo.root, "pkg/a.py")]
    first = run_scanners(repo.root, targets, tools={"ruff"}, cache_dir=cache)
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == 1
    entries[0].write_text('{"format": 1, "issues": [{"path": ')
    second = run_scanners(repo.root, targets, tools={"ruff"}, cache_dir=cache)
    assert second.cached == 0 and second.issues == first.issues and second.failed == {}
    assert calls(ruff_log) == 2
    third = run_scanners(repo.root, targets, tools={"ruff"}, cache_dir=cache)
    assert third.cached == 1 and third.issues == first.issues and calls(ruff_log) == 2
    assert not [p for p in cache.rglob("*") if p.name.startswith(".tmp-")]
