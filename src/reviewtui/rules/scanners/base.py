"""The adapter contract: how one external tool is found, invoked and its output parsed.

An adapter only knows its tool: the command line, which exit codes are normal, and how to turn
the tool's documented output format into ``Finding`` records with paths exactly as the tool
printed them. The runner does the rest (executables, cache, parallelism, timeouts, mapping the
printed paths back to repo-relative target paths). ``plan`` decides how the targets are handed to
the tool: files in place when they are on disk, otherwise stdin or a temporary mirror.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from reviewtui.rules.scanners.config import ScannerToolConfig
from reviewtui.rules.scanners.model import ScanTarget
from reviewtui.rules.scanners.workspace import Scratch, path_lookup

BATCH_SIZE = 100


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding as the tool reported it; ``path`` is "" when the tool read stdin."""

    path: str
    line: int
    column: int
    severity: str
    message: str
    rule_id: str


@dataclass(frozen=True, slots=True)
class ToolOutput:
    returncode: int
    stdout: str
    stderr: str


class OutputError(Exception):
    """The output does not have the shape the tool's format promises."""


class SkipTool(Exception):
    """Raised by ``Adapter.setup``: the tool must not run here; ``str()`` is the reason."""


@dataclass(frozen=True, slots=True)
class ToolContext:
    root: Path
    executable: str
    version: str
    config: ScannerToolConfig
    setup: Path | None = None  # the local configuration the tool was told to use


@dataclass(frozen=True, slots=True)
class Invocation:
    """One process to start, and how to attribute what it prints.

    ``paths`` maps normalised absolute paths the tool may print to target paths; relative
    printed paths are resolved against ``cwd`` and then ``bases``. With ``stdin`` set, the
    invocation scans exactly one target and every finding belongs to it.
    """

    argv: tuple[str, ...]
    cwd: Path
    targets: tuple[str, ...]
    paths: Mapping[str, str] = field(default_factory=dict)
    stdin: bytes | None = None
    bases: tuple[Path, ...] = ()


def chunked(items: Sequence[ScanTarget], size: int = BATCH_SIZE) -> Iterator[list[ScanTarget]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


def operand(path: str) -> str:
    """A repo-relative path safe to pass as a command operand (never mistaken for an option)."""
    return f"./{path}" if path.startswith("-") else path


class Adapter(ABC):
    """Base class; subclasses set the class attributes and implement ``command``/``parse``."""

    name: ClassVar[str]
    executable: ClassVar[str]
    executable_alternatives: ClassVar[tuple[str, ...]] = ()  # other names it is installed as
    python_module: ClassVar[bool] = False  # also look next to sys.executable
    local_executables: ClassVar[tuple[str, ...]] = ()  # repo-relative, tried before PATH
    reads_stdin: ClassVar[bool] = False
    version_args: ClassVar[tuple[str, ...] | None] = None  # None: identify by file stamp
    config_files: ClassVar[tuple[str, ...]] = ()  # repo-relative; part of the cache key
    ok_returncodes: ClassVar[frozenset[int] | None] = frozenset({0, 1})  # None: any code
    mirror_cwd: ClassVar[bool] = False  # run inside the mirror on relative paths

    def setup(self, root: Path) -> Path | None:
        """The local configuration to pass to the tool; raise ``SkipTool`` to not run."""
        return None

    @abstractmethod
    def command(self, ctx: ToolContext, files: Sequence[str]) -> list[str]:
        """Arguments after the executable that scan ``files`` (relative to cwd, or absolute)."""

    def stdin_command(self, ctx: ToolContext, path: str) -> list[str]:
        """Arguments to scan stdin as the repo-relative ``path`` (when ``reads_stdin``)."""
        raise TypeError(f"{self.name} does not read stdin (reads_stdin is False)")

    @abstractmethod
    def parse(self, output: ToolOutput) -> list[Finding]:
        """The findings in the tool's output; raise ``OutputError`` when it is unreadable."""

    def companions(self, root: Path, targets: Sequence[ScanTarget]) -> list[str]:
        """Repo-relative files copied from disk into a mirror next to the targets."""
        return []

    def plan(self, ctx: ToolContext, targets: Sequence[ScanTarget],
             scratch: Scratch) -> list[Invocation]:
        """Files on disk in place (batched); the rest on stdin or in a temporary mirror."""
        on_disk = [t for t in targets if t.on_disk]
        elsewhere = [t for t in targets if not t.on_disk]
        runs: list[Invocation] = []
        for chunk in chunked(on_disk):
            rels = tuple(t.path for t in chunk)
            argv = (ctx.executable, *self.command(ctx, [operand(rel) for rel in rels]))
            runs.append(Invocation(argv, ctx.root, rels, path_lookup(ctx.root, rels)))
        if self.reads_stdin:
            for target in elsewhere:
                argv = (ctx.executable, *self.stdin_command(ctx, target.path))
                runs.append(Invocation(argv, ctx.root, (target.path,), stdin=target.content))
        elif elsewhere:
            mirror = scratch.mirror(ctx.root, elsewhere, self.companions(ctx.root, elsewhere))
            cwd = mirror if self.mirror_cwd else ctx.root
            for chunk in chunked(elsewhere):
                rels = tuple(t.path for t in chunk)
                files = [operand(rel) if self.mirror_cwd else str(mirror / rel) for rel in rels]
                argv = (ctx.executable, *self.command(ctx, files))
                runs.append(Invocation(argv, cwd, rels, path_lookup(mirror, rels)))
        return runs


# -- helpers shared by the parsers ---------------------------------------------------------


def load_json(text: str) -> Any:
    """The first JSON document in ``text``, ignoring banners or log lines printed before it."""
    decoder = json.JSONDecoder()
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped[:1] in ("[", "{"):  # documents start a line; saves re-parsing every brace
            try:
                return decoder.raw_decode(text, offset + len(line) - len(stripped))[0]
            except json.JSONDecodeError:
                pass
        offset += len(line)
    raise OutputError(f"no JSON in output: {first_line(text) or '(empty)'}")


def xml_report(text: str, root: str, what: str) -> ET.Element:
    """The XML document ``<root ...>...</root>`` inside ``text`` (banners, console output or
    an XML declaration around it are ignored)."""
    start, end = text.find(f"<{root}"), text.rfind(f"</{root}>")
    if start < 0 or end < 0:
        raise OutputError(f"no <{root}> report in output")
    try:
        return ET.fromstring(text[start:end + len(root) + 3])
    except ET.ParseError as exc:
        raise OutputError(f"invalid {what} XML: {exc}") from None


def expect(value: Any, kind: type[Any] | tuple[type[Any], ...], what: str) -> Any:
    if not isinstance(value, kind):
        raise OutputError(f"{what}: unexpected {type(value).__name__}")
    return value


def as_int(value: Any, default: int = 1) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def first_line(text: str, limit: int = 200) -> str:
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def pyflakes_severity(code: str | None) -> str:
    """Severity for pycodestyle/pyflakes-style codes (ruff, flake8), which carry none.

    Errors: syntax and I/O errors (``E9xx``, ruff's ``invalid-syntax``), undefined names
    (``F821``-``F823``), ``F63x`` (comparisons/asserts that are always true or wrong) and
    ``F7xx`` (``break``/``return``/``yield`` where Python rejects them). All else: warning.
    """
    if not code or code in ("invalid-syntax", "syntax-error"):
        return "error"
    if code.startswith(("E9", "F63", "F7")) or code in ("F821", "F822", "F823"):
        return "error"
    return "warning"
