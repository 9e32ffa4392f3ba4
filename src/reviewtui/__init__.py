"""reviewtui: a terminal workbench for reviewing code changes with an LLM.

The package is a pipeline (git -> units -> rules -> plan -> context -> conversation) with a
thin Textual shell on top; nothing outside ``reviewtui.tui`` imports Textual or Rich.
"""

from __future__ import annotations

__version__ = "0.1.0"
