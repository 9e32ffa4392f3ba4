"""reviewtui: a terminal workbench for reviewing code changes with an LLM.

The package is a pipeline, one subpackage per stage, each with one public entry point::

    git -> units -> rules -> plan -> context -> agent / conversation
    (code: tree-sitter structure for units, rules and search; analysis: units + rule scores per
    file, cached; llm: the model client; sessions: what a review keeps, in SQLite)

``pipeline`` wires the stages for both shells: ``cli`` (the headless subcommands) and ``tui``
(the Textual workbench). ``config``, ``errors`` and ``models`` (the seeds' JSON contracts) are
shared by all. Nothing outside ``reviewtui.tui`` imports Textual or Rich.

The workbench must be on screen before the heavy stages load (the git layer, tree-sitter,
the scanners' adapters): their packages export those names through ``lazy_exports`` (PEP 562's
module ``__getattr__``) instead of importing them; type checkers see them through
``TYPE_CHECKING`` imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__version__ = "0.1.0"


def lazy_exports(package: str, table: Mapping[str, str],
                 namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``table`` maps a name to the module defining it; a
    name is imported once, then kept in the package's ``namespace``."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # looked up once
        return value

    return __getattr__

