"""Grammar loading: one tree-sitter Language, Query and Parser per language.

Grammar packages are imported lazily (a review of a Go-only repository never
loads the Java grammar) and compiled queries are cached for the life of the
process.  Parsers hold mutable state, so each thread gets its own.
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass
from functools import cache

from tree_sitter import Language, Parser, Query

from reviewtui.code.queries import QUERIES

# language id -> (grammar module, function returning the language pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
}

LANGUAGES: frozenset[str] = frozenset(_GRAMMARS)


@dataclass(frozen=True, slots=True)
class Grammar:
    """A loaded grammar together with its compiled structure query."""

    name: str
    language: Language
    query: Query


@cache
def grammar(name: str) -> Grammar | None:
    """Return the grammar for ``name`` or None if it is unsupported or unavailable."""
    spec = _GRAMMARS.get(name)
    if spec is None:
        return None
    module_name, func_name = spec
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    language = Language(getattr(module, func_name)())
    return Grammar(name=name, language=language, query=Query(language, QUERIES[name]))


_local = threading.local()


def parser(g: Grammar) -> Parser:
    """Return this thread's parser for ``g`` (parsers are not thread-safe)."""
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = {}
        _local.parsers = parsers
    p = parsers.get(g.name)
    if p is None:
        p = Parser(g.language)
        parsers[g.name] = p
    return p
