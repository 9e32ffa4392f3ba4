"""Entry point: parse one file version and extract its review-relevant structure.

This is the only place that runs the parser; it glues grammar loading, the
query, definition building and line classification together and guarantees
that bad input (garbled or non-UTF-8 bytes) never raises.
"""

from __future__ import annotations

import logging

from tree_sitter import QueryCursor

from reviewtui.code.definitions import build_definitions
from reviewtui.code.languages import grammar, parser
from reviewtui.code.lines import comment_lines, node_lines
from reviewtui.code.structure import FileStructure

_log = logging.getLogger(__name__)


def _line_count(source: bytes) -> int:
    if not source:
        return 0
    return source.count(b"\n") + (0 if source.endswith(b"\n") else 1)


def analyze_source(language: str, source: bytes) -> FileStructure | None:
    """Structure of ``source`` written in ``language``; None if the language is unsupported."""
    g = grammar(language)
    if g is None:
        return None
    data = source.encode("utf-8", "surrogateescape") if isinstance(source, str) else bytes(source)
    tree = parser(g).parse(data)
    root = tree.root_node
    try:
        captures = QueryCursor(g.query).captures(root)
        definitions = build_definitions(captures, data)
        comments = comment_lines(captures.get("comment", ()), data.split(b"\n"))
        imports = node_lines(captures.get("import", ()))
    except Exception:  # defensive: structure is an aid, never a reason to fail a review
        _log.exception("structure extraction failed for %s source", language)
        definitions, comments, imports = (), frozenset(), frozenset()
    return FileStructure(
        language=language,
        line_count=_line_count(data),
        definitions=definitions,
        comment_lines=comments,
        import_lines=imports,
        has_errors=root.has_error,
    )
