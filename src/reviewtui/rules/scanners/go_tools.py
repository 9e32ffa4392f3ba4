"""Adapters for Go: ``go vet`` and golangci-lint.

Both work on packages, not files: targets are grouped by their module (the nearest ``go.mod``)
and the tool runs there on the target packages; only findings in target files are kept. Content
that is not on disk reaches ``go vet`` through the go command's ``-overlay`` file, so the rest of
the package is the real one. golangci-lint has no overlay: it runs in a mirror holding the
module's ``go.mod``/``go.sum``, its configuration, the targets and their sibling files from disk.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from reviewtui.rules.scanners.base import (
    Adapter,
    Finding,
    Invocation,
    OutputError,
    ToolContext,
    ToolOutput,
    as_int,
    expect,
    load_json,
)
from reviewtui.rules.scanners.model import ScanTarget, normalise_severity
from reviewtui.rules.scanners.workspace import Scratch, path_lookup

GOLANGCI_CONFIGS = tuple(f".golangci.{ext}" for ext in ("yml", "yaml", "toml", "json"))
_GO_LINE = re.compile(r"^(?P<vet>vet: )?(?P<path>[^\s#][^:]*?\.go):(?P<line>\d+)"
                      r"(?::(?P<col>\d+))?: (?P<msg>.+)$")
_VERSION = re.compile(r"version v?(\d+)\.(\d+)")


def module_of(root: Path, path: str) -> str:
    """The repo-relative directory of the nearest ``go.mod`` above ``path`` ("" = the root)."""
    for parent in PurePosixPath(path).parents:
        rel = parent.as_posix()
        if rel != "." and (root / rel / "go.mod").is_file():
            return rel
    return ""


def by_module(root: Path, targets: Sequence[ScanTarget]) -> dict[str, list[ScanTarget]]:
    groups: dict[str, list[ScanTarget]] = {}
    for target in targets:
        groups.setdefault(module_of(root, target.path), []).append(target)
    return groups


def package_patterns(module: str, targets: Sequence[ScanTarget]) -> list[str]:
    """``./dir`` patterns, relative to the module, for the packages holding the targets."""
    patterns = set()
    for target in targets:
        directory = PurePosixPath(target.path).parent
        rel = directory.relative_to(module).as_posix() if module else directory.as_posix()
        patterns.add("." if rel == "." else f"./{rel}")
    return sorted(patterns)


class GoVet(Adapter):
    """``go vet`` diagnostics on stderr: ``path:line:col: message``; type errors come as
    ``vet: path:line:col: message`` and are errors, the analyzers' reports warnings."""

    name = "go-vet"
    executable = "go"
    version_args = ("version",)
    config_files = ("go.mod", "go.sum", "go.work")
    ok_returncodes = frozenset({0, 1, 2})  # the output decides: diagnostics or a go error

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return ["vet", *ctx.config.extra_args, *files]

    def plan(self, ctx: ToolContext, targets: Sequence[ScanTarget],
             scratch: Scratch) -> list[Invocation]:
        runs = []
        for module, items in sorted(by_module(ctx.root, targets).items()):
            replace = {}
            for target in items:
                if not target.on_disk:
                    backing = scratch.write(PurePosixPath(target.path).name, target.content)
                    replace[os.path.realpath(ctx.root / target.path)] = str(backing)
            overlay: list[str] = []
            if replace:
                file = scratch.write("overlay.json", json.dumps({"Replace": replace}).encode())
                overlay = ["-overlay", str(file)]
            rels = tuple(t.path for t in items)
            argv = (ctx.executable, "vet", *overlay, *ctx.config.extra_args,
                    *package_patterns(module, items))
            runs.append(Invocation(argv, ctx.root / module, rels, path_lookup(ctx.root, rels),
                                   bases=(ctx.root,)))
        return runs

    def parse(self, output: ToolOutput) -> list[Finding]:
        findings = []
        for line in (output.stderr + "\n" + output.stdout).splitlines():
            match = _GO_LINE.match(line.rstrip())
            if match:
                findings.append(Finding(
                    path=match["path"], line=int(match["line"]), column=as_int(match["col"]),
                    severity="error" if match["vet"] else "warning", message=match["msg"],
                    rule_id="typecheck" if match["vet"] else "vet",
                ))
        if not findings and output.returncode != 0:
            raise OutputError("no go vet diagnostics in output")
        return findings


def _golangci_version(version: str) -> tuple[int, int]:
    match = _VERSION.search(version)
    return (int(match[1]), int(match[2])) if match else (2, 0)


class GolangciLint(Adapter):
    """``run`` with JSON output: v1 ``--out-format=json``, v2 ``--output.json.path=stdout``.
    Both print ``{"Issues": [{"FromLinter", "Text", "Severity", "Pos": {...}}], "Report": ...}``
    (``Issues`` may be null); exit code 5 means "no Go files"."""

    name = "golangci-lint"
    executable = "golangci-lint"
    version_args = ("--version",)
    config_files = (*GOLANGCI_CONFIGS, "go.mod", "go.sum")
    ok_returncodes = frozenset({0, 5})

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        major, minor = _golangci_version(ctx.version)
        if major >= 2:
            output = ["--output.json.path=stdout", "--show-stats=false"]
            if minor >= 1:
                output.append("--path-mode=abs")
        else:
            output = ["--out-format=json"]
        return ["run", *output, "--issues-exit-code=0", "--max-issues-per-linter=0",
                "--max-same-issues=0", *ctx.config.extra_args, *files]

    def companions(self, root: Path, targets: Sequence[ScanTarget]) -> list[str]:
        found: set[str] = set()
        for module in {module_of(root, t.path) for t in targets} | {""}:
            for name in ("go.mod", "go.sum", *GOLANGCI_CONFIGS):
                found.add(f"{module}/{name}" if module else name)
        for directory in {PurePosixPath(t.path).parent for t in targets}:
            for sibling in (root / directory).glob("*.go"):
                found.add((directory / sibling.name).as_posix())
        return sorted(found)

    def plan(self, ctx: ToolContext, targets: Sequence[ScanTarget],
             scratch: Scratch) -> list[Invocation]:
        runs = []
        for module, items in sorted(by_module(ctx.root, targets).items()):
            base = ctx.root
            if not all(t.on_disk for t in items):
                base = scratch.mirror(ctx.root, items, self.companions(ctx.root, items))
            rels = tuple(t.path for t in items)
            argv = (ctx.executable, *self.command(ctx, package_patterns(module, items)))
            runs.append(Invocation(argv, base / module, rels, path_lookup(base, rels),
                                   bases=(base,)))
        return runs

    def parse(self, output: ToolOutput) -> list[Finding]:
        if output.returncode == 5:
            return []
        data = expect(load_json(output.stdout), dict, "golangci-lint report")
        findings = []
        for item in expect(data.get("Issues") or [], list, "golangci-lint issues"):
            pos = item.get("Pos") or {}
            linter = str(item.get("FromLinter") or "golangci-lint")
            raw = str(item.get("Severity") or "")
            severity = "error" if linter == "typecheck" else (
                normalise_severity(raw) if raw else "warning")
            findings.append(Finding(
                path=str(pos.get("Filename", "")), line=as_int(pos.get("Line")),
                column=as_int(pos.get("Column")), severity=severity,
                message=str(item.get("Text", "")), rule_id=linter,
            ))
        return findings
