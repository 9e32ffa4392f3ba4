"""Temporary copies of content that is not on disk, and mapping printed paths back.

Scanners must see the "after" content even when the working tree holds something else, and
must never write inside the user's repository. Tools without stdin support get a mirror: a
temporary directory that repeats each target's repo-relative path. Whatever path a tool then
prints (relative, absolute, through a symlinked temp dir) is mapped back to the target path.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import Protocol


class _Target(Protocol):
    @property
    def path(self) -> str: ...

    @property
    def content(self) -> bytes: ...


def check_relative(path: str) -> None:
    """Reject target paths that could escape a mirror or the repository."""
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path:
        raise ValueError(f"scan target path must be repo-relative with forward slashes: {path!r}")


def path_lookup(base: Path, rels: Iterable[str]) -> dict[str, str]:
    """Every spelling of ``base / rel`` a tool may print (normalised, resolved) -> ``rel``."""
    lookup: dict[str, str] = {}
    for rel in rels:
        full = base / rel
        lookup[os.path.normpath(full)] = rel
        lookup[os.path.realpath(full)] = rel
    return lookup


def resolve_reported(reported: str, *, cwd: Path, bases: Sequence[Path],
                     paths: Mapping[str, str], targets: Sequence[str]) -> str | None:
    """The target a printed path refers to, or None when it is not one of the targets."""
    text = reported.strip()
    text = text.removeprefix("file://")
    if not text:
        return None
    printed = Path(text)
    options = [printed] if printed.is_absolute() else [base / printed for base in (cwd, *bases)]
    for option in options:
        for key in (os.path.normpath(option), os.path.realpath(option)):
            if key in paths:
                return paths[key]
    if printed.is_absolute():
        return None
    posix = PurePosixPath(text.replace(os.sep, "/"))
    if ".." in posix.parts:
        return None
    relative = posix.as_posix()
    matches = [t for t in targets if t == relative or t.endswith("/" + relative)]
    return matches[0] if len(matches) == 1 else None


class Scratch:
    """Temporary directories outside the repository, all removed when the run ends."""

    def __init__(self) -> None:
        self._base: Path | None = None
        self._lock = threading.Lock()

    def directory(self) -> Path:
        with self._lock:
            if self._base is None:
                self._base = Path(tempfile.mkdtemp(prefix="reviewtui-scan-"))
            return Path(tempfile.mkdtemp(dir=self._base))

    def write(self, name: str, content: bytes) -> Path:
        file = self.directory() / name
        file.write_bytes(content)
        return file

    def mirror(self, root: Path, targets: Sequence[_Target], companions: Iterable[str]) -> Path:
        """A new directory holding each target's content (and companion files from disk)."""
        top = self.directory()
        for rel in companions:
            check_relative(rel)
            source = root / rel
            if source.is_file():
                (top / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, top / rel)
        for target in targets:
            check_relative(target.path)
            file = top / target.path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(target.content)
        return top

    def close(self) -> None:
        with self._lock:
            if self._base is not None:
                shutil.rmtree(self._base, ignore_errors=True)
                self._base = None

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
