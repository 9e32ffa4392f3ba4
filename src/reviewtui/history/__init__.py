"""The repository's history as signals, read only from the ancestors of a change's base.

``fixes.FixMatcher`` says which commits fix bugs (shared by ``eval`` and the signals);
``line_history.LineHistory`` blames a change's touched lines at its base: earlier fixes among
them, recent changes, authors, and whether the change's author wrote any.
"""

from __future__ import annotations

from reviewtui.history.fixes import FixMatcher
from reviewtui.history.line_history import LineHistory

__all__ = ["FixMatcher", "LineHistory"]
