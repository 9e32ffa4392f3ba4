"""What each of the review agent's tools does, behind ``ToolBox``'s argument checks.

Every read goes to the side of the change the agent is reviewing (``tool_files``: the "after"
side the change produces, or with ``side="before"`` its base), paths are confined by
``tool_paths`` before anything is read, and nothing model-written is ever passed to git as an
argument. A problem the model can fix raises ``ToolError`` with a one-line explanation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from reviewtui.agent.tool_context import ToolContext
from reviewtui.agent.tool_deps import is_manifest, render_manifest
from reviewtui.agent.tool_files import SideFiles, is_binary, side_label
from reviewtui.agent.tool_paths import ToolError, glob_regex, repo_path, worktree_target
from reviewtui.context.render import render_bundle_markdown
from reviewtui.context.search.side import DEFAULT_MAX_FILE_BYTES, valid_text
from reviewtui.context.search.snippets import split_lines
from reviewtui.git.model import SideKind

__all__ = ["MAX_FILES_LISTED", "MAX_SPAN", "Reply", "ToolImpl"]

MAX_SPAN = 400  # lines per read_file_hunk call
MAX_LINE_CHARS = 2000
MAX_FILES_LISTED = 500
MAX_MANIFESTS = 40
MAX_QUERY_CHARS = 500
MAX_ID_CHARS = 200
_VENDORED = frozenset({"node_modules", "vendor", "third_party", "site-packages", ".venv", "venv"})


@dataclass(frozen=True, slots=True)
class Reply:
    """A tool's successful answer before capping; ``paged``: already sized to fit (no cap)."""

    text: str
    files: tuple[str, ...] = ()
    paged: bool = False
    more: bool = False  # a paged answer with more to read


def _one_line_id(value: str, what: str) -> str:
    text = value.strip()
    if not text:
        raise ToolError(f"{what} is empty")
    if len(text) > MAX_ID_CHARS or not valid_text(text):
        raise ToolError(f"{what} must be one short line without NUL bytes")
    return text


def _clip(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"


class ToolImpl:
    """The tools over one change; share one instance for a whole conversation."""

    def __init__(self, ctx: ToolContext, *, timeout: float, max_output_chars: int,
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self._ctx = ctx
        self._root = ctx.root.resolve()  # path_within needs a resolved root
        self._max_chars = max_output_chars
        self._files = SideFiles(ctx, timeout=timeout, max_file_bytes=max_file_bytes)
        self._new_side = self._files.new_side
        self._old_side = self._files.old_side

    # --- read_file_hunk -----------------------------------------------------------------------

    def read_file_hunk(self, args: Mapping[str, Any]) -> Reply:
        path = repo_path(str(args["path"]))
        start, end = int(args["start"]), int(args["end"])
        if args.get("side") == "before":
            data, label = self._files.before_bytes(path), f"before: {side_label(self._old_side)}"
        else:
            if self._new_side.kind is SideKind.WORKTREE and not self._files.from_patch:
                target = worktree_target(self._root, path)
                if target.link_target is not None:
                    return Reply(f"{path!r} is a symbolic link to {target.link_target!r} inside "
                                 "the repository; read that path instead", (path,))
                if target.path.is_dir():
                    raise ToolError(f"{path!r} is a folder; list it with list_project_files "
                                    f"(glob {path + '/**'!r})")
            data, label = self._files.after_bytes(path), f"after: {side_label(self._new_side)}"
        return Reply(self._render_lines(path, label, data, start, end), (path,))

    def _render_lines(self, path: str, label: str, data: bytes, start: int, end: int) -> str:
        if is_binary(data):
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
        if self._files.from_patch:
            names = [c.path for c in self._ctx.change_set.files]
            matched = [n for n in names if pattern.fullmatch(n)]
            head = (f"this change comes from a patch file: only its {len(names)} files are "
                    f"known; {len(matched)} match {glob!r}")
            return Reply("\n".join([head, *matched]), tuple(matched))
        listing = self._files.require_listing()
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
        listing = self._files.require_listing()
        manifests = [name for name in listing if is_manifest(name)
                     and PurePosixPath(name).parts[0] not in _VENDORED]
        manifests.sort(key=lambda name: (name.count("/"), name))
        if not manifests:
            return Reply("no dependency manifests (pyproject.toml, requirements*.txt, setup.cfg, "
                         "package.json, go.mod, Gemfile, Cargo.toml, pom.xml, build.gradle) at "
                         "the root or one folder down of the after side")
        skipped = len(manifests) - MAX_MANIFESTS
        manifests = manifests[:MAX_MANIFESTS]
        self._files.after.prefetch(manifests)
        parts: list[str] = []
        for name in manifests:
            data = self._files.after.content(name)
            if data is None:
                parts.append(f"{name} - too large or unreadable")
            elif is_binary(data):
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
