"""Grammar loading: one tree-sitter Language, Query and Parser per language.

Which wheel and query a language uses is a row of the language table (``language_specs``).
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

from reviewtui.code.language_specs import GRAMMAR_LANGUAGES, spec_for

LANGUAGES: frozenset[str] = GRAMMAR_LANGUAGES


@dataclass(frozen=True, slots=True)
class Grammar:
    """A loaded grammar together with its compiled structure query."""

    name: str
    language: Language
    query: Query


@cache
def grammar(name: str) -> Grammar | None:
    """Return the grammar for ``name`` or None if it is unsupported or unavailable."""
    spec = spec_for(name)
    source = spec.grammar if spec is not None else None
    if source is None:
        return None
    try:
        module = importlib.import_module(source.module)
    except ImportError:
        return None
    language = Language(getattr(module, source.function)())
    return Grammar(name=name, language=language, query=Query(language, source.query))


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
