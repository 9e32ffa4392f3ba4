"""Tree-sitter based code structure of a single file version.

Answers the questions review planning asks about a changed line range: which
function or class encloses it, which definitions it touches or (re)defines, and
which lines are only comments or only imports.  Pure data, no UI imports.
``languages`` maps a path to a language name; ``grammars`` loads the tree-sitter grammar and
structure query of each supported language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reviewtui.code.structure import Definition, FileStructure

if TYPE_CHECKING:
    from reviewtui.code.analyze import analyze_source
    from reviewtui.code.grammars import LANGUAGES


def __getattr__(name: str) -> Any:
    """The parser's names when first asked for: what only names a language (its specs, the
    cache's stamp of the grammars) needs no tree-sitter."""
    homes = {"analyze_source": "analyze", "LANGUAGES": "grammars"}
    if name not in homes:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{homes[name]}"), name)
    globals()[name] = value
    return value

__all__ = ["LANGUAGES", "Definition", "FileStructure", "analyze_source"]
