"""What each of the review agent's tools does, behind ``ToolBox``'s argument checks.

Every read goes to the side of the change the agent is reviewing: the "after" side is the commit,
the index or the working tree the change produces (``AfterSide``), never whatever happens to be
on disk for a commit range; ``side="before"`` reads the change's base. Paths are confined by
``tool_paths`` before anything is read, files are only those git lists for that side (so ignored
files such as ``.env`` stay out of reach), and nothing model-written is ever passed to git as an
argument. A problem the model can fix raises ``ToolError`` with a one-line explanation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

from reviewtui.agent.tool_context import ToolContext
from reviewtui.agent.tool_deps import is_manifest, render_manifest
from reviewtui.agent.tool_paths import ToolError, glob_regex, repo_path, worktree_target
from reviewtui.context.render import render_bundle_markdown
from reviewtui.context.search.side import DEFAULT_MAX_FILE_BYTES, AfterSide, valid_text
from reviewtui.context.search.snippets import split_lines
from reviewtui.git.model import ChangeStatus, EntryKind, FileChange, Side, SideKind

__all__ = ["MAX_FILES_LISTED", "MAX_SPAN", "Reply", "ToolImpl", "side_label"]

MAX_SPAN = 400  # lines per read_file_hunk call
MAX_LINE_CHARS = 2000
MAX_FILES_LISTED = 500
MAX_MANIFESTS = 40
MAX_QUERY_CHARS = 500
MAX_ID_CHARS = 200
_BINARY_PROBE = 8192
_VENDORED = frozenset({"node_modules", "vendor", "third_party", "site-packages", ".venv", "venv"})


@dataclass(frozen=True, slots=True)
class Reply:
    """A tool's successful answer before capping; ``paged``: already sized to fit (no cap)."""

    text: str
    files: tuple[str, ...] = ()
    paged: bool = False
    more: bool = False  # a paged answer with more to read


def side_label(side: Side) -> str:
    """How the tools name a side to the model: ``commit 1a2b3c4d5e6f (main)``, ``the index``."""
    if side.kind is SideKind.COMMIT:
        rev = (side.rev or "")[:12]
        return f"commit {rev} ({side.label})" if side.label and side.label != rev else \
            f"commit {rev}"
    return {
        SideKind.INDEX: "the index (staged)",
        SideKind.WORKTREE: "the working tree",
        SideKind.EMPTY: "the empty tree",
        SideKind.UNKNOWN: "a patch file",
    }[side.kind]


def _one_line_id(value: str, what: str) -> str:
    text = value.strip()
    if not text:
        raise ToolError(f"{what} is empty")
    if len(text) > MAX_ID_CHARS or not valid_text(text):
        raise ToolError(f"{what} must be one short line without NUL bytes")
    return text


def _is_binary(data: bytes) -> bool:
    return b"\0" in data[:_BINARY_PROBE]


def _clip(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"


class ToolImpl:
    """The tools over one change; share one instance for a whole conversation."""

    def __init__(self, ctx: ToolContext, *, timeout: float, max_output_chars: int,
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self._ctx = ctx
        self._root = ctx.root.resolve()  # path_within needs a resolved root
        self._max_chars = max_output_chars
        self._max_file_bytes = max_file_bytes
        change_set = ctx.change_set
        self._new_side = change_set.new_side
        self._old_side = change_set.old_side
        self._after = AfterSide(ctx.repo, change_set, ctx.reader, timeout=timeout,
                                max_file_bytes=max_file_bytes)
        # The base side of files the change does not touch: the same reader on the old side.
        self._before = AfterSide(ctx.repo, replace(change_set, new_side=change_set.old_side,
                                                   files=()),
                                 ctx.reader, timeout=timeout, max_file_bytes=max_file_bytes)
        self._by_new: dict[str, FileChange] = {}
        self._by_old: dict[str, FileChange] = {}
        for change in change_set.files:
            if change.new_path is not None and change.status is not ChangeStatus.DELETE:
                self._by_new[change.new_path] = change
            if change.old_path is not None:
                self._by_old.setdefault(change.old_path, change)
        self._listing: list[str] | None = None
        self._listing_set: frozenset[str] = frozenset()

    # --- shared helpers -----------------------------------------------------------------------

    @property
    def _from_patch(self) -> bool:
        return self._ctx.repo is None or self._new_side.kind is SideKind.UNKNOWN

    def files(self) -> list[str] | None:
        """The after side's files (listed once per instance), None when unavailable."""
        if self._listing is None:
            listing = self._after.files()
            if listing is not None:
                self._listing_set = frozenset(listing)
                self._listing = listing
        return self._listing

    def _require_listing(self) -> list[str]:
        if self._from_patch:
            raise ToolError("this change comes from a patch file: the project's files are not "
                            "available, only the diff")
        listing = self.files()
        if listing is None:
            raise ToolError("could not list the files of the after side (git failed or timed "
                            "out); try again or read a changed file")
        return listing

    def _not_found(self, path: str, listing: list[str]) -> ToolError:
        prefix = path + "/"
        if any(name.startswith(prefix) for name in listing):
            return ToolError(f"{path!r} is a folder; list it with list_project_files "
                             f"(glob {prefix + '**'!r})")
        name = PurePosixPath(path).name
        similar = [f for f in listing if PurePosixPath(f).name == name][:3]
        hint = f"; did you mean {', '.join(repr(s) for s in similar)}?" if similar else \
            "; use list_project_files or search_in_project to find it"
        return ToolError(f"no file {path!r} on the after side ({side_label(self._new_side)})"
                         f"{hint}")

    # --- read_file_hunk -----------------------------------------------------------------------

    def read_file_hunk(self, args: Mapping[str, Any]) -> Reply:
        path = repo_path(str(args["path"]))
        start, end = int(args["start"]), int(args["end"])
        if args.get("side") == "before":
            data, label = self._before_bytes(path), f"before: {side_label(self._old_side)}"
        else:
            if self._new_side.kind is SideKind.WORKTREE and not self._from_patch:
                target = worktree_target(self._root, path)
                if target.link_target is not None:
                    return Reply(f"{path!r} is a symbolic link to {target.link_target!r} inside "
                                 "the repository; read that path instead", (path,))
                if target.path.is_dir():
                    raise ToolError(f"{path!r} is a folder; list it with list_project_files "
                                    f"(glob {path + '/**'!r})")
            data, label = self._after_bytes(path), f"after: {side_label(self._new_side)}"
        return Reply(self._render_lines(path, label, data, start, end), (path,))

    def _after_bytes(self, path: str) -> bytes:
        if self._from_patch:
            raise ToolError("file contents are not available: this change comes from a patch "
                            "file, not from the repository")
        change = self._by_new.get(path)
        if change is None:
            gone = self._by_old.get(path)
            if gone is not None and gone.status is ChangeStatus.DELETE:
                raise ToolError(f"{path!r} is deleted by this change; read its previous version "
                                "with side=\"before\"")
            if gone is not None and gone.status is ChangeStatus.RENAME:
                raise ToolError(f"{path!r} was renamed to {gone.new_path!r} by this change; read "
                                "that path, or side=\"before\" for the old version")
            listing = self._require_listing()
            if path not in self._listing_set:
                raise self._not_found(path, listing)
            data = self._after.content(path)
        else:
            if change.kind is EntryKind.SUBMODULE:
                raise ToolError(f"{path!r} is a submodule, not a file")
            data = self._ctx.reader.new(change)
            if change.kind is EntryKind.SYMLINK and data is not None:
                link = data.decode("utf-8", "replace")
                raise ToolError(f"{path!r} is a symbolic link to {link!r}; read the target "
                                "path instead (if it is inside the repository)")
        if data is None:
            raise ToolError(f"{path!r} cannot be read: larger than the "
                            f"{self._max_file_bytes:,}-byte limit, a submodule, or unreadable")
        return data

    def _before_bytes(self, path: str) -> bytes:
        if self._from_patch:
            raise ToolError("file contents are not available: this change comes from a patch "
                            "file, not from the repository")
        change = self._by_old.get(path)
        if change is None:
            renamed = self._by_new.get(path)
            if renamed is not None and renamed.old_path is not None and \
                    renamed.status is not ChangeStatus.COPY:
                change = renamed
            elif renamed is not None:
                raise ToolError(f"{path!r} is added by this change; it has no previous version")
        if change is not None:
            data = self._ctx.reader.old(change)
        elif self._old_side.kind in (SideKind.COMMIT, SideKind.INDEX):
            data = self._before.content(path)  # not changed: the base side's copy
        else:
            raise ToolError(f"no previous version of {path!r}: the change starts from "
                            f"{side_label(self._old_side)}")
        if data is None:
            raise ToolError(f"no file {path!r} on the before side "
                            f"({side_label(self._old_side)}), or it is too large to read")
        return data

    def _render_lines(self, path: str, label: str, data: bytes, start: int, end: int) -> str:
        if _is_binary(data):
            return f"{path} ({label}) is a binary file ({len(data):,} bytes); not shown"
        notes: list[str] = []
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            notes.append("not UTF-8: undecodable bytes are shown as \ufffd")
        lines = split_lines(data)
        total = len(lines)
        if total == 0:
            return f"{path} ({label}) is empty"
        start = max(1, start)
        if start > total:
            raise ToolError(f"start={start} is past the end: {path!r} has {total} lines "
                            f"({label})")
        end = min(max(end, start), total)
        if end - start + 1 > MAX_SPAN:
            end = start + MAX_SPAN - 1
            notes.append(f"at most {MAX_SPAN} lines per call")
        width = max(4, len(str(end)))
        body = "\n".join(f"{n:>{width}} | {_clip(lines[n - 1])}" for n in range(start, end + 1))
        header = f"{path} ({label}) lines {start}-{end} of {total}"
        if notes:
            header += f" [{'; '.join(notes)}]"
        footer = f"\n… {total - end} more lines; continue with start={end + 1}" \
            if end < total else ""
        return f"{header}\n{body}{footer}"

    # --- search_in_project / list_project_files -----------------------------------------------

    def search_in_project(self, args: Mapping[str, Any]) -> Reply:
        query = str(args["query"])
        if not query.strip():
            raise ToolError("query is empty; give the literal text to find")
        if len(query) > MAX_QUERY_CHARS or not valid_text(query):
            raise ToolError(f"query must be one line of at most {MAX_QUERY_CHARS} characters "
                            "without NUL bytes")
        search = self._ctx.search
        if search is None or not search.available:
            raise ToolError("project search is not available for this change (a patch file "
                            "without its repository)")
        limit = int(args.get("max_results", 10))
        snippets = search.text(query, limit=limit)
        where = side_label(self._new_side)
        if not snippets:
            return Reply(f"no matches for {query!r} on the after side ({where}); the search is "
                         "literal and case-sensitive, vendored folders and lockfiles are skipped")
        head = (f"{len(snippets)} result{'s' if len(snippets) != 1 else ''} for {query!r} on "
                f"the after side ({where}):")
        blocks = [f"── {s.file_path}:{s.line}\n{s.snippet}" for s in snippets]
        paths = tuple(dict.fromkeys(s.file_path for s in snippets))
        return Reply("\n".join([head, *blocks]), paths)

    def list_project_files(self, args: Mapping[str, Any]) -> Reply:
        glob = str(args["glob"])
        pattern = glob_regex(glob)
        if self._from_patch:
            names = [c.path for c in self._ctx.change_set.files]
            matched = [n for n in names if pattern.fullmatch(n)]
            head = (f"this change comes from a patch file: only its {len(names)} files are "
                    f"known; {len(matched)} match {glob!r}")
            return Reply("\n".join([head, *matched]), tuple(matched))
        listing = self._require_listing()
        matched = [name for name in listing if pattern.fullmatch(name)]
        where = side_label(self._new_side)
        if not matched:
            return Reply(f"no files match {glob!r} on the after side ({where}, {len(listing)} "
                         "files); a glob without '/' matches file names at any depth, '**' "
                         "spans folders, e.g. 'src/**/*.py'")
        shown = matched[:MAX_FILES_LISTED]
        head = f"{len(matched)} file{'s' if len(matched) != 1 else ''} match {glob!r} on the " \
               f"after side ({where})"
        if len(matched) > len(shown):
            head += f"; showing the first {len(shown)} - narrow the glob for the rest"
        return Reply("\n".join([head + ":", *shown]), tuple(shown))

    # --- get_dependencies ---------------------------------------------------------------------

    def get_dependencies(self, args: Mapping[str, Any]) -> Reply:
        listing = self._require_listing()
        manifests = [name for name in listing if is_manifest(name)
                     and PurePosixPath(name).parts[0] not in _VENDORED]
        manifests.sort(key=lambda name: (name.count("/"), name))
        if not manifests:
            return Reply("no dependency manifests (pyproject.toml, requirements*.txt, setup.cfg, "
                         "package.json, go.mod, Gemfile, Cargo.toml, pom.xml, build.gradle) at "
                         "the root or one folder down of the after side")
        skipped = len(manifests) - MAX_MANIFESTS
        manifests = manifests[:MAX_MANIFESTS]
        self._after.prefetch(manifests)
        parts: list[str] = []
        for name in manifests:
            data = self._after.content(name)
            if data is None:
                parts.append(f"{name} - too large or unreadable")
            elif _is_binary(data):
                parts.append(f"{name} - binary file, not parsed")
            else:
                parts.append(render_manifest(name, data.decode("utf-8", "replace")))
        if skipped > 0:
            parts.append(f"… {skipped} more manifests not shown")
        head = f"declared dependencies on the after side ({side_label(self._new_side)}):"
        return Reply("\n".join([head, *parts]), tuple(manifests))

    # --- scanners, units, bundles, tool memory ------------------------------------------------

    def get_scanner_issues(self, args: Mapping[str, Any]) -> Reply:
        path = repo_path(str(args["path"]))
        found = self._ctx.scanner_issues(path)
        if found is None:
            return Reply("no scanner ran for this review (scanners are turned off or none is "
                         "installed)", (path,))
        if not found:
            return Reply(f"no scanner issues in {path}", (path,))
        ordered = sorted(found, key=lambda f: (f.line, f.column, f.tool, f.rule_id))
        lines = [f"L{f.line}:{f.column} {f.severity} {f.tool} {f.rule_id}: "
                 f"{' '.join(f.message.split())}" for f in ordered]
        return Reply("\n".join([f"{len(lines)} scanner issue(s) in {path}:", *lines]), (path,))

    def get_unit(self, args: Mapping[str, Any]) -> Reply:
        unit_id = _one_line_id(str(args["unit_id"]), "unit_id")
        data = self._ctx.unit(unit_id)
        if data is None:
            raise ToolError(f"no unit matches {unit_id!r}; give a unit_id from the review index "
                            "or a unique prefix of one")
        files = tuple(str(data[key]) for key in ("file_path", "old_path")
                      if isinstance(data.get(key), str))
        return Reply(json.dumps(data, indent=2, ensure_ascii=False, default=str),
                     tuple(dict.fromkeys(files)))

    def get_bundle(self, args: Mapping[str, Any]) -> Reply:
        unit_id = _one_line_id(str(args["unit_id"]), "unit_id")
        bundle = self._ctx.bundle(unit_id)
        if bundle is None:
            raise ToolError(f"no context bundle for {unit_id!r}: an unknown or ambiguous unit id, "
                            "or a unit the plan skips")
        files = [bundle.meta.file_path]
        files += [s.file_path for s in (*bundle.callers, *bundle.search_results)]
        return Reply(render_bundle_markdown(bundle), tuple(dict.fromkeys(files)))

    def get_tool_result(self, args: Mapping[str, Any]) -> Reply:
        ref = _one_line_id(str(args["ref_id"]), "ref_id")
        offset = int(args.get("offset", 0))
        full = self._ctx.tool_result(ref)
        if full is None:
            raise ToolError(f"no stored tool result {ref!r}; use a ref id shown with an earlier "
                            "(compressed) tool result")
        total = len(full)
        if offset > total:
            raise ToolError(f"offset={offset} is past the end: result {ref!r} has {total} "
                            "characters")
        page = max(100, self._max_chars - 200)
        if offset == 0 and total <= self._max_chars:
            return Reply(full, paged=True)
        chunk = full[offset : offset + page]
        end = offset + len(chunk)
        more = end < total
        tail = f"; continue with offset={end}" if more else "; end of result"
        return Reply(f"[{ref}: characters {offset}-{end} of {total}{tail}]\n{chunk}",
                     paged=True, more=more)
