"""The runner with fake tools on PATH: skips, timeouts, crashes, parallelism, path mapping."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from reviewtui.rules.scanners import ScannerToolConfig, ScanTarget, run_scanners
from tests.conftest import GitRepoBuilder
from tests.unit.rules.scanners.conftest import FakeTools, on_disk

APP = "import os\n\n\ndef main():\n    return 1\n"


@pytest.fixture
def app_repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("src/app.py", APP)
    repo.commit("app")
    return repo


def test_missing_tool_is_skipped(app_repo: GitRepoBuilder, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    if (Path(sys.executable).parent / "pylint").exists():
        pytest.skip("pylint is installed next to the interpreter")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    report = run_scanners(app_repo.root, [on_disk(app_repo.root, "src/app.py")],
                          tools={"pylint"})
    assert report.skipped == {"pylint": "not installed"}
    assert report.ran == () and report.failed == {} and report.issues == ()


def test_disabled_unknown_and_unconfigured_tools_are_skipped(app_repo: GitRepoBuilder) -> None:
    app_repo.write("web/app.js", "let x = 1\n")
    app_repo.write("src/Main.java", "class Main {}\n")
    root = app_repo.root
    targets = [on_disk(root, "src/app.py"), on_disk(root, "web/app.js", "javascript"),
               on_disk(root, "src/Main.java", "java")]
    config = {"python": {"pyright": ScannerToolConfig()}}
    report = run_scanners(root, targets, config,
                          tools={"mypy", "pyright", "semgrep", "eslint", "checkstyle", "pmd"})
    assert report.skipped == {
        "checkstyle": "no configuration (checkstyle.xml)",
        "eslint": "no configuration",
        "mypy": "disabled",
        "pmd": "no configuration (ruleset.xml)",
        "pyright": "unknown tool",
        "semgrep": "no local configuration",
    }
    assert report.ran == ()


def test_tools_without_targets_are_not_mentioned(app_repo: GitRepoBuilder) -> None:
    report = run_scanners(app_repo.root, [on_disk(app_repo.root, "src/app.py")],
                          tools={"eslint", "rubocop", "golangci-lint"})
    assert report == run_scanners(app_repo.root, [], tools=None)


def test_hanging_tool_times_out(app_repo: GitRepoBuilder, fake_tools: FakeTools) -> None:
    fake_tools.add("flake8", """
        import subprocess
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        time.sleep(30)
    """)
    config = {"python": {"flake8": ScannerToolConfig(timeout=0.5)}}
    started = time.monotonic()
    report = run_scanners(app_repo.root, [on_disk(app_repo.root, "src/app.py")], config,
                          tools={"flake8"})
    assert time.monotonic() - started < 5
    assert report.failed == {"flake8": "timeout after 0.5s"}
    assert report.ran == ()


def test_crashing_tool_fails_with_one_line(app_repo: GitRepoBuilder,
                                           fake_tools: FakeTools) -> None:
    fake_tools.add("flake8", """
        print("\\x00\\x01garbage{{{")
        print("Traceback (most recent call last):", file=sys.stderr)
        print('  File "flake8", line 1', file=sys.stderr)
        print("RuntimeError: plugin exploded", file=sys.stderr)
        sys.exit(3)
    """)
    report = run_scanners(app_repo.root, [on_disk(app_repo.root, "src/app.py")],
                          tools={"flake8"})
    assert report.failed == {"flake8": "crashed with exit code 3: RuntimeError: plugin exploded"}


def test_unparseable_output_fails(app_repo: GitRepoBuilder, fake_tools: FakeTools) -> None:
    fake_tools.add("pylint", 'print("Your code has been rated at 10.00/10")\n')
    report = run_scanners(app_repo.root, [on_disk(app_repo.root, "src/app.py")],
                          tools={"pylint"})
    assert report.failed["pylint"].startswith("unparseable output: no JSON in output")
    assert "\n" not in report.failed["pylint"]


def test_tools_run_in_parallel(app_repo: GitRepoBuilder, fake_tools: FakeTools,
                               tmp_path: Path) -> None:
    log = tmp_path / "times.log"
    for name, output in (("pylint", "[]"), ("flake8", "")):
        fake_tools.add(name, f"""
            start = time.time()
            time.sleep(0.4)
            with open({str(log)!r}, "a") as handle:
                handle.write(f"{name} {{start}} {{time.time()}}\\n")
            print({output!r})
        """)
    report = run_scanners(app_repo.root, [on_disk(app_repo.root, "src/app.py")],
                          tools={"pylint", "flake8"}, max_workers=4)
    assert report.ran == ("flake8", "pylint") and report.failed == {}
    spans = {name: (float(a), float(b))
             for name, a, b in (line.split() for line in log.read_text().splitlines())}
    (a_start, a_end), (b_start, b_end) = spans["pylint"], spans["flake8"]
    assert a_start < b_end and b_start < a_end  # the two runs overlapped in time


def test_findings_are_mapped_filtered_and_deduplicated(app_repo: GitRepoBuilder,
                                                       fake_tools: FakeTools) -> None:
    fake_tools.add("flake8", """
        for _ in range(2):
            print("./src/app.py:1:1: F401 'os' imported but unused")
        print("src/other.py:3:1: E302 expected 2 blank lines")
        print(os.path.abspath("src/app.py") + ":4:1: E302 expected 2 blank lines, found 1")
        sys.exit(1)
    """)
    report = run_scanners(app_repo.root, [on_disk(app_repo.root, "src/app.py")],
                          tools={"flake8"})
    assert [(i.path, i.line, i.rule_id, i.severity, i.tool) for i in report.issues] == [
        ("src/app.py", 1, "F401", "warning", "flake8"),
        ("src/app.py", 4, "E302", "warning", "flake8"),
    ]
    assert report.issues_for("src/app.py") == report.issues
    assert report.issues_for("src/other.py") == ()


def test_target_paths_must_be_repo_relative(app_repo: GitRepoBuilder) -> None:
    for bad in ("/etc/passwd", "../outside.py", "src\\app.py"):
        with pytest.raises(ValueError, match="repo-relative"):
            run_scanners(app_repo.root, [ScanTarget(bad, "python", b"", False)], tools=set())


def test_environment_is_left_alone(app_repo: GitRepoBuilder, fake_tools: FakeTools) -> None:
    before = dict(os.environ)
    fake_tools.add("pylint", "print('[]')\n")
    run_scanners(app_repo.root, [on_disk(app_repo.root, "src/app.py")], tools={"pylint"})
    assert dict(os.environ) == before
