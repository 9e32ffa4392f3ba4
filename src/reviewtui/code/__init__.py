"""Tree-sitter based code structure of a single file version.

Answers the questions review planning asks about a changed line range: which
function or class encloses it, which definitions it touches or (re)defines, and
which lines are only comments or only imports.  Pure data, no UI imports.
``languages`` maps a path to a language name; ``grammars`` loads the tree-sitter grammar and
structure query of each supported language.
"""

from __future__ import annotations

from reviewtui.code.analyze import analyze_source
from reviewtui.code.grammars import LANGUAGES
from reviewtui.code.structure import Definition, FileStructure

__all__ = ["LANGUAGES", "Definition", "FileStructure", "analyze_source"]
