"""A committed range's whole analysis and priority order, kept for the next open.

A commit or a range of commits never changes: opening it again (the workbench, ``index``) used
to diff it, parse the diff, decode a cached record per file and look up every unit's reach
and line history, about a second and a half on 2,600 units. A snapshot keeps the result of
all that in one file under ``<git common dir>/reviewtui/snapshots/``, named by the range (the
commit ids its names resolve to, the names themselves, the repository's root) so that looking
for it costs one ``git rev-parse``.

What else makes the result differ is in the key stored inside the file, checked before any of
it is used: the per-file cache's run fingerprint (reviewtui's version and code, the cache
format, the ``[units]`` and ``[git]`` settings, the rule packs), the whole settings, the
learned weights files' contents (the repository's and the shipped ones: a refit misses), the
attributes files (the working tree's, the repository's, the user's) and the ``diff.*`` git
configuration (both can change the diff), and this module's format. Any difference, a corrupt
or truncated file: the change is computed as before and the snapshot written again.
Working-tree changes never have one.

Like the per-file cache (``analysis.cache``), the file sits inside ``.git`` and is trusted as
such; it is ``marshal`` data of plain tuples, read only by the Python that wrote it (its
version is in the key), and it is derived data that can be removed at any time.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import marshal
import os
import struct
import sys
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from reviewtui.git.selector import ChangeSelector, SelectorMode, split_range

if TYPE_CHECKING:
    from reviewtui.analysis.snapshot_codec import Counted, Decoded
    from reviewtui.config import Settings
    from reviewtui.git.model import ChangeSet
    from reviewtui.git.runner import GitRepo
    from reviewtui.rules.schema import RulePack
    from reviewtui.rules.suggestion import RuleSuggestion
    from reviewtui.units.model import ReviewUnit

_log = logging.getLogger(__name__)

FORMAT = 6  # 2: the priority order as parts and reach, feature names once; 3: lines apart;
# 4: the lines beside the payload; 5: shared values of one type only (4 read 0 back as False);
# 6: a file's binary_by_attribute
FOLDER = "snapshots"
KEPT = 16  # snapshots kept per repository, the most recently used...
MAX_BYTES = 256 << 20  # ...while they take no more than this (8,000 units: ~30 MiB)
_MAGIC = b"RTSNAP1\n"
_HEADER = struct.Struct("<I")
_MARSHAL_VERSION = 4
Part: TypeAlias = bytes | memoryview  # a part of a snapshot: written as bytes, read as a view


@dataclass(frozen=True)
class Slot:
    """Where a committed change's snapshot lives, found from the selector alone."""

    path: Path
    root: Path

    @property
    def present(self) -> bool:
        return self.path.is_file()


def committed_slot(repo: GitRepo, selector: ChangeSelector) -> Slot | None:
    """The snapshot file of a ``--commit`` or ``--range`` selector (its names resolved to
    commit ids), or None: another mode, or names git does not resolve (collecting says why)."""
    if selector.mode is SelectorMode.COMMIT:
        names = [selector.ref or ""]
    elif selector.mode is SelectorMode.RANGE:
        left, right, _ = split_range(selector.ref or "")
        names = [left, right]
    else:
        return None
    if any(not n or n.startswith("-") or "\n" in n or "\0" in n for n in names):
        return None
    out = repo.try_run("rev-parse", *(f"{n}^{{commit}}" for n in names))
    ids = out.decode("ascii", "replace").split() if out else []
    if len(ids) != len(names):
        return None
    digest = hashlib.sha256("\0".join((
        str(repo.root), selector.mode.value, selector.ref or "", *ids)).encode(
            "utf-8", "surrogateescape"))
    return Slot(repo.common_dir / "reviewtui" / FOLDER / f"{digest.hexdigest()[:40]}.snap",
                repo.root)


def _content(path: Path) -> bytes:
    try:
        return hashlib.sha256(path.read_bytes()).digest()
    except OSError:
        return b"-"


def snapshot_key(repo: GitRepo, settings: Settings, pack: RulePack) -> str:
    """Everything besides the range that the snapshot's contents depend on."""
    from reviewtui.analysis.fingerprint import run_fingerprint
    from reviewtui.rules.weights_files import repository_weights_path, shipped_weights_path

    digest = hashlib.sha256(f"{FORMAT}:{sys.version}\n".encode())
    digest.update(run_fingerprint(settings, pack).encode())
    digest.update(settings.model_dump_json().encode())
    config = repo.try_run("config", "--get-regexp", r"^(diff\.|core\.attributesfile)") or b""
    digest.update(config)
    # Each file by its part, not its place (another home folder, the same contents: the same
    # result), and its contents.
    for part, path in (("weights", repository_weights_path(repo.root)),
                       ("shipped weights", shipped_weights_path()), *_attributes_files(repo)):
        digest.update(f"\n{part}:".encode("utf-8", "surrogateescape") + _content(path))
    return digest.hexdigest()


def _attributes_files(repo: GitRepo) -> list[tuple[str, Path]]:
    """Where git reads the attributes a diff of two commits follows (``-diff``, ``binary``),
    by part: the working tree's ``.gitattributes`` files, the repository's and the user's."""
    listed = repo.try_run("ls-files", "-z", "--", ":(glob)**/.gitattributes") or b""
    configured = repo.try_run("config", "--path", "--get", "core.attributesFile")
    if configured and configured.strip():
        user = Path(configured.decode("utf-8", "surrogateescape").strip())
    else:
        home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        user = Path(home) / "git" / "attributes"
    names = {".gitattributes", *listed.decode("utf-8", "surrogateescape").split("\0")} - {""}
    return [("info/attributes", repo.common_dir / "info" / "attributes"),
            ("user attributes", user),
            *((name, repo.root / name) for name in sorted(names))]


@dataclass
class ChangeSnapshot:
    """A snapshot read or written for the loaded change: its units and suggestions as they
    came from it (the change still holds these very objects until it is scored again), and
    the priority order once counted."""

    path: Path
    key: str
    units: Sequence[ReviewUnit]
    suggestions: Mapping[str, RuleSuggestion]
    change_data: Part | None  # kept until the priority order is written beside it
    lines_data: Part | None  # the same
    counted_data: Part | None

    def fits(self, units: Sequence[ReviewUnit],
             suggestions: Mapping[str, RuleSuggestion]) -> bool:
        return units is self.units and suggestions is self.suggestions

    def counted(self) -> Counted | None:
        """The priority order kept with the change, or None (not counted yet, unreadable)."""
        from reviewtui.analysis.snapshot_codec import Unfit, decode_counted, no_gc

        if self.counted_data is None:
            return None
        try:
            with no_gc():
                return decode_counted(marshal.loads(self.counted_data), self.units,
                                      self.suggestions)
        except (Unfit, EOFError, ValueError, TypeError) as exc:
            _log.debug("snapshot %s: the priority order does not decode: %s", self.path, exc)
            self.counted_data = None
            return None

    def keep_counted(self, suggestions: Mapping[str, RuleSuggestion],
                     features: Mapping[str, Mapping[str, float]],
                     evidence: Mapping[str, Mapping[str, str]]) -> None:
        """Write the priority order beside the change (once)."""
        from reviewtui.analysis.snapshot_codec import Unfit, encode_counted

        if self.counted_data is not None:
            return
        if self.change_data is None or self.lines_data is None:  # a kept order that did not
            parts = _read(self.path, self.key)  # decode: write it again
            if parts is None:
                return
            self.change_data, self.lines_data = parts[0], parts[1]
        try:
            data = marshal.dumps(encode_counted(self.units, self.suggestions, suggestions,
                                                features, evidence), _MARSHAL_VERSION)
        except (Unfit, ValueError) as exc:
            _log.debug("snapshot %s: the priority order is not kept: %s", self.path, exc)
            return
        if _write(self.path, self.key, self.change_data, self.lines_data, data):
            self.counted_data = data
            self.change_data = self.lines_data = None


def read_snapshot(slot: Slot, key: str) -> tuple[Decoded, ChangeSnapshot] | None:
    """The change kept at ``slot`` under ``key``; None when absent, of another key, corrupt
    or truncated (never an exception)."""
    from reviewtui.analysis.snapshot_codec import Unfit, decode_change, no_gc

    parts = _read(slot.path, key)
    if parts is None:
        return None
    change_data, lines_data, counted_data = parts
    try:
        with no_gc():
            decoded = decode_change(marshal.loads(change_data), lines_data)
    except (Unfit, EOFError, ValueError, TypeError) as exc:
        _log.debug("snapshot %s does not decode: %s", slot.path, exc)
        return None
    if decoded.change_set.repo_root != slot.root:
        return None
    with contextlib.suppress(OSError):
        os.utime(slot.path)  # recently used: kept when others are dropped
    unwritten = counted_data is None
    return decoded, ChangeSnapshot(slot.path, key, decoded.units, decoded.suggestions,
                                   change_data if unwritten else None,
                                   lines_data if unwritten else None, counted_data)


def write_snapshot(slot: Slot, key: str, change_set: ChangeSet, units: Sequence[ReviewUnit],
                   suggestions: Mapping[str, RuleSuggestion]) -> ChangeSnapshot | None:
    """Keep the change at ``slot``; None if it cannot be (then nothing is written)."""
    from reviewtui.analysis.snapshot_codec import Unfit, encode_change

    try:
        encoded = encode_change(change_set, units, suggestions)
        data = marshal.dumps(encoded.payload, _MARSHAL_VERSION)
    except (Unfit, ValueError) as exc:
        _log.debug("no snapshot of %s: %s", change_set.key, exc)
        return None
    if not _write(slot.path, key, data, encoded.lines, None):
        return None
    return ChangeSnapshot(slot.path, key, units, suggestions, data, encoded.lines, None)


def holds(slot: Slot, key: str) -> bool:
    """Does the snapshot at ``slot`` say it was written under ``key`` (its header alone)?"""
    try:
        with slot.path.open("rb") as stored:
            head = stored.read(len(_MAGIC) + _HEADER.size)
            if len(head) != len(_MAGIC) + _HEADER.size or not head.startswith(_MAGIC):
                return False
            (size,) = _HEADER.unpack_from(head, len(_MAGIC))
            header = marshal.loads(stored.read(size))
        return isinstance(header, tuple) and bool(header) and header[0] == key
    except (OSError, ValueError, EOFError, TypeError):
        return False


def _read(path: Path, key: str) -> tuple[Part, Part, Part | None] | None:
    """The change's payload, its diff lines and the priority order (None: not written, or
    damaged) of the snapshot at ``path`` if it was written under ``key``: views of the
    bytes read, not copies (the lines are most of them, and stay unread until used)."""
    try:
        data = memoryview(path.read_bytes())
    except OSError:
        return None
    try:
        if data[:len(_MAGIC)] != _MAGIC:
            raise ValueError("not a snapshot")
        start = len(_MAGIC) + _HEADER.size
        (size,) = _HEADER.unpack_from(data, len(_MAGIC))
        header = marshal.loads(data[start:start + size])
        (stored_key, change_size, change_crc, lines_size, lines_crc, counted_size,
         counted_crc) = header
        if stored_key != key:
            return None
        parts: list[Part] = []
        at = start + size
        for part_size, part_crc in ((change_size, change_crc), (lines_size, lines_crc)):
            part = data[at:at + part_size]
            if len(part) != part_size or zlib.crc32(part) != part_crc:
                raise ValueError("the change is truncated or damaged")
            parts.append(part)
            at += part_size
        counted = data[at:]
        if counted_size < 0:
            return parts[0], parts[1], None
        if len(counted) != counted_size or zlib.crc32(counted) != counted_crc:
            return parts[0], parts[1], None  # the order is counted again (and written again)
    except (ValueError, EOFError, TypeError, struct.error) as exc:
        _log.debug("snapshot %s is unreadable: %s", path, exc)
        return None
    return parts[0], parts[1], counted


def _write(path: Path, key: str, change: Part, lines: Part, counted: Part | None) -> bool:
    header = marshal.dumps((key, len(change), zlib.crc32(change), len(lines), zlib.crc32(lines),
                            -1 if counted is None else len(counted),
                            0 if counted is None else zlib.crc32(counted)), _MARSHAL_VERSION)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with temporary.open("wb") as out:
            out.writelines((_MAGIC, _HEADER.pack(len(header)), header, change, lines,
                            counted if counted is not None else b""))
        temporary.replace(path)
    except OSError as exc:
        _log.debug("snapshot %s not written: %s", path, exc)
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        return False
    _prune(path.parent)
    return True


def _prune(folder: Path) -> None:
    """Keep the ``KEPT`` most recently used snapshots that fit in ``MAX_BYTES`` together
    (the newest always), drop the others, and the partial files of writers stopped an hour
    ago or more (the workbench ends its analysis process with a signal)."""
    with contextlib.suppress(OSError):
        entries = [(entry, entry.stat()) for entry in os.scandir(folder)]
        for entry, info in entries:
            if entry.name.endswith(".tmp") and info.st_mtime < time.time() - 3600:
                Path(entry.path).unlink(missing_ok=True)
        found = sorted(((info.st_mtime, info.st_size, entry.path) for entry, info in entries
                        if entry.name.endswith(".snap")), reverse=True)
        total = 0
        for count, (_, size, path) in enumerate(found):
            total += size
            if count and (count >= KEPT or total > MAX_BYTES):
                Path(path).unlink(missing_ok=True)
