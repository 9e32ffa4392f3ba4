"""Adapters for the Python linters: ruff, pylint, flake8, mypy and bandit.

Everything but mypy reads a single file from stdin under its repo-relative name, so content that
is not on disk is scanned with the repository's configuration. mypy reads files only: it gets a
``--shadow-file`` when the path exists on disk (keeping the real package context) and a mirror
otherwise. Column numbers are converted to 1-based where a format counts from 0.
"""

from __future__ import annotations

import os
import re
import tomllib
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
    operand,
    pyflakes_severity,
)
from reviewtui.rules.scanners.model import ScanTarget, normalise_severity
from reviewtui.rules.scanners.workspace import Scratch, path_lookup

_PYPROJECT = "pyproject.toml"


class Ruff(Adapter):
    """``ruff check`` JSON. Ruff's own "severity" field says "error" for every rule, so the
    code decides (see ``pyflakes_severity``)."""

    name = "ruff"
    executable = "ruff"
    python_module = True
    reads_stdin = True
    config_files = (_PYPROJECT, "ruff.toml", ".ruff.toml")
    _BASE = ("check", "--output-format", "json", "--no-fix", "--exit-zero", "--no-cache",
             "--force-exclude", "--quiet")

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return [*self._BASE, *ctx.config.extra_args, *files]

    def stdin_command(self, ctx: ToolContext, path: str) -> list[str]:
        return [*self._BASE, *ctx.config.extra_args, "--stdin-filename", path, "-"]

    def parse(self, output: ToolOutput) -> list[Finding]:
        if not output.stdout.strip():
            return []
        findings = []
        for item in expect(load_json(output.stdout), list, "ruff output"):
            code = item.get("code") or None
            location = item.get("location") or {}
            findings.append(Finding(
                path=str(item.get("filename") or ""), line=as_int(location.get("row")),
                column=as_int(location.get("column")), severity=pyflakes_severity(code),
                message=str(item.get("message", "")), rule_id=code or "invalid-syntax",
            ))
        return findings


class Pylint(Adapter):
    """``--output-format=json`` (a list) or ``json2`` (``{"messages": [...]}``); 0-based columns.
    The exit code is a bit mask of message categories, 32 means a usage error."""

    name = "pylint"
    executable = "pylint"
    python_module = True
    reads_stdin = True
    config_files = (_PYPROJECT, "setup.cfg", "tox.ini", ".pylintrc", "pylintrc", ".pylintrc.toml")
    ok_returncodes = frozenset(range(32))
    _BASE = ("--output-format=json", "--persistent=n", "--score=n")

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return [*self._BASE, *ctx.config.extra_args, *files]

    def stdin_command(self, ctx: ToolContext, path: str) -> list[str]:
        return [*self._BASE, *ctx.config.extra_args, "--from-stdin", operand(path)]

    def parse(self, output: ToolOutput) -> list[Finding]:
        if not output.stdout.strip() and output.returncode == 0:
            return []
        data = load_json(output.stdout)
        if isinstance(data, dict):
            data = data.get("messages")
        findings = []
        for item in expect(data, list, "pylint messages"):
            rule = item.get("message-id") or item.get("messageId") or item.get("symbol") or ""
            findings.append(Finding(
                path=str(item.get("path") or item.get("absolutePath") or ""),
                line=as_int(item.get("line")), column=as_int(item.get("column"), 0) + 1,
                severity=normalise_severity(str(item.get("type", ""))),
                message=str(item.get("message", "")), rule_id=str(rule),
            ))
        return findings


_FLAKE8_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) "
                          r"(?P<msg>.*)$")


class Flake8(Adapter):
    """The default format, forced on the command line: ``path:line:col: CODE message``."""

    name = "flake8"
    executable = "flake8"
    python_module = True
    reads_stdin = True
    config_files = (".flake8", "setup.cfg", "tox.ini")

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return ["--format=default", *ctx.config.extra_args, *files]

    def stdin_command(self, ctx: ToolContext, path: str) -> list[str]:
        return ["--format=default", *ctx.config.extra_args, "--stdin-display-name", path, "-"]

    def parse(self, output: ToolOutput) -> list[Finding]:
        findings = []
        for line in output.stdout.splitlines():
            match = _FLAKE8_LINE.match(line.rstrip())
            if match:
                code = match["code"]
                findings.append(Finding(match["path"], int(match["line"]), int(match["col"]),
                                        pyflakes_severity(code), match["msg"], code))
        if not findings and (output.stdout.strip() or output.returncode != 0):
            raise OutputError("no flake8 report lines in output")
        return findings


_MYPY_LINE = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<sev>error|warning|note): "
    r"(?P<msg>.*?)(?:  \[(?P<code>[\w-]+)\])?$"
)
_MYPY_JSON_SINCE = (1, 11)


def _mypy_version(version: str) -> tuple[int, int] | None:
    match = re.search(r"(\d+)\.(\d+)", version)
    return (int(match[1]), int(match[2])) if match else None


class Mypy(Adapter):
    """``--output json`` (mypy >= 1.11, 0-based columns) or the classic text lines.

    mypy checks files, never stdin, and would write ``.mypy_cache`` into the repository:
    ``--cache-dir`` points at the null device.
    """

    name = "mypy"
    executable = "mypy"
    python_module = True
    version_args = ("--version",)
    config_files = ("mypy.ini", ".mypy.ini", _PYPROJECT, "setup.cfg")

    def _base(self, ctx: ToolContext) -> list[str]:
        args = ["--cache-dir", os.devnull, "--show-column-numbers", "--show-error-codes",
                "--no-error-summary", "--no-color-output", "--no-pretty"]
        version = _mypy_version(ctx.version)
        if version is not None and version >= _MYPY_JSON_SINCE:
            args += ["--output", "json"]
        return args

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return [*self._base(ctx), *ctx.config.extra_args, *files]

    def companions(self, root: Path, targets: Sequence[ScanTarget]) -> list[str]:
        """The ``__init__.py`` files above each target, so relative imports still resolve."""
        found: set[str] = set()
        for target in targets:
            for parent in PurePosixPath(target.path).parents:
                init = (parent / "__init__.py").as_posix()
                if parent.as_posix() != "." and (root / init).is_file():
                    found.add(init)
        return sorted(found)

    def plan(self, ctx: ToolContext, targets: Sequence[ScanTarget],
             scratch: Scratch) -> list[Invocation]:
        in_place = [t for t in targets if t.on_disk or (ctx.root / t.path).is_file()]
        placed = {t.path for t in in_place}
        new = [t for t in targets if t.path not in placed]
        runs = super().plan(ctx, new, scratch) if new else []
        if in_place:
            shadows: list[str] = []
            for target in in_place:
                if not target.on_disk:
                    shadow = scratch.write(PurePosixPath(target.path).name, target.content)
                    shadows += ["--shadow-file", operand(target.path), str(shadow)]
            rels = tuple(t.path for t in in_place)
            argv = (ctx.executable, *self._base(ctx), *shadows, *ctx.config.extra_args,
                    *(operand(rel) for rel in rels))
            runs.append(Invocation(argv, ctx.root, rels, path_lookup(ctx.root, rels)))
        return runs

    def parse(self, output: ToolOutput) -> list[Finding]:
        findings: list[Finding] = []
        previous: tuple[str, int] | None = None
        for line in output.stdout.splitlines():
            if line.startswith("{"):
                findings.append(self._json_finding(line))
                continue
            match = _MYPY_LINE.match(line.rstrip())
            if not match:
                continue
            where = (match["path"], int(match["line"]))
            if match["sev"] == "note" and where == previous:
                continue  # a hint that belongs to the error just above
            previous = where
            findings.append(Finding(match["path"], int(match["line"]), as_int(match["col"]),
                                    normalise_severity(match["sev"]), match["msg"],
                                    match["code"] or "misc"))
        if not findings and output.returncode != 0:
            raise OutputError("no mypy report lines in output")
        return findings

    @staticmethod
    def _json_finding(line: str) -> Finding:
        item = expect(load_json(line), dict, "mypy message")
        return Finding(
            path=str(item.get("file", "")), line=as_int(item.get("line")),
            column=as_int(item.get("column"), 0) + 1,
            severity=normalise_severity(str(item.get("severity", ""))),
            message=str(item.get("message", "")), rule_id=str(item.get("code") or "misc"),
        )


def _has_bandit_section(root: Path) -> bool:
    try:
        data = tomllib.loads((root / _PYPROJECT).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    tool = data.get("tool")
    return isinstance(tool, dict) and "bandit" in tool


class Bandit(Adapter):
    """``-f json``; severity from ``issue_severity`` (HIGH/MEDIUM/LOW), 0-based ``col_offset``.
    A ``[tool.bandit]`` table in pyproject.toml is passed with ``-c``."""

    name = "bandit"
    executable = "bandit"
    python_module = True
    reads_stdin = True
    config_files = (_PYPROJECT, ".bandit")

    def setup(self, root: Path) -> Path | None:
        return root / _PYPROJECT if _has_bandit_section(root) else None

    def _base(self, ctx: ToolContext) -> list[str]:
        config = ["-c", str(ctx.setup)] if ctx.setup is not None else []
        return ["-f", "json", "-q", *config, *ctx.config.extra_args]

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return [*self._base(ctx), *files]

    def stdin_command(self, ctx: ToolContext, path: str) -> list[str]:
        return [*self._base(ctx), "-"]

    def parse(self, output: ToolOutput) -> list[Finding]:
        data = expect(load_json(output.stdout), dict, "bandit report")
        findings = []
        for item in expect(data.get("results", []), list, "bandit results"):
            findings.append(Finding(
                path=str(item.get("filename", "")), line=as_int(item.get("line_number")),
                column=as_int(item.get("col_offset"), 0) + 1,
                severity=normalise_severity(str(item.get("issue_severity", ""))),
                message=str(item.get("issue_text", "")),
                rule_id=str(item.get("test_id") or item.get("test_name") or "bandit"),
            ))
        return findings
