"""The ``cargo clippy`` adapter (Rust).

Clippy works on crates, not files: targets are grouped by their crate (the nearest
``Cargo.toml``) and clippy runs once per crate, offline (no registry access: dependencies must
already be in cargo's cache), with its build directory in reviewtui's cache rather than the
repository's ``target/``. Only findings in target files are kept. Content that is not on disk is
checked in a mirror of the workspace's Rust sources (``.rs``, manifests, lock file) with the
targets' content, so the rest of the crate is the one on disk; so is a workspace without a
``Cargo.lock``, which cargo would otherwise write into the repository. Cargo replays the
diagnostics of an unchanged crate from its build directory, so a second run is quick.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tomllib
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from reviewtui.config import user_cache_dir
from reviewtui.rules.scanners.base import (
    Adapter,
    Finding,
    Invocation,
    OutputError,
    SkipTool,
    ToolContext,
    ToolOutput,
    as_int,
)
from reviewtui.rules.scanners.model import ScanTarget
from reviewtui.rules.scanners.workspace import Scratch, path_lookup

_MIRRORED = (".rs", ".toml", ".lock")
_SKIPPED_DIRS = frozenset({"target", ".git", "node_modules", ".venv", "__pycache__"})
_MAX_MIRRORED = 20000
_SEVERITY = {"error": "error", "warning": "warning", "note": "info", "help": "info"}


def crate_of(root: Path, path: str) -> str | None:
    """The repo-relative directory of the nearest ``Cargo.toml`` above ``path`` ("" = root)."""
    for parent in PurePosixPath(path).parents:
        rel = "" if parent.as_posix() == "." else parent.as_posix()
        if (root / rel / "Cargo.toml").is_file():
            return rel
    return None


def _is_workspace(manifest: Path) -> bool:
    try:
        return "workspace" in tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False


def workspace_of(root: Path, crate: str) -> str:
    """The outermost directory at or above ``crate`` whose manifest has ``[workspace]``."""
    found = crate
    for parent in (PurePosixPath(crate), *PurePosixPath(crate).parents):
        rel = "" if parent.as_posix() == "." else parent.as_posix()
        if _is_workspace(root / rel / "Cargo.toml"):
            found = rel
    return found


def target_dir(root: Path, crate: str) -> Path:
    """Clippy's build directory for this crate: in the user's cache, never the repository."""
    key = hashlib.sha256(f"{os.path.realpath(root)}\0{crate}".encode()).hexdigest()[:20]
    return user_cache_dir() / "cargo-target" / key


def _rust_files(root: Path, top: str) -> Iterator[str]:
    count = 0
    for folder, dirs, files in os.walk(root / top):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith(_MIRRORED):
                count += 1
                if count > _MAX_MIRRORED:
                    return
                yield Path(os.path.relpath(Path(folder) / name, root)).as_posix()


class Clippy(Adapter):
    """``cargo clippy --message-format=json``: one JSON object per line; the
    ``compiler-message`` ones carry ``message`` {level, message, code {code}, spans[] with
    ``is_primary``, ``file_name`` (relative to the workspace), ``line_start``,
    ``column_start``}. Exit 101 when the crate does not compile (its errors are findings) or
    cargo fails (no finding at all: an error)."""

    name = "clippy"
    executable = "cargo"
    version_args = ("clippy", "--version")
    config_files = ("clippy.toml", ".clippy.toml", "Cargo.toml", "Cargo.lock",
                    "rust-toolchain", "rust-toolchain.toml")
    ok_returncodes = frozenset({0, 101})

    def setup(self, root: Path) -> Path | None:
        if shutil.which("cargo-clippy") is None:
            raise SkipTool("not installed (cargo-clippy)")
        return None

    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        return ["clippy", "--message-format=json", "--quiet", "--offline",
                *ctx.config.extra_args]

    def companions(self, root: Path, targets: Sequence[ScanTarget]) -> list[str]:
        tops = {workspace_of(root, crate) for t in targets
                if (crate := crate_of(root, t.path)) is not None}
        return sorted({rel for top in tops for rel in _rust_files(root, top)})

    def plan(self, ctx: ToolContext, targets: Sequence[ScanTarget],
             scratch: Scratch) -> list[Invocation]:
        crates: dict[str, list[ScanTarget]] = {}
        for target in targets:
            crate = crate_of(ctx.root, target.path)
            if crate is not None:  # a lone .rs file outside any crate: nothing to build
                crates.setdefault(crate, []).append(target)
        runs = []
        for crate, items in sorted(crates.items()):
            workspace = workspace_of(ctx.root, crate)
            base = ctx.root
            # cargo writes a missing Cargo.lock next to the workspace manifest: not in the repo
            locked = (ctx.root / workspace / "Cargo.lock").is_file()
            if not locked or not all(t.on_disk for t in items):
                base = scratch.mirror(ctx.root, items, self.companions(ctx.root, items))
            rels = tuple(t.path for t in items)
            argv = (ctx.executable, *self.command(ctx, []), "--target-dir",
                    str(target_dir(ctx.root, crate)))
            runs.append(Invocation(argv, base / crate, rels, path_lookup(base, rels),
                                   bases=(base / workspace, base)))
        return runs

    def parse(self, output: ToolOutput) -> list[Finding]:
        findings = []
        for line in output.stdout.splitlines():
            if not line.startswith("{"):
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(record, dict) or record.get("reason") != "compiler-message":
                continue
            message = record.get("message") or {}
            level = str(message.get("level", ""))
            spans = [s for s in message.get("spans") or [] if s.get("is_primary")]
            if level not in _SEVERITY or not spans:
                continue  # summaries ("3 warnings emitted") and failure notes
            code = (message.get("code") or {}).get("code") or "rustc"
            span = spans[0]
            findings.append(Finding(
                path=str(span.get("file_name", "")), line=as_int(span.get("line_start")),
                column=as_int(span.get("column_start")), severity=_SEVERITY[level],
                message=str(message.get("message", "")), rule_id=str(code),
            ))
        if not findings and output.returncode != 0:
            raise OutputError("cargo failed without a compiler message")
        return findings
