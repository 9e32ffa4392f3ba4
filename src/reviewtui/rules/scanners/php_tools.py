"""The PHPStan adapter.

PHPStan without the project's configuration knows neither its autoloader nor its level, and
reports every class it cannot find, so it runs only with the repository's own ``phpstan.neon``
(or ``.neon.dist`` / ``.dist.neon``), and a repo-local ``vendor/bin/phpstan`` is preferred, as
``composer`` installs it. Content that is not on disk is analysed in PHPStan's editor mode:
``--tmp-file`` holds the content, ``--instead-of`` names the file it stands for, so the rest of
the project is the real one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from reviewtui.rules.scanners.base import (
    Adapter,
    Finding,
    Invocation,
    SkipTool,
    ToolContext,
    ToolOutput,
    as_int,
    chunked,
    expect,
    load_json,
    operand,
)
from reviewtui.rules.scanners.model import ScanTarget
from reviewtui.rules.scanners.workspace import Scratch, path_lookup

PHPSTAN_CONFIGS = ("phpstan.neon", "phpstan.neon.dist", "phpstan.dist.neon")


class Phpstan(Adapter):
    """``analyse --error-format=json``: ``{"totals", "files": {path: {"messages": [{message,
    line, identifier, tip}]}}, "errors": [...]}``. Every message is an error in PHPStan's own
    terms (it fails the build). Exit 0 clean, 1 errors found; anything else is a failure."""

    name = "phpstan"
    executable = "phpstan"
    local_executables = ("vendor/bin/phpstan",)
    version_args = ("--version",)
    config_files = (*PHPSTAN_CONFIGS, "composer.lock")
    ok_returncodes = frozenset({0, 1})

    def setup(self, root: Path) -> Path | None:
        for name in PHPSTAN_CONFIGS:
            if (root / name).is_file():
                return root / name
        raise SkipTool("no configuration (phpstan.neon)")

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return ["analyse", "--error-format=json", "--no-progress", "--no-interaction",
                f"--configuration={ctx.setup}", *ctx.config.extra_args, *files]

    def plan(self, ctx: ToolContext, targets: Sequence[ScanTarget],
             scratch: Scratch) -> list[Invocation]:
        runs = []
        on_disk = [t for t in targets if t.on_disk]
        for chunk in chunked(on_disk):
            rels = tuple(t.path for t in chunk)
            argv = (ctx.executable, *self.command(ctx, [operand(r) for r in rels]))
            runs.append(Invocation(argv, ctx.root, rels, path_lookup(ctx.root, rels)))
        for target in targets:
            if target.on_disk:
                continue
            backing = scratch.write(Path(target.path).name, target.content)
            lookup = path_lookup(ctx.root, (target.path,))
            lookup[os.path.realpath(backing)] = target.path
            argv = (ctx.executable, *self.command(ctx, [operand(target.path)]),
                    f"--tmp-file={backing}", f"--instead-of={ctx.root / target.path}")
            runs.append(Invocation(argv, ctx.root, (target.path,), lookup))
        return runs

    def parse(self, output: ToolOutput) -> list[Finding]:
        data = expect(load_json(output.stdout), dict, "phpstan report")
        findings = []
        files = expect(data.get("files") or {}, dict, "phpstan files")
        for key, entry in files.items():
            path = str(key).split(" (in context of ", 1)[0]  # a trait, analysed per user
            for item in expect((entry or {}).get("messages", []), list, "phpstan messages"):
                findings.append(Finding(
                    path=path, line=as_int(item.get("line")), column=1, severity="error",
                    message=str(item.get("message", "")),
                    rule_id=str(item.get("identifier") or "phpstan"),
                ))
        return findings
