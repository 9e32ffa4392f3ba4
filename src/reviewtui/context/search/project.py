"""Project-wide search for the context bundle's extra requests (callers, usages, implementors).

A diff alone does not show who depends on the changed code. The rules and the planner ask for
callers of a changed function, the users of a data model, the implementations of an interface,
the code that reads a changed config key, or plain text; ``ProjectSearch`` answers those with
numbered snippets from the change's "after" side (see ``side``), filtered by syntax so a
caller is a real reference, not a comment, a string or a longer identifier (``references``).

Every method returns ``CodeSnippet``s (the pydantic contract of the bundle), best first and at
most ``settings.search_max_hits``; internally hits are frozen ``Hit``/``Snippet`` dataclasses.
A search that cannot run (a foreign patch, no repository, invalid text, git failing or timing
out) returns ``[]``; the caller records a note. Each query runs one ``git grep`` (Go interface
implementations: up to three) through ``CachedSide`` (``cached_side``), which reads each file
once per instance and keeps the recently used parse trees.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from reviewtui.code.kinds import TYPE_KINDS
from reviewtui.code.structure import Definition, FileStructure
from reviewtui.config import ContextSettings
from reviewtui.context.search.cached_side import CachedSide
from reviewtui.context.search.config_usage import (
    best_needle,
    config_needles,
    is_code_path,
    is_config_path,
)
from reviewtui.context.search.implementations import (
    go_implementations,
    go_interface_methods,
    heritage_owner,
)
from reviewtui.context.search.references import RefKind, plainly_not_a_use
from reviewtui.context.search.side import DEFAULT_MAX_FILE_BYTES, GrepLine, valid_text
from reviewtui.context.search.snippets import Hit, is_test_path, number_lines, plan_windows, render
from reviewtui.git.contents import ContentReader
from reviewtui.git.model import ChangeSet
from reviewtui.git.runner import GitRepo
from reviewtui.models import CodeSnippet

__all__ = ["ProjectSearch", "split_symbol"]

_MAX_SIGNATURE_LINES = 12

_SYMBOL_SPLIT = re.compile(r"\.|::|#|->|/")
_CODE_REFS = (RefKind.CALL, RefKind.REFERENCE)


def split_symbol(symbol: str) -> tuple[str, tuple[str, ...]] | None:
    """``pkg.Class.method`` -> (``method``, (``pkg``, ``Class``)); None if unusable.

    Also accepts ``Class::method``, ``Class#method``, ``path/to/pkg.Func``, ``(*T).Method`` and
    a trailing ``()``.
    """
    text = symbol.strip()
    if not valid_text(text):
        return None
    text = re.sub(r"\(.*\)$", "", text) if not text.startswith("(") else text
    text = re.sub(r"[()*&\s]", "", text)
    parts = [p for p in _SYMBOL_SPLIT.split(text) if p]
    if not parts:
        return None
    return parts[-1], tuple(parts[:-1])


class _Above:
    """Are ``limit`` snippets certain to rank before everything not yet checked?

    Hits in ``limit`` different files that rank below ``floor`` (the least rank any unchecked
    hit can get) are ``limit`` windows no later hit can displace.
    """

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._files: set[str] = set()
        self._pending: list[Hit] = []
        self._taken = 0

    def enough(self, hits: Sequence[Hit], floor: tuple[int, bool, int, str, int]) -> bool:
        self._pending += hits[self._taken:]
        self._taken = len(hits)
        still: list[Hit] = []
        for hit in self._pending:
            if hit.sort_key() < floor:
                self._files.add(hit.path)
            else:
                still.append(hit)
        self._pending = still
        return len(self._files) >= self._limit


def _excluded(path: str, line: int, exclude: Sequence[tuple[str, int, int]]) -> bool:
    return any(p == path and min(a, b) <= line <= max(a, b) for p, a, b in exclude)


class ProjectSearch:
    """Searches the "after" side of one change; share one instance across a review's units.

    ``max_file_bytes`` (default 2 MiB, the ``git.max_file_bytes`` default): larger files are
    not read or parsed; their hits show the matched line only.
    """

    def __init__(self, repo: GitRepo | None, change_set: ChangeSet, reader: ContentReader,
                 settings: ContextSettings, *,
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self._side = CachedSide(repo, change_set, reader, timeout=settings.search_timeout,
                                max_file_bytes=max_file_bytes)
        self._languages = self._side.languages
        self._limit = settings.search_max_hits
        self._context = settings.search_context_lines

    @property
    def available(self) -> bool:
        """False when nothing can be searched (a foreign patch, no repository)."""
        return self._side.searchable

    # --- public queries -----------------------------------------------------------------------

    def callers(self, symbol: str, *,
                exclude: Sequence[tuple[str, int, int]] = ()) -> list[CodeSnippet]:
        """Call sites and other code references of ``symbol`` (not its definition, comments,
        strings, imports or longer identifiers); ``exclude``: (path, first, last) line ranges.
        """
        parsed = split_symbol(symbol)
        if parsed is None:
            return []
        name, qualifier = parsed
        # Rank what grep found before parsing anything: a hit's final rank is this floor, plus
        # one if it is a mere reference rather than a call. Files are then checked in that
        # order and the search stops once enough snippets are sure to rank above the rest.
        candidates: list[tuple[tuple[int, bool, int, str, int], GrepLine]] = []
        for found in self._side.grep([name]):
            if _excluded(found.path, found.line, exclude) or not self._side.maybe_code(found.path):
                continue
            if plainly_not_a_use(self._languages.of(found.path), found.text, name):
                continue  # a comment or the definition itself: no need to parse the file
            # A file that never names the qualifier likely calls another ``name``: last.
            qualified = self._qualifier_rank(qualifier, found, self._side.content(found.path))
            candidates.append(((int(qualified == 2), is_test_path(found.path), 2 * qualified,
                                found.path, found.line), found))
        candidates.sort(key=lambda c: c[0])
        hits: list[Hit] = []
        above = _Above(self._limit)
        for i, (floor, found) in enumerate(candidates):
            if i and found.path != candidates[i - 1][1].path and above.enough(hits, floor):
                break
            kinds = [k for k in self._side.classify(found, name) if k in _CODE_REFS]
            if kinds:
                hits.append(Hit(found.path, found.line, found.text, symbol, floor[0],
                                floor[2] + (0 if RefKind.CALL in kinds else 1)))
        return self._finish(hits, "callers")

    def text(self, keyword: str, *, limit: int | None = None) -> list[CodeSnippet]:
        """Every line containing ``keyword`` literally (case-sensitive), with context.

        ``limit``: at most this many snippets instead of ``settings.search_max_hits``.
        """
        if not valid_text(keyword):
            return []
        found = self._side.grep([keyword], prefetch=False, identifier=False)
        hits = [Hit(g.path, g.line, g.text, keyword) for g in found]
        return self._finish(hits, "search", limit=limit)

    def config_usage(self, keys: Sequence[str], *,
                     config_path: str | None = None) -> list[CodeSnippet]:
        """Where config ``keys`` are read in code (config files themselves are skipped).

        Searched per key: the key itself, its ``UPPER_SNAKE`` environment form, and for nested
        keys (``server.port``) the last part quoted (``"port"``, ``'port'``) or as an attribute
        (``.port``).
        """
        needles = config_needles(keys)
        if not needles:
            return []
        hits: list[Hit] = []
        for found in self._side.grep(list(needles)):
            if found.path == config_path or is_config_path(found.path):
                continue
            best = best_needle(self._side.source(found.path), found.line, found.text, needles)
            if best is None:
                continue
            rank, key = best
            primary = 0 if is_code_path(found.path) else 1
            hits.append(Hit(found.path, found.line, found.text, key, primary, rank))
        return self._finish(hits, "config_usage")

    def implementations(self, symbol: str) -> list[CodeSnippet]:
        """Types that extend/implement/include ``symbol``: one snippet per implementing type."""
        parsed = split_symbol(symbol)
        if parsed is None:
            return []
        name = parsed[0]
        hits: list[Hit] = []
        seen: set[tuple[str, str]] = set()
        go_interface: tuple[str, ...] | None = None
        for found in self._side.grep([name]):
            source = self._side.source(found.path)
            if self._languages.of(found.path) == "go":
                if go_interface is None and source is not None:
                    go_interface = go_interface_methods(source, name)
                continue
            owner = heritage_owner(source, found.line, found.text, name)
            if owner is not None and (found.path, owner) not in seen:
                seen.add((found.path, owner))
                hits.append(Hit(found.path, found.line, found.text, symbol))
        if go_interface:
            for path, line in go_implementations(go_interface, self._side.grep, self._side.source):
                lines = self._side.file_lines(path) or []
                text = lines[line - 1] if line <= len(lines) else ""
                hits.append(Hit(path, line, text, symbol))
        return self._finish(hits, "implementations", merge=False)

    def model_usage(self, symbol: str, *,
                    exclude: Sequence[tuple[str, int, int]] = ()) -> list[CodeSnippet]:
        """References to a data model class (imports, annotations, instantiation, string
        references like ``"app.Order"``), files other than the model's own first."""
        parsed = split_symbol(symbol)
        if parsed is None:
            return []
        name = parsed[0]
        # Files come in rank order (non-test, then by path); a file's hits are final once the
        # whole file is seen (is it the model's own?), and the search stops once enough
        # snippets are sure to rank above every file not yet seen.
        hits: list[Hit] = []
        above = _Above(self._limit)
        found_all = self._side.grep([name])
        refs: list[tuple[GrepLine, int]] = []
        defines = False
        for i, found in enumerate(found_all):
            if i and found.path != found_all[i - 1].path:
                hits += [Hit(g.path, g.line, g.text, symbol, int(defines), secondary)
                         for g, secondary in refs]
                refs, defines = [], False
                if above.enough(hits, (0, is_test_path(found.path), 0, found.path, found.line)):
                    break
            if not self._side.maybe_code(found.path):
                continue
            kinds = self._side.classify(found, name)
            defines = defines or RefKind.DEFINITION in kinds
            if _excluded(found.path, found.line, exclude):
                continue
            used = [k for k in kinds if k.is_code or k is RefKind.NAMED_STRING]
            if used:
                refs.append((found, 1 if all(k is RefKind.IMPORT for k in used) else 0))
        hits += [Hit(g.path, g.line, g.text, symbol, int(defines), secondary)
                 for g, secondary in refs]
        return self._finish(hits, "model_usage")

    def class_methods(self, file_path: str, class_name: str) -> list[CodeSnippet]:
        """The methods of ``class_name`` in ``file_path`` (after side): one snippet per method,
        its decorators and signature lines, numbered."""
        parsed = split_symbol(class_name)
        if parsed is None or not self.available or not valid_text(file_path):
            return []
        structure = self._side.structure(file_path)
        lines = self._side.file_lines(file_path)
        if structure is None or lines is None:
            return []
        wanted = ".".join((*parsed[1], parsed[0]))
        methods = _methods_of(structure, wanted, parsed[0])
        snippets: list[CodeSnippet] = []
        for method in methods[: self._limit]:
            last = min(method.signature_end_line, method.start_line + _MAX_SIGNATURE_LINES - 1)
            text = number_lines(lines[method.start_line - 1 : last], method.start_line)
            snippets.append(CodeSnippet(file_path=file_path, line=method.header_line,
                                        snippet=text, symbol=class_name, kind="class_methods"))
        return snippets

    # --- helpers ------------------------------------------------------------------------------

    def prefetch_names(self, symbols: Iterable[str]) -> None:
        """Batch the greps of many symbols' names (callers, model usage) into a few."""
        names = [parsed[0] for parsed in map(split_symbol, symbols) if parsed is not None]
        self._side.prefetch_names(names)

    @staticmethod
    def _qualifier_rank(qualifier: tuple[str, ...], found: GrepLine,
                        data: bytes | None) -> int:
        """0: the line names the qualifier (or there is none); 1: the file does; 2: neither."""
        if not qualifier:
            return 0
        owner = qualifier[-1]
        if owner.lower() in found.text.lower():
            return 0
        if data is not None and owner.encode("utf-8") in data:
            return 1
        return 2

    def _finish(self, hits: Iterable[Hit], kind: str, *, merge: bool = True,
                limit: int | None = None) -> list[CodeSnippet]:
        cap = self._limit if limit is None else max(1, limit)
        windows = plan_windows(list(hits), self._context, cap, merge=merge)
        self._side.prefetch(w.path for w in windows)
        return [render(w, self._side.file_lines(w.path)).to_model(kind) for w in windows]


def _methods_of(structure: FileStructure, qualified: str, name: str) -> list[Definition]:
    """Methods of the class ``qualified`` (or the only class called ``name``)."""
    defs = structure.definitions
    classes = [d for d in defs if d.kind in TYPE_KINDS and d.qualified_name == qualified]
    if not classes:
        classes = [d for d in defs if d.kind in TYPE_KINDS and d.name == name]
    owners = {c.qualified_name for c in classes} or {name}
    # Go methods and C++ ``Widget::draw`` sit outside their type, qualified by its name.
    return [d for d in defs if d.kind in ("method", "function") and (
        d.parent in owners or (d.kind == "method"
                               and d.qualified_name.split(".")[-2:-1] == [name]))]
