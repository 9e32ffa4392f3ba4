"""Adapters for C and C++: cppcheck and clang-tidy.

cppcheck needs nothing but the files (it does not resolve includes to analyse), so it runs on
every changed C/C++ file; content not on disk is scanned in a mirror. clang-tidy is a compiler
front end: without the project's compile flags every include it cannot find is an error, so it
runs only when the repository has a compilation database (``compile_commands.json`` at the root
or in ``build/``), and content not on disk reaches it through a virtual file system overlay, so
the rest of the project (headers, flags) is the real one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

from reviewtui.rules.scanners.base import (
    Adapter,
    Finding,
    Invocation,
    OutputError,
    SkipTool,
    ToolContext,
    ToolOutput,
    as_int,
    chunked,
    operand,
    xml_report,
)
from reviewtui.rules.scanners.model import ScanTarget
from reviewtui.rules.scanners.workspace import Scratch, path_lookup

COMPILE_DATABASES = ("compile_commands.json", "build/compile_commands.json",
                     "out/compile_commands.json", "builddir/compile_commands.json")
CPPCHECK_SUPPRESSIONS = (".cppcheck-suppressions", "cppcheck-suppressions.txt")
# cppcheck reports about itself, not about the code: missing system headers, its checker list
_CPPCHECK_NOISE = frozenset({"missingInclude", "missingIncludeSystem", "checkersReport",
                             "toomanyconfigs", "unmatchedSuppression", "noValidConfiguration",
                             "normalCheckLevelMaxBranches", "unknownMacro"})
_CPPCHECK_SEVERITY = {"error": "error", "warning": "warning", "style": "info",
                      "performance": "info", "portability": "info", "information": "info"}
_TIDY_LINE = re.compile(r"^(?P<path>[^\s:][^:]*?):(?P<line>\d+):(?P<col>\d+): "
                        r"(?P<level>error|warning|note|remark): (?P<msg>.*?)"
                        r"(?: \[(?P<check>[\w.,+-]+)\])?$")


class Cppcheck(Adapter):
    """``--xml`` (version 2) on stderr: ``<error id severity msg><location file line column/>``;
    the first location is the finding's. error -> error, warning -> warning, style /
    performance / portability / information -> info. The exit code is 0 unless cppcheck
    itself fails (bad arguments, unreadable files)."""

    name = "cppcheck"
    executable = "cppcheck"
    version_args = ("--version",)
    config_files = CPPCHECK_SUPPRESSIONS
    ok_returncodes = frozenset({0})
    mirror_cwd = True

    def setup(self, root: Path) -> Path | None:
        for name in CPPCHECK_SUPPRESSIONS:
            if (root / name).is_file():
                return root / name
        return None

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        suppressions = [f"--suppressions-list={ctx.setup}"] if ctx.setup else []
        return ["--enable=warning,style,performance,portability", "--inline-suppr", "--quiet",
                "--xml", "--xml-version=2", *suppressions, *ctx.config.extra_args, *files]

    def parse(self, output: ToolOutput) -> list[Finding]:
        text = output.stderr if "<results" in output.stderr else output.stdout
        report = xml_report(text, "results", "cppcheck")
        findings = []
        for error in report.iter("error"):
            rule = error.get("id", "cppcheck")
            location = error.find("location")
            if rule in _CPPCHECK_NOISE or location is None:
                continue
            findings.append(Finding(
                path=location.get("file", ""), line=as_int(location.get("line")),
                column=as_int(location.get("column")),
                severity=_CPPCHECK_SEVERITY.get(error.get("severity", ""), "warning"),
                message=error.get("msg", ""), rule_id=rule,
            ))
        return findings


def compile_database(root: Path) -> Path | None:
    for name in COMPILE_DATABASES:
        if (root / name).is_file():
            return root / name
    return None


class ClangTidy(Adapter):
    """Diagnostics on stdout: ``path:line:col: warning: message [check-name]``; notes that
    explain a diagnostic are left out. Exit 1 with compiler errors (they are findings too);
    a failure prints no diagnostic at all."""

    name = "clang-tidy"
    executable = "clang-tidy"
    version_args = ("--version",)
    config_files = (".clang-tidy", *COMPILE_DATABASES)
    ok_returncodes = frozenset({0, 1})

    def setup(self, root: Path) -> Path | None:
        database = compile_database(root)
        if database is None:
            raise SkipTool("no compilation database (compile_commands.json)")
        return database

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        assert ctx.setup is not None
        return ["-p", str(ctx.setup.parent), "--quiet", *ctx.config.extra_args, *files]

    def plan(self, ctx: ToolContext, targets: Sequence[ScanTarget],
             scratch: Scratch) -> list[Invocation]:
        """Every target at its real path; content not on disk through ``--vfsoverlay``."""
        runs = []
        for chunk in chunked(targets):
            rels = tuple(t.path for t in chunk)
            lookup = path_lookup(ctx.root, rels)
            folders: dict[str, list[dict[str, str]]] = {}
            for target in chunk:
                if target.on_disk:
                    continue
                real = Path(os.path.realpath(ctx.root / target.path))
                backing = scratch.write(real.name, target.content)
                lookup[os.path.realpath(backing)] = target.path
                folders.setdefault(str(real.parent), []).append(
                    {"name": real.name, "type": "file", "external-contents": str(backing)})
            overlay: list[str] = []
            if folders:
                spec = {"version": 0, "use-external-names": False, "roots": [
                    {"name": name, "type": "directory", "contents": contents}
                    for name, contents in sorted(folders.items())]}
                file = scratch.write("overlay.yaml", json.dumps(spec).encode())
                overlay = [f"--vfsoverlay={file}"]
            argv = (ctx.executable, *overlay,
                    *self.command(ctx, [operand(rel) for rel in rels]))
            runs.append(Invocation(argv, ctx.root, rels, lookup))
        return runs

    def parse(self, output: ToolOutput) -> list[Finding]:
        findings = []
        for line in output.stdout.splitlines():
            match = _TIDY_LINE.match(line.rstrip())
            if match is None or match["level"] in ("note", "remark"):
                continue
            check = match["check"] or "clang-diagnostic"
            findings.append(Finding(
                path=match["path"], line=int(match["line"]), column=int(match["col"]),
                severity="error" if match["level"] == "error" else "warning",
                message=match["msg"], rule_id=check.split(",")[0],
            ))
        if not findings and output.returncode != 0:
            raise OutputError("no clang-tidy diagnostics in output")
        return findings
