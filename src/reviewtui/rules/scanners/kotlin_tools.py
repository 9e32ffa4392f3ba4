"""Adapters for Kotlin: ktlint and detekt.

ktlint checks the official Kotlin style (with the repository's ``.editorconfig``); a file it
cannot parse is an error, a style violation a warning. detekt finds code smells and likely bugs
with its default rule set, built upon with the repository's ``detekt.yml`` when there is one;
its Checkstyle-format report is written to standard output. Neither reads stdin: content that
is not on disk is scanned in a temporary mirror (with the ``.editorconfig``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reviewtui.rules.scanners.base import (
    Adapter,
    Finding,
    ToolContext,
    ToolOutput,
    as_int,
    expect,
    load_json,
)
from reviewtui.rules.scanners.jvm_tools import checkstyle_findings
from reviewtui.rules.scanners.model import ScanTarget

DETEKT_CONFIGS = ("detekt.yml", "detekt.yaml", "config/detekt/detekt.yml", ".detekt.yml")


class Ktlint(Adapter):
    """``--reporter=json``: ``[{"file", "errors": [{"line", "column", "message", "rule"}]}]``.
    A parse failure has no rule ("Not a valid Kotlin file"). Exit 1 when there are errors."""

    name = "ktlint"
    executable = "ktlint"
    version_args = ("--version",)
    config_files = (".editorconfig",)
    mirror_cwd = True

    def companions(self, root: Path, targets: Sequence[ScanTarget]) -> list[str]:
        return [".editorconfig"]

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return ["--reporter=json", *ctx.config.extra_args, *files]

    def parse(self, output: ToolOutput) -> list[Finding]:
        if not output.stdout.strip():
            return []
        findings = []
        for entry in expect(load_json(output.stdout), list, "ktlint report"):
            for error in expect(entry.get("errors", []), list, "ktlint errors"):
                rule = str(error.get("rule") or "")
                findings.append(Finding(
                    path=str(entry.get("file", "")), line=as_int(error.get("line")),
                    column=as_int(error.get("column")),
                    severity="warning" if rule else "error",
                    message=str(error.get("message", "")), rule_id=rule or "parse-error",
                ))
        return findings


class Detekt(Adapter):
    """``--report xml:/dev/stdout``: a Checkstyle report among detekt's console output, with
    each rule's configured severity. Exit 2 means "issues above the build threshold", 0 none;
    1 (crash) and 3 (invalid configuration) are failures."""

    name = "detekt"
    executable = "detekt"
    executable_alternatives = ("detekt-cli",)
    version_args = ("--version",)
    config_files = DETEKT_CONFIGS
    ok_returncodes = frozenset({0, 2})
    mirror_cwd = True

    def setup(self, root: Path) -> Path | None:
        for name in DETEKT_CONFIGS:
            if (root / name).is_file():
                return root / name
        return None

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        config = (["--config", str(ctx.setup), "--build-upon-default-config"]
                  if ctx.setup else [])
        return ["--input", ",".join(files), "--report", "xml:/dev/stdout", *config,
                *ctx.config.extra_args]

    def parse(self, output: ToolOutput) -> list[Finding]:
        return checkstyle_findings(output.stdout, self.name)
