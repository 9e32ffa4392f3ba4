"""reviewtui: a terminal workbench for reviewing code changes with an LLM.

The package is a pipeline, one subpackage per stage, each with one public entry point::

    git -> units -> rules -> plan -> context -> agent / conversation
    (code: tree-sitter structure for units, rules and search; analysis: units + rule scores per
    file, cached; llm: the model client; sessions: what a review keeps, in SQLite)

``pipeline`` wires the stages for both shells: ``cli`` (the headless subcommands) and ``tui``
(the Textual workbench). ``config``, ``errors`` and ``models`` (the seeds' JSON contracts) are
shared by all. Nothing outside ``reviewtui.tui`` imports Textual or Rich.
"""

from __future__ import annotations

__version__ = "0.1.0"
