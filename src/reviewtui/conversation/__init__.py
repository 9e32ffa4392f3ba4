"""The conversation stage: the review agent, its tools, rounds, memory, packing, sessions.

Entry points: ``Reviewer`` / ``run_review`` (``reviewtui review``: findings and a verdict) and
``ChatSession`` (``reviewtui ask`` and the TUI chat: rounds with inheritance, packed at send time,
persisted in the ``SessionStore``). Both work on a ``Workspace`` (a loaded change plus its fused
plan). No Textual here: the TUI is a thin shell over this package.
"""

from __future__ import annotations

from reviewtui.conversation.engine import AskResult, ChatSession
from reviewtui.conversation.findings import Finding, ReviewResult
from reviewtui.conversation.report import render
from reviewtui.conversation.review import Reviewer, run_review
from reviewtui.conversation.store import SessionStore, default_store_path
from reviewtui.conversation.workspace import Workspace

__all__ = [
    "AskResult",
    "ChatSession",
    "Finding",
    "ReviewResult",
    "Reviewer",
    "SessionStore",
    "Workspace",
    "default_store_path",
    "render",
    "run_review",
]
