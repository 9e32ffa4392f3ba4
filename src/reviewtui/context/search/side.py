"""The "after" side of a change as something to search and read, for project-wide search.

A context bundle's extra requests (callers, implementations, config usage...) must look at the
code the change produces, not at whatever happens to be on disk: a commit or range is searched
with ``git grep <rev>``, a staged change with ``git grep --cached`` and a working-tree change in
the working tree (untracked files included, ``.gitignore`` respected). File contents for the
snippets come from the same place, each file read at most once.

Search text never reaches git as an option: it always follows ``-e``, and text with NUL or line
breaks is refused. A failing or timed-out git gives no hits rather than an error.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reviewtui.errors import GitCommandError
from reviewtui.git.batch import batch_records
from reviewtui.git.contents import ContentReader, path_within
from reviewtui.git.model import ChangeSet, ChangeStatus, FileChange, SideKind
from reviewtui.git.runner import GitRepo

_log = logging.getLogger(__name__)

DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024

# Options a user's git configuration could otherwise change (pattern type, column output,
# colour, path names relative to the working directory).
_GREP_OPTIONS: tuple[str, ...] = (
    "grep", "-z", "-n", "-I", "--no-color", "--no-column", "--full-name",
)
# Vendored code, lockfiles and minified bundles only ever add noise to a search.
EXCLUDED_PATHSPECS: tuple[str, ...] = tuple(
    f":(exclude,glob){pattern}"
    for pattern in (
        "**/node_modules/**", "**/vendor/**", "**/third_party/**", "**/bower_components/**",
        "**/site-packages/**", "**/*.min.js", "**/*.min.css", "**/*.map", "**/*.lock",
        "**/package-lock.json", "**/pnpm-lock.yaml", "**/go.sum", "**/*.pb.go",
        "**/*_pb2.py", "**/*_pb2_grpc.py",
    )
)


_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_NAMES_PER_GREP = 300


@dataclass(frozen=True, slots=True)
class GrepLine:
    """One line ``git grep`` reported: repository-relative path, 1-based line, its text."""

    path: str
    line: int
    text: str


def valid_text(text: str) -> bool:
    """True if ``text`` can be searched for: not empty, no NUL, no line breaks."""
    return bool(text) and not any(c in text for c in ("\0", "\n", "\r"))


def parse_grep_z(out: bytes, prefix: bytes = b"") -> list[GrepLine]:
    """Parse ``git grep -z -n`` output (``path NUL line NUL text LF`` records).

    ``prefix`` (``<rev>:``) is stripped from paths. Paths that are not UTF-8 are skipped (they
    could not be read back reliably); a record that does not parse is skipped up to the next LF.
    """
    hits: list[GrepLine] = []
    pos, size = 0, len(out)
    while pos < size:
        path_end = out.find(b"\0", pos)
        if path_end < 0:
            break
        line_end = out.find(b"\0", path_end + 1)
        text_end = out.find(b"\n", line_end + 1 if line_end >= 0 else path_end + 1)
        if text_end < 0:
            text_end = size
        if line_end < 0 or line_end > text_end:
            pos = text_end + 1
            continue
        raw_path, number = out[pos:path_end], out[path_end + 1 : line_end]
        text = out[line_end + 1 : text_end]
        pos = text_end + 1
        if prefix and raw_path.startswith(prefix):
            raw_path = raw_path[len(prefix):]
        if not number.isdigit():
            continue
        try:
            path = raw_path.decode("utf-8")
        except UnicodeDecodeError:
            continue
        hits.append(GrepLine(path, int(number), text.rstrip(b"\r").decode("utf-8", "replace")))
    return hits


class AfterSide:
    """Greps and reads the "after" side of a change; every file version is read once."""

    def __init__(self, repo: GitRepo | None, change_set: ChangeSet, reader: ContentReader,
                 *, timeout: float, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self._repo = repo
        self._side = change_set.new_side
        self._root = change_set.repo_root.resolve()
        self._reader = reader
        self._timeout = timeout
        self._max = max_file_bytes
        self._changed: dict[str, FileChange] = {
            change.new_path: change for change in change_set.files
            if change.new_path is not None and change.status is not ChangeStatus.DELETE
        }
        self._gone: tuple[str, ...] = tuple(
            change.old_path for change in change_set.files
            if change.old_path is not None
            and change.status in (ChangeStatus.DELETE, ChangeStatus.RENAME)
        )
        self._contents: dict[str, bytes | None] = {}
        self._names: dict[str, list[GrepLine]] = {}  # identifier -> lines (batched greps)
        self._greps: dict[tuple[tuple[str, ...], tuple[str, ...]], list[GrepLine]] = {}

    @property
    def searchable(self) -> bool:
        """False for a foreign patch, a missing repository or a commit without an id."""
        if self._repo is None:
            return False
        kind = self._side.kind
        if kind is SideKind.WORKTREE:
            return not self._repo.is_bare
        if kind is SideKind.INDEX:
            return True
        return kind is SideKind.COMMIT and bool(self._side.rev)

    def _grep_args(self, pattern_args: list[str], pathspecs: Sequence[str],
                   mode: str) -> tuple[list[str], bytes]:
        args: list[str] = [*_GREP_OPTIONS, mode]
        kind = self._side.kind
        if kind is SideKind.WORKTREE:
            args.append("--untracked")
        elif kind is SideKind.INDEX:
            args.append("--cached")
        args += pattern_args
        prefix = b""
        if kind is SideKind.COMMIT:
            rev = self._side.rev or ""
            args.append(rev)
            prefix = rev.encode() + b":"
        args += ["--", *pathspecs, *EXCLUDED_PATHSPECS]
        return args, prefix

    def grep(self, patterns: Sequence[str], pathspecs: Sequence[str] = ()) -> list[GrepLine]:
        """Lines containing any of ``patterns`` (fixed strings, case-sensitive); [] on failure.

        ``pathspecs`` are trusted, program-made pathspecs (never user text).
        """
        wanted = list(dict.fromkeys(p for p in patterns if valid_text(p)))
        if not wanted or not self.searchable or self._repo is None:
            return []
        key = (tuple(wanted), tuple(pathspecs))
        if key in self._greps:  # several units ask for the same config key or text
            return list(self._greps[key])
        pattern_args: list[str] = []
        for pattern in wanted:
            pattern_args += ["-e", pattern]
        args, prefix = self._grep_args(pattern_args, pathspecs, "-F")
        try:
            out = self._repo.run(*args, check=False, timeout=self._timeout)
        except GitCommandError as exc:  # timeout, git missing
            _log.warning("project search failed: %s", exc)
            return []
        found = self._greps[key] = parse_grep_z(out, prefix)
        return list(found)

    def files(self) -> list[str] | None:
        """Every file path of the after side, sorted; None if it cannot be listed.

        A commit lists its tree, a staged change the index, a working-tree change the index
        plus untracked files (``.gitignore`` respected) minus files the change deleted from
        disk. Names that are not UTF-8 are skipped, like in ``parse_grep_z``.
        """
        if not self.searchable or self._repo is None:
            return None
        kind = self._side.kind
        args: tuple[str, ...]
        if kind is SideKind.COMMIT:
            args = ("ls-tree", "-r", "-z", "--name-only", "--full-tree", self._side.rev or "")
        elif kind is SideKind.INDEX:
            args = ("ls-files", "-z", "--cached", "--full-name")
        else:
            args = ("ls-files", "-z", "--cached", "--others", "--exclude-standard",
                    "--full-name")
        try:
            out = self._repo.run(*args, timeout=self._timeout)
        except GitCommandError as exc:
            _log.warning("listing the after side failed: %s", exc)
            return None
        names: dict[str, None] = {}
        for raw in out.split(b"\0"):
            try:
                names[raw.decode("utf-8")] = None
            except UnicodeDecodeError:
                continue
        names.pop("", None)
        if kind is SideKind.WORKTREE:  # still in the index, gone from disk
            for path in self._gone:
                if not (self._root / path).is_symlink() and not (self._root / path).exists():
                    names.pop(path, None)
            names.update(dict.fromkeys(self._changed))
        return sorted(names)

    def prefetch_names(self, names: Iterable[str]) -> None:
        """Grep many identifiers at once for ``grep_name``: a few git processes, not hundreds.

        A review asks for the callers of hundreds of definitions. ``git grep -F`` with many
        patterns is very slow, so the names go into one Perl regex per chunk,
        ``\b(?:a|b|...)\b``, and each line is filed under the whole identifiers it contains.
        Without PCRE support in git, names are searched one by one on demand instead.
        """
        wanted = [n for n in dict.fromkeys(names)
                  if n not in self._names and _IDENTIFIER.fullmatch(n)]
        if not wanted or not self.searchable or self._repo is None:
            return
        for start in range(0, len(wanted), _NAMES_PER_GREP):
            chunk = wanted[start : start + _NAMES_PER_GREP]
            alternation = "|".join(re.escape(n) for n in chunk)
            args, prefix = self._grep_args(["-e", rf"\b(?:{alternation})\b"], (), "-P")
            try:
                proc = self._repo.run_status(*args, timeout=self._timeout * 2)
            except GitCommandError as exc:
                _log.warning("project search failed: %s", exc)
                return
            if proc.returncode not in (0, 1):  # no PCRE in this git: one name at a time
                return
            buckets: dict[str, list[GrepLine]] = {name: [] for name in chunk}
            for line in parse_grep_z(proc.stdout, prefix):
                for name in dict.fromkeys(_IDENTIFIER.findall(line.text)):
                    if name in buckets:
                        buckets[name].append(line)
            self._names.update(buckets)

    def grep_name(self, name: str) -> list[GrepLine]:
        """Lines containing the identifier ``name`` (from a batched grep when there was one)."""
        found = self._names.get(name)
        return list(found) if found is not None else self.grep([name])

    def content(self, path: str) -> bytes | None:
        """The after-side bytes of ``path`` (None if missing, too large or unreadable)."""
        if path not in self._contents:
            self.prefetch([path])
        return self._contents.get(path)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read every not yet read path; index and commit blobs come in one git process."""
        from_git: list[str] = []
        wanted = list(dict.fromkeys(p for p in paths if p not in self._contents))
        self._reader.prefetch((c for p in wanted if (c := self._changed.get(p)) is not None),
                              old=False)
        for path in wanted:
            if path in self._contents:
                continue
            change = self._changed.get(path)
            if change is not None:
                data = self._reader.new(change)
                self._contents[path] = data if data is None or len(data) <= self._max else None
            elif self._side.kind is SideKind.WORKTREE:
                self._contents[path] = self._read_disk(path)
            else:
                self._contents[path] = None
                if "\n" not in path and "\r" not in path:
                    from_git.append(path)
        if from_git:
            self._contents.update(self._cat_file(from_git))

    def _read_disk(self, path: str) -> bytes | None:
        target = path_within(self._root, path)
        if target is None:
            return None
        try:
            if target.is_symlink() or not target.is_file() or target.stat().st_size > self._max:
                return None
            return target.read_bytes()
        except OSError:
            return None

    def _object_name(self, path: str) -> str:
        if self._side.kind is SideKind.INDEX:
            return f":0:{path}"
        return f"{self._side.rev}:{path}"

    def _cat_file(self, paths: list[str]) -> dict[str, bytes | None]:
        if self._repo is None or self._side.kind not in (SideKind.INDEX, SideKind.COMMIT):
            return {}
        names = "".join(self._object_name(p) + "\n" for p in paths).encode("utf-8")
        try:
            out = self._repo.run("cat-file", "--batch", stdin=names, check=False,
                                 timeout=self._timeout)
        except GitCommandError as exc:
            _log.warning("reading search hits failed: %s", exc)
            return {}
        found: dict[str, bytes | None] = {}
        for path, record in zip(paths, batch_records(out, len(paths)), strict=False):
            if record is None:  # "<name> missing", "ambiguous"
                found[path] = None
                continue
            kind, start, size = record
            found[path] = out[start:start + size] if kind == b"blob" and size <= self._max else None
        return found
