"""Tree-sitter based code structure of a single file version.

Answers the questions review planning asks about a changed line range: which
function or class encloses it, which definitions it touches or (re)defines, and
which lines are only comments or only imports.  Pure data, no UI imports.
``languages`` maps a path to a language name; ``grammars`` loads the tree-sitter grammar and
structure query of each supported language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewtui import lazy_exports
from reviewtui.code.structure import Definition, FileStructure

if TYPE_CHECKING:
    from reviewtui.code.analyze import analyze_source
    from reviewtui.code.grammars import LANGUAGES

# The parser's names when first asked for: what only names a language (its specs, the cache's
# stamp of the grammars) needs no tree-sitter.
_LAZY = {"analyze_source": "reviewtui.code.analyze", "LANGUAGES": "reviewtui.code.grammars"}

__all__ = ["LANGUAGES", "Definition", "FileStructure", "analyze_source"]

__getattr__ = lazy_exports(__name__, _LAZY, globals())
