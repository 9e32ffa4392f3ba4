"""The semgrep adapter: local rules only, never the registry, never telemetry.

semgrep applies to every language (the pseudo-language ``any``). It only runs when the
repository carries its own rules (``.semgrep.yml``, ``.semgrep.yaml`` or a ``.semgrep/``
directory), which are passed explicitly with ``--config``; metrics and the version check are
off. Content that is not on disk is scanned inside a temporary mirror, on repo-relative paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reviewtui.rules.scanners.base import (
    Adapter,
    Finding,
    SkipTool,
    ToolContext,
    ToolOutput,
    as_int,
    expect,
    load_json,
)
from reviewtui.rules.scanners.model import ScanTarget, normalise_severity

SEMGREP_CONFIGS = (".semgrep.yml", ".semgrep.yaml", ".semgrep")
_QUIET_LEVELS = frozenset({"INVENTORY", "EXPERIMENT"})


class Semgrep(Adapter):
    """``--json``: ``results[]`` with ``check_id``, ``path``, ``start`` {line, col} and
    ``extra`` {message, severity (ERROR/WARNING/INFO, or CRITICAL/HIGH/MEDIUM/LOW)}."""

    name = "semgrep"
    executable = "semgrep"
    python_module = True
    config_files = (".semgrepignore",)
    mirror_cwd = True  # relative paths keep rules' ``paths: include/exclude`` working

    def companions(self, root: Path, targets: Sequence[ScanTarget]) -> list[str]:
        return [".semgrepignore"]

    def setup(self, root: Path) -> Path | None:
        for name in SEMGREP_CONFIGS:
            if (root / name).exists():
                return root / name
        raise SkipTool("no local configuration")

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return ["scan", "--config", str(ctx.setup), "--metrics=off", "--disable-version-check",
                "--json", "--quiet", *ctx.config.extra_args, *files]

    def parse(self, output: ToolOutput) -> list[Finding]:
        data = expect(load_json(output.stdout), dict, "semgrep report")
        findings = []
        for item in expect(data.get("results", []), list, "semgrep results"):
            extra = item.get("extra") or {}
            start = item.get("start") or {}
            level = str(extra.get("severity", ""))
            severity = "info" if level.upper() in _QUIET_LEVELS else normalise_severity(level)
            findings.append(Finding(
                path=str(item.get("path", "")), line=as_int(start.get("line")),
                column=as_int(start.get("col")), severity=severity,
                message=str(extra.get("message", "")).strip(),
                rule_id=str(item.get("check_id") or "semgrep"),
            ))
        return findings
