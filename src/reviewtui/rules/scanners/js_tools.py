"""The ESLint adapter (JavaScript, TypeScript, TSX).

ESLint without a configuration either fails (v9: no ``eslint.config.*``) or lints with nothing
enabled, so it only runs when the repository has one. A repo-local ``node_modules/.bin/eslint``
is preferred over one on PATH, as ``npx`` would. Messages about ignored files are dropped.
"""

from __future__ import annotations

import json
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

FLAT_CONFIGS = tuple(f"eslint.config.{ext}" for ext in ("js", "mjs", "cjs", "ts", "mts", "cts"))
LEGACY_CONFIGS = tuple(f".eslintrc{ext}" for ext in ("", ".js", ".cjs", ".yaml", ".yml", ".json"))
_SEVERITY = {2: "error", 1: "warning"}


def _package_json_config(root: Path) -> bool:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and "eslintConfig" in data


def find_eslint_config(root: Path) -> Path | None:
    for name in (*FLAT_CONFIGS, *LEGACY_CONFIGS):
        if (root / name).is_file():
            return root / name
    return root / "package.json" if _package_json_config(root) else None


class Eslint(Adapter):
    """``-f json``: one entry per file with ``messages`` (severity 2 error, 1 warning)."""

    name = "eslint"
    executable = "eslint"
    local_executables = ("node_modules/.bin/eslint",)
    reads_stdin = True
    config_files = (*FLAT_CONFIGS, *LEGACY_CONFIGS, "package.json", ".eslintignore")
    # 0: clean, 1: lint errors, 2: configuration problem or crash

    def setup(self, root: Path) -> Path | None:
        config = find_eslint_config(root)
        if config is None:
            raise SkipTool("no configuration")
        return config

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return ["-f", "json", "--no-color", *ctx.config.extra_args, *files]

    def stdin_command(self, ctx: ToolContext, path: str) -> list[str]:
        return ["-f", "json", "--no-color", *ctx.config.extra_args, "--stdin",
                "--stdin-filename", path]

    def parse(self, output: ToolOutput) -> list[Finding]:
        findings = []
        for entry in expect(load_json(output.stdout), list, "eslint results"):
            path = str(entry.get("filePath", ""))
            for message in expect(entry.get("messages", []), list, "eslint messages"):
                rule = message.get("ruleId")
                text = str(message.get("message", ""))
                if rule is None and text.startswith("File ignored"):
                    continue
                severity = _SEVERITY.get(as_int(message.get("severity"), 1), "warning")
                if message.get("fatal"):
                    severity = "error"
                findings.append(Finding(
                    path=path, line=as_int(message.get("line")),
                    column=as_int(message.get("column")), severity=severity, message=text,
                    rule_id=str(rule or ("parse-error" if message.get("fatal") else "eslint")),
                ))
        return findings
