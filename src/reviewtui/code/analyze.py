"""Entry point: parse one file version and extract its review-relevant structure.

This is the only place that runs the parser; it glues grammar loading, the
query, definition building and line classification together and guarantees
that bad input (garbled or non-UTF-8 bytes) never raises.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from tree_sitter import Node, Query, QueryCursor

from reviewtui.code.block_starts import Lines
from reviewtui.code.definitions import build_definitions
from reviewtui.code.grammars import Grammar, grammar, parser
from reviewtui.code.language_specs import spec_for
from reviewtui.code.line_kinds import kinds_in, kinds_source, line_kinds, mapped_kinds
from reviewtui.code.lines import comment_lines, node_lines
from reviewtui.code.structure import Definition, FileStructure
from reviewtui.code.windows import skeletons

_log = logging.getLogger(__name__)
# Ruby's ``=begin`` ... ``=end`` comment: a file holding one is parsed whole, not in windows
_RUBY_BLOCK_COMMENT = re.compile(rb"^=begin(?=\s|$)", re.MULTILINE)


def _line_count(source: bytes, lines: list[bytes]) -> int:
    """Lines of ``source`` (split at newlines into ``lines``), a last one without a newline
    counted."""
    if not source:
        return 0
    return len(lines) - (1 if source.endswith(b"\n") else 0)


def analyze_source(
    language: str, source: bytes, lines: Sequence[tuple[int, int]] | None = None
) -> FileStructure | None:
    """Structure of ``source`` written in ``language``; None if the language is unsupported.

    With ``lines`` (1-based inclusive ranges), only the top-level blocks holding those lines are
    analysed: lookups for lines inside the ranges give the same answers as a whole-file parse.
    """
    g = grammar(language)
    if g is None:
        return None
    data = source.encode("utf-8", "surrogateescape") if isinstance(source, str) else bytes(source)
    if not lines:
        return _in_namespaces(_analyze(g, data, lines), data)
    text = Lines(data)  # split once, for the skeletons and for a whole parse alike
    structure = _analyze_windows(g, data, lines, text)
    return _in_namespaces(structure or _analyze(g, data, lines, text.rows), data)


def _in_namespaces(structure: FileStructure, data: bytes) -> FileStructure:
    """Definitions after a statement-form namespace (``namespace App\\Http;``) named in it."""
    spec = spec_for(structure.language)
    pattern = spec.namespace_statement if spec is not None else None
    if pattern is None or b"namespace" not in data:
        return structure
    starts: list[tuple[int, str]] = []  # (1-based line of the statement, dotted name)
    for found in pattern.finditer(data):
        name = found.group(1).decode("utf-8", "replace").replace("\\", ".").strip(".")
        starts.append((data.count(b"\n", 0, found.start()) + 1, name))
    if not starts:
        return structure

    def named(line: int, name: str | None) -> str | None:
        space = next((ns for start, ns in reversed(starts) if start < line), None)
        return f"{space}.{name}" if space and name is not None else name

    return dataclasses.replace(structure, definitions=tuple(
        dataclasses.replace(d, qualified_name=named(d.start_line, d.qualified_name) or "",
                            parent=named(d.start_line, d.parent))
        for d in structure.definitions))


def _analyze_windows(
    g: Grammar, data: bytes, ranges: Sequence[tuple[int, int]], source: Lines | None = None
) -> FileStructure | None:
    """Analyse skeletons around the changes; None if any does not parse cleanly.

    Every piece is parsed before any is read: a file whose skeletons do not all parse is
    parsed whole, and reading its clean pieces first was work thrown away.
    """
    if g.name == "ruby" and _RUBY_BLOCK_COMMENT.search(data):
        return None  # its lines sit at column 0 like code: a window would read them as code
    source = source if source is not None else Lines(data)
    source_lines = source.rows
    spec = spec_for(g.name)
    groups = skeletons(source, ranges, opening=spec.opening_tag if spec is not None else None,
                       max_rows=len(source_lines) * 9 // 10)
    if groups is None:
        return None  # not faithful, or not worth it: most of the file is needed anyway
    the_parser = parser(g)
    pieces: list[tuple[list[int], list[bytes], bytes, Node]] = []
    for rows in groups:
        lines = [source_lines[r] for r in rows]
        lines.append(b"")  # the piece ends with a newline
        piece = b"\n".join(lines)
        root = the_parser.parse(piece).root_node
        if root.has_error:
            return None
        pieces.append((rows, lines, piece, root))
    definitions: dict[tuple[str, str, int], Definition] = {}
    comments: set[int] = set()
    imports: set[int] = set()
    kinds: dict[str, set[int]] = {}
    # The line kinds of the changed lines only, as a whole-file parse reads them (``_analyze``
    # with ``ranges``): nothing else asks for them, and reading a piece's every line cost a
    # third of them more on a large change.
    changed = {n - 1 for low, high in ranges for n in range(low, high + 1)}
    for rows, lines, piece, root in pieces:
        count = len(rows)
        read = _read(g, root, piece, lines,
                     _runs([i + 1 for i, row in enumerate(rows) if row in changed]) or None,
                     rows)
        for definition in read.definitions:
            key = (definition.kind, definition.qualified_name, definition.start_line)
            known = definitions.get(key)
            if known is None or known.end_line < definition.end_line:
                definitions[key] = definition
        comments.update(rows[n - 1] + 1 for n in read.comments if n <= count)
        imports.update(rows[n - 1] + 1 for n in read.imports if n <= count)
        for category, numbers in mapped_kinds(read.kinds or {}, rows).items():
            kinds.setdefault(category, set()).update(numbers)
    return FileStructure(
        language=g.name,
        line_count=_line_count(data, source_lines),
        definitions=tuple(definitions.values()),
        comment_lines=frozenset(comments),
        import_lines=frozenset(imports),
        has_errors=False,
        line_kinds={category: frozenset(numbers) for category, numbers in kinds.items()},
    )


def _runs(lines: list[int]) -> list[tuple[int, int]]:
    """Ascending line numbers as runs of consecutive ones (1-based inclusive ranges)."""
    runs: list[tuple[int, int]] = []
    for line in lines:
        if runs and runs[-1][1] == line - 1:
            runs[-1] = (runs[-1][0], line)
        else:
            runs.append((line, line))
    return runs


def _in_query_order(g: Grammar, found: dict[str, list[Node]]) -> dict[str, list[Node]]:
    """``found`` by capture name in the order the query declares them, each name's nodes by
    position. Tree-sitter's order of a capture dict varies between processes on the same tree
    (seen on jQuery: ``def.var`` before ``def.function`` in one run, after it in the next), and
    the first capture of a node decides its kind: without a fixed order, one unit got
    ``in_single_function`` in some runs only."""
    return {name: sorted(found[name], key=_position) if len(found[name]) > 1 else found[name]
            for name in _capture_names(g.name) if name in found}


def _position(node: Node) -> tuple[int, int, int]:
    return node.start_byte, node.end_byte, node.kind_id


@cache
def _capture_names(language: str) -> tuple[str, ...]:
    """The capture names of the structure query of ``language``, in the order it declares them."""
    g = grammar(language)
    query = g.query if g is not None else None
    if query is None:
        return ()
    return tuple(query.capture_name(i) for i in range(query.capture_count))


class _Read(NamedTuple):
    """What one parse says: definitions, comment and import lines, line kinds."""

    definitions: tuple[Definition, ...]
    comments: frozenset[int]
    imports: frozenset[int]
    kinds: dict[str, frozenset[int]] | None


def _read(g: Grammar, root: Node, data: bytes, lines: list[bytes],
          ranges: Sequence[tuple[int, int]] | None, rows: Sequence[int] | None = None) -> _Read:
    """Read the parse ``root`` of ``data`` (split into ``lines``). ``ranges``: read the line
    kinds of these lines (empty: of every line; None: none). ``rows``: the file rows of a
    piece's lines, to number its definitions as the file's lines."""
    kinds: dict[str, frozenset[int]] | None = None
    try:
        both = (_both_query(g.name) if ranges is not None and _mostly(ranges, root, g.name)
                else None)
        if both is not None:
            found = QueryCursor(both).captures(root)
            kinds = kinds_in(found, ranges or None)
        else:
            if ranges is not None:
                kinds = line_kinds(g.name, g.language, root, ranges or None)
            found = QueryCursor(g.query).captures(root)
        captures = _in_query_order(g, found)
        definitions = build_definitions(captures, data, rows, language=g.name)
        comments = comment_lines(captures.get("comment", ()), lines)
        imports = node_lines(captures.get("import", ()))
    except Exception:  # defensive: structure is an aid, never a reason to fail a review
        _log.exception("structure extraction failed for %s source", g.name)
        definitions, comments, imports = (), frozenset(), frozenset()
    return _Read(definitions, comments, imports, kinds)


# Share of a parse's lines in the asked ranges from which its line kinds are read in the walk
# that finds its structure (one query of both): below it, the nodes outside the ranges that
# this walk also hands over cost more than a second walk over the ranges alone.
_ONE_WALK_SHARE = 0.7
# Grammars whose one walk of both queries costs less than two walks however few lines are
# asked: Python's structure query is small (its files of Django 4.2 -> 5.2: 2.86 -> 2.81 s,
# flask 0.197 -> 0.185 s, click 0.312 -> 0.297 s). JavaScript's is not (jQuery: 0.063 s in one
# walk, 0.036 s in two); Java, Go and Ruby gain nothing measurable.
_ONE_WALK_ALWAYS = frozenset({"python"})


def _mostly(ranges: Sequence[tuple[int, int]], root: Node, language: str) -> bool:
    """Read the line kinds of ``ranges`` (empty: every line) in the structure's walk of
    ``root``: they cover most of it, or ``language``'s one walk always costs less."""
    if not ranges or language in _ONE_WALK_ALWAYS:
        return True
    return sum(high - low + 1 for low, high in ranges) >= _ONE_WALK_SHARE * (root.end_point[0] + 1)


@cache
def _both_query(language: str) -> Query | None:
    """The structure query and the line kinds query of ``language`` in one (their capture
    names do not meet: ``def.*``, ``comment``, ``import`` against ``<category>.<mode>``)."""
    g = grammar(language)
    spec = spec_for(language)
    source = kinds_source(language, g.language) if g is not None else None
    if g is None or spec is None or spec.grammar is None or source is None:
        return None
    return Query(g.language, spec.grammar.query + "\n" + source)


def _analyze(g: Grammar, data: bytes, ranges: Sequence[tuple[int, int]] | None = None,
             lines: list[bytes] | None = None) -> FileStructure:
    """``ranges``: read the line kinds of these lines (empty: of every line; None: none);
    ``lines``: ``data`` split at newlines, if the caller has it."""
    root = parser(g).parse(data).root_node
    lines = lines if lines is not None else data.split(b"\n")
    read = _read(g, root, data, lines, ranges)
    return FileStructure(
        language=g.name,
        line_count=_line_count(data, lines),
        definitions=read.definitions,
        comment_lines=read.comments,
        import_lines=read.imports,
        has_errors=root.has_error,
        line_kinds=read.kinds,
    )
