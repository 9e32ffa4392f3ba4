"""Adapters for Java: Checkstyle and PMD 7.

Neither tool has a sensible built-in rule set for an arbitrary project, so both only run with
the repository's own configuration (and are skipped otherwise). Neither reads stdin: content
that is not on disk is scanned from a temporary mirror.
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
    xml_report,
)
from reviewtui.rules.scanners.model import normalise_severity

CHECKSTYLE_CONFIGS = ("checkstyle.xml", "config/checkstyle/checkstyle.xml")
PMD_RULESETS = ("ruleset.xml", "pmd.xml", "config/pmd/ruleset.xml")


def _first_existing(root: Path, names: Sequence[str], reason: str) -> Path:
    for name in names:
        if (root / name).is_file():
            return root / name
    raise SkipTool(reason)


def checkstyle_findings(text: str, tool: str) -> list[Finding]:
    """The findings of a Checkstyle XML report inside ``text`` (other output around it is
    ignored): ``<checkstyle><file name><error line column severity message source/>``. detekt
    writes the same format."""
    report = xml_report(text, "checkstyle", "checkstyle")
    findings = []
    for file in report.iter("file"):
        for error in file.iter("error"):
            source = error.get("source", "")
            findings.append(Finding(
                path=file.get("name", ""), line=as_int(error.get("line")),
                column=as_int(error.get("column")),
                severity=normalise_severity(error.get("severity", "")),
                message=error.get("message", ""),
                rule_id=source.rsplit(".", 1)[-1].removesuffix("Check") or tool,
            ))
    return findings


class Checkstyle(Adapter):
    """``-f xml``: ``<checkstyle><file name><error line column severity message source/>``.
    The exit code is the number of errors, so it says nothing; the XML must parse."""

    name = "checkstyle"
    executable = "checkstyle"
    config_files = CHECKSTYLE_CONFIGS
    ok_returncodes = None

    def setup(self, root: Path) -> Path | None:
        return _first_existing(root, CHECKSTYLE_CONFIGS, "no configuration (checkstyle.xml)")

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return ["-c", str(ctx.setup), "-f", "xml", *ctx.config.extra_args, *files]

    def parse(self, output: ToolOutput) -> list[Finding]:
        return checkstyle_findings(output.stdout, self.name)


_PMD_PRIORITY = {1: "error", 2: "error", 3: "warning", 4: "info", 5: "info"}


class Pmd(Adapter):
    """PMD 7 ``pmd check -f json``: ``files[].violations[]`` with ``priority`` 1 (high) to 5
    (low); files PMD could not parse are listed under ``processingErrors`` and become errors.
    Exit codes: 0 clean, 4 violations, 5 recoverable errors; 1 and 2 are failures."""

    name = "pmd"
    executable = "pmd"
    config_files = PMD_RULESETS
    ok_returncodes = frozenset({0, 4, 5})

    def setup(self, root: Path) -> Path | None:
        return _first_existing(root, PMD_RULESETS, "no configuration (ruleset.xml)")

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return ["check", "--no-cache", "--no-progress", "-f", "json", "-R", str(ctx.setup),
                *ctx.config.extra_args, "-d", ",".join(files)]

    def parse(self, output: ToolOutput) -> list[Finding]:
        data = expect(load_json(output.stdout), dict, "pmd report")
        findings = []
        for file in expect(data.get("files", []), list, "pmd files"):
            for item in expect(file.get("violations", []), list, "pmd violations"):
                findings.append(Finding(
                    path=str(file.get("filename", "")), line=as_int(item.get("beginline")),
                    column=as_int(item.get("begincolumn")),
                    severity=_PMD_PRIORITY.get(as_int(item.get("priority"), 3), "warning"),
                    message=str(item.get("description", "")),
                    rule_id=str(item.get("rule") or "pmd"),
                ))
        for error in expect(data.get("processingErrors", []), list, "pmd processing errors"):
            findings.append(Finding(
                path=str(error.get("filename", "")), line=1, column=1, severity="error",
                message=str(error.get("message", "")), rule_id="processing-error",
            ))
        return findings
