"""Scanner configuration defaults and merging, the result cache, and the Go plans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from reviewtui.rules.scanners import (
    ANY_LANGUAGE,
    DEFAULT_SCANNER_CONFIG,
    ScannerIssue,
    ScannerToolConfig,
    ScanReport,
    merge_config,
)
from reviewtui.rules.scanners.base import ToolContext
from reviewtui.rules.scanners.cache import ScanCache, cache_key
from reviewtui.rules.scanners.registry import ADAPTERS
from reviewtui.rules.scanners.workspace import Scratch
from tests.conftest import GitRepoBuilder
from tests.unit.rules.scanners.conftest import off_disk, on_disk


def test_defaults_follow_the_spec() -> None:
    summary = {
        language: {tool: (c.enabled, c.timeout, c.extra_args) for tool, c in tools.items()}
        for language, tools in DEFAULT_SCANNER_CONFIG.items()
    }
    assert summary == {
        "python": {
            "pylint": (True, 30, []), "flake8": (True, 30, []),
            "mypy": (False, 60, ["--ignore-missing-imports"]), "ruff": (True, 30, []),
            "bandit": (True, 30, []),
        },
        "java": {"checkstyle": (True, 30, []), "pmd": (True, 30, [])},
        "go": {"golangci-lint": (True, 60, []), "go-vet": (True, 30, [])},
        "javascript": {"eslint": (True, 30, [])},
        "typescript": {"eslint": (True, 30, [])},
        "tsx": {"eslint": (True, 30, [])},
        "ruby": {"rubocop": (True, 30, [])},
        "rust": {"clippy": (True, 300, [])},
        "c": {"cppcheck": (True, 120, []), "clang-tidy": (True, 180, [])},
        "cpp": {"cppcheck": (True, 120, []), "clang-tidy": (True, 180, [])},
        "php": {"phpstan": (True, 120, [])},
        "kotlin": {"ktlint": (True, 30, []), "detekt": (True, 120, [])},
        ANY_LANGUAGE: {"semgrep": (True, 60, [])},
    }
    every_tool = {tool for tools in DEFAULT_SCANNER_CONFIG.values() for tool in tools}
    assert every_tool == set(ADAPTERS)


def test_tool_config_validation() -> None:
    with pytest.raises(ValidationError):
        ScannerToolConfig(timeout=0)
    with pytest.raises(ValidationError):
        ScannerToolConfig.model_validate({"enabled": True, "timeuot": 3})
    config = ScannerToolConfig()
    with pytest.raises(ValidationError):
        config.enabled = False


def test_caller_config_replaces_only_the_pairs_it_names() -> None:
    mine = ScannerToolConfig(enabled=False)
    slow = ScannerToolConfig(timeout=600)
    merged = merge_config({"python": {"ruff": mine}, "kotlin": {"detekt": slow},
                           "swift": {"swiftlint": ScannerToolConfig()}})
    assert merged["python"]["ruff"] is mine
    assert merged["python"]["pylint"] == DEFAULT_SCANNER_CONFIG["python"]["pylint"]
    assert merged["kotlin"] == {"ktlint": DEFAULT_SCANNER_CONFIG["kotlin"]["ktlint"],
                                "detekt": slow}
    assert set(merged["swift"]) == {"swiftlint"}
    assert DEFAULT_SCANNER_CONFIG["python"]["ruff"].enabled  # the defaults are not mutated
    assert merge_config(None) == DEFAULT_SCANNER_CONFIG


ISSUE = ScannerIssue("a.py", 3, 1, "error", "boom", "F821", "ruff")


def test_cache_round_trip_and_tolerance(tmp_path: Path) -> None:
    cache = ScanCache(tmp_path)
    key = cache_key(tool="ruff", identity="x", args=[], config="", path="a.py", digest="d")
    assert cache.get(key, tool="ruff", path="a.py") is None
    cache.put(key, [ISSUE])
    assert cache.get(key, tool="ruff", path="a.py") == [ISSUE]
    assert cache.get(key, tool="pylint", path="a.py") is None  # not this tool's entry
    [file] = tmp_path.rglob("*.json")
    for broken in ("", "[]", "{not json", json.dumps({"format": 1, "key": key, "issues": [{}]}),
                   json.dumps({"format": 99, "key": key, "issues": []})):
        file.write_text(broken)
        assert cache.get(key, tool="ruff", path="a.py") is None
    cache.put(key, [])
    assert cache.get(key, tool="ruff", path="a.py") == []
    assert ScanCache(None).get(key, tool="ruff", path="a.py") is None


def test_cache_keys_cover_every_input() -> None:
    base = {"tool": "ruff", "identity": "v1", "args": ["--x"], "config": "c", "path": "a.py",
            "digest": "d"}
    keys = {cache_key(**base)}  # type: ignore[arg-type]
    for name, other in (("tool", "flake8"), ("identity", "v2"), ("args", ["--y"]),
                        ("config", "c2"), ("path", "b.py"), ("digest", "e")):
        keys.add(cache_key(**{**base, name: other}))  # type: ignore[arg-type]
    assert len(keys) == 7


def test_report_issues_for() -> None:
    other = ScannerIssue("b.py", 1, 1, "info", "note", "X", "ruff")
    report = ScanReport(issues=(ISSUE, other), ran=("ruff",), skipped={}, failed={}, cached=0)
    assert report.issues_for("b.py") == (other,)


def _ctx(root: Path, tool: str, version: str = "") -> ToolContext:
    return ToolContext(root, f"/usr/bin/{tool}", version, ScannerToolConfig(extra_args=["-v"]))


def test_go_vet_plan_runs_per_module_with_an_overlay(repo: GitRepoBuilder) -> None:
    repo.write("go.mod", "module example.com/root\n")
    repo.write("svc/go.mod", "module example.com/svc\n")
    repo.write("cmd/main.go", "package main\n")
    repo.write("svc/api/h.go", "package api\n")
    targets = [on_disk(repo.root, "cmd/main.go", "go"), off_disk("svc/api/h.go", "x", "go"),
               off_disk("svc/h.go", "y", "go")]
    with Scratch() as scratch:
        runs = ADAPTERS["go-vet"].plan(_ctx(repo.root, "go"), targets, scratch)
        assert [(r.cwd, r.targets) for r in runs] == [
            (repo.root, ("cmd/main.go",)), (repo.root / "svc", ("svc/api/h.go", "svc/h.go")),
        ]
        assert runs[0].argv == ("/usr/bin/go", "vet", "-v", "./cmd")
        argv = runs[1].argv
        assert argv[:3] == ("/usr/bin/go", "vet", "-overlay") and argv[4:] == ("-v", ".", "./api")
        replace = json.loads(Path(argv[3]).read_text())["Replace"]
        assert {Path(k).relative_to(repo.root.resolve()).as_posix(): Path(v).read_text()
                for k, v in replace.items()} == {"svc/api/h.go": "x", "svc/h.go": "y"}


@pytest.mark.parametrize(("version", "flags"), [
    ("golangci-lint has version 1.59.1 built with go1.22.3", ["--out-format=json"]),
    ("golangci-lint has version v2.0.2 built with go1.24.1",
     ["--output.json.path=stdout", "--show-stats=false"]),
    ("golangci-lint has version 2.1.6 built with go1.24.2",
     ["--output.json.path=stdout", "--show-stats=false", "--path-mode=abs"]),
])
def test_golangci_lint_flags_follow_the_version(tmp_path: Path, version: str,
                                                flags: list[str]) -> None:
    argv = ADAPTERS["golangci-lint"].command(_ctx(tmp_path, "golangci-lint", version), ["./x"])
    assert argv == ["run", *flags, "--issues-exit-code=0", "--max-issues-per-linter=0",
                    "--max-same-issues=0", "-v", "./x"]


def test_golangci_lint_mirror_keeps_module_and_package_context(repo: GitRepoBuilder) -> None:
    repo.write("go.mod", "module example.com/root\n")
    repo.write(".golangci.yml", "version: '2'\n")
    repo.write("pkg/a.go", "package pkg // disk\n")
    repo.write("pkg/b.go", "package pkg\n")
    repo.write("other/c.go", "package other\n")
    with Scratch() as scratch:
        [run] = ADAPTERS["golangci-lint"].plan(
            _ctx(repo.root, "golangci-lint"), [off_disk("pkg/a.go", "package pkg // new\n")],
            scratch)
        mirror = run.cwd
        assert not mirror.resolve().is_relative_to(repo.root.resolve())
        assert sorted(p.relative_to(mirror).as_posix() for p in mirror.rglob("*")
                      if p.is_file()) == [".golangci.yml", "go.mod", "pkg/a.go", "pkg/b.go"]
        assert (mirror / "pkg/a.go").read_text() == "package pkg // new\n"
        assert run.argv[-1] == "./pkg"
