"""The RuboCop adapter.

RuboCop reads one file from stdin under a given name (``--stdin FILE``), so content that is not
on disk is still checked with the repository's ``.rubocop.yml``. Its own result cache is turned
off, and ``--force-exclusion`` keeps files the configuration excludes out even when named.
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewtui.rules.scanners.base import (
    Adapter,
    Finding,
    ToolContext,
    ToolOutput,
    as_int,
    expect,
    load_json,
)
from reviewtui.rules.scanners.model import normalise_severity


class Rubocop(Adapter):
    """``--format json``: ``files[].offenses[]`` with ``severity`` (info, refactor, convention,
    warning, error, fatal), ``cop_name`` and a 1-based ``location``. Exit 2 is a failure."""

    name = "rubocop"
    executable = "rubocop"
    reads_stdin = True
    config_files = (".rubocop.yml", ".rubocop_todo.yml")
    _BASE = ("--format", "json", "--force-exclusion", "--cache", "false")

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return [*self._BASE, *ctx.config.extra_args, *files]

    def stdin_command(self, ctx: ToolContext, path: str) -> list[str]:
        return [*self._BASE, *ctx.config.extra_args, "--stdin", path]

    def parse(self, output: ToolOutput) -> list[Finding]:
        data = expect(load_json(output.stdout), dict, "rubocop report")
        findings = []
        for file in expect(data.get("files", []), list, "rubocop files"):
            for offense in expect(file.get("offenses", []), list, "rubocop offenses"):
                location = offense.get("location") or {}
                cop = str(offense.get("cop_name") or "rubocop")
                message = str(offense.get("message", "")).removeprefix(f"{cop}: ")
                findings.append(Finding(
                    path=str(file.get("path", "")),
                    line=as_int(location.get("start_line", location.get("line"))),
                    column=as_int(location.get("start_column", location.get("column"))),
                    severity=normalise_severity(str(offense.get("severity", ""))),
                    message=message, rule_id=cop,
                ))
        return findings
