"""The "after" side as ``ProjectSearch``'s queries read it: capped greps and cached parses.

``AfterSide`` (``side``) runs ``git grep`` and reads files; every query then needs the same few
things of the files a grep hit: the hits in rank order and capped, each file's language, its
lines, its parse tree, its definitions, and what a name is on a hit line. Kept apart from the
queries (``project``) so that they read as ranking and filtering, and so that every query of a
review shares one set of caches: each file is read once per instance, parsed again only if it
fell out of the cache of recently used trees, and a line's classification is computed once
(several units ask for the same name).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence

from reviewtui.code.analyze import analyze_source
from reviewtui.code.languages import PathLanguages
from reviewtui.code.structure import FileStructure
from reviewtui.context.search.config_usage import NON_CODE_LANGUAGES
from reviewtui.context.search.references import RefKind, SourceFile, classify
from reviewtui.context.search.side import AfterSide, GrepLine
from reviewtui.context.search.snippets import is_test_path, split_lines
from reviewtui.git.contents import ContentReader
from reviewtui.git.model import ChangeSet
from reviewtui.git.runner import GitRepo
from reviewtui.units.languages import repository_languages

__all__ = ["CachedSide"]

# Hits beyond these (ordered non-test first, then by path) are not examined at all: a search
# for a very common name must not parse half the repository.
_MAX_CANDIDATE_LINES = 3000
_MAX_CANDIDATE_FILES = 400
_TREES_KEPT = 32  # files whose parse trees stay cached: a tree is ~100 bytes per source byte


class CachedSide:
    """One change's "after" side with the caches of a review's searches (see the module)."""

    def __init__(self, repo: GitRepo | None, change_set: ChangeSet, reader: ContentReader, *,
                 timeout: float, max_file_bytes: int) -> None:
        self._side = AfterSide(repo, change_set, reader, timeout=timeout,
                               max_file_bytes=max_file_bytes)
        self.languages: PathLanguages = repository_languages(repo, change_set)  # ``.h``: C/C++
        # Parse trees are big: keep those of the files in use, not of every file ever hit.
        self._sources: OrderedDict[str, SourceFile | None] = OrderedDict()
        self._lines: dict[str, list[str] | None] = {}
        self._kinds: dict[tuple[str, int, str], tuple[RefKind, ...]] = {}
        self._structures: OrderedDict[str, FileStructure | None] = OrderedDict()

    @property
    def searchable(self) -> bool:
        """False when nothing can be searched (a foreign patch, no repository)."""
        return self._side.searchable

    def content(self, path: str) -> bytes | None:
        return self._side.content(path)

    def prefetch(self, paths: Iterable[str]) -> None:
        self._side.prefetch(paths)

    def prefetch_names(self, names: Iterable[str]) -> None:
        self._side.prefetch_names(names)

    def grep(self, patterns: Sequence[str], pathspecs: Sequence[str] = (), *,
             prefetch: bool = True, identifier: bool = True) -> list[GrepLine]:
        """The hits non-test files first, then by path and line, capped (see the limits)."""
        if identifier and len(patterns) == 1 and not pathspecs:
            found = self._side.grep_name(patterns[0])
        else:
            found = self._side.grep(patterns, pathspecs)
        found.sort(key=lambda g: (is_test_path(g.path), g.path, g.line))
        kept: list[GrepLine] = []
        files: dict[str, None] = {}
        for hit in found[:_MAX_CANDIDATE_LINES]:
            if hit.path not in files and len(files) >= _MAX_CANDIDATE_FILES:
                continue
            files.setdefault(hit.path, None)
            kept.append(hit)
        if prefetch:  # every hit file will be parsed: read them all in one go
            self._side.prefetch(files)
        return kept

    def source(self, path: str) -> SourceFile | None:
        if path in self._sources:
            self._sources.move_to_end(path)
            return self._sources[path]
        data = self._side.content(path)
        source = SourceFile(path, self.languages.of(path), data) if data is not None else None
        self._sources[path] = source
        if len(self._sources) > _TREES_KEPT:
            self._sources.popitem(last=False)
        return source

    def classify(self, found: GrepLine, name: str) -> tuple[RefKind, ...]:
        """What ``name`` is on a grep line (remembered: several units ask for the same name)."""
        key = (found.path, found.line, name)
        kinds = self._kinds.get(key)
        if kinds is None:
            kinds = self._kinds[key] = tuple(classify(self.source(found.path), found.line,
                                                      found.text, name))
        return kinds

    def file_lines(self, path: str) -> list[str] | None:
        if path not in self._lines:
            data = self._side.content(path)
            self._lines[path] = split_lines(data) if data is not None else None
        return self._lines[path]

    def structure(self, path: str) -> FileStructure | None:
        if path in self._structures:
            self._structures.move_to_end(path)
            return self._structures[path]
        language = self.languages.of(path)
        data = self._side.content(path)
        structure = (analyze_source(language, data)
                     if language is not None and data is not None else None)
        self._structures[path] = structure
        if len(self._structures) > _TREES_KEPT:
            self._structures.popitem(last=False)
        return structure

    def maybe_code(self, path: str) -> bool:
        return self.languages.of(path) not in NON_CODE_LANGUAGES
