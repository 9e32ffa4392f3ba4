"""The review agent: a tool-calling loop over read-only tools, and its findings (seed 001 §5).

Entry point: ``Reviewer`` / ``run_review`` (``reviewtui review`` and the workbench's ``R``):
the kept units' bundles go to the model, which may call the read-only ``tools`` (described to
it by ``tool_specs``, confined to the repository's "after" side by ``tool_paths``) and answers
with ``findings`` and a verdict, rendered by ``report`` (Markdown, JSON, SARIF). The same
``AgentLoop`` (``loop``) and ``ToolMemory`` (``memory``: full tool results kept aside, a
head/tail in the messages) serve the chat in ``conversation``. Everything works on a
``Workspace``: one loaded change and its plan.
"""

from __future__ import annotations

from reviewtui.agent.findings import Finding, ReviewResult
from reviewtui.agent.report import render
from reviewtui.agent.review import Reviewer, run_review
from reviewtui.agent.workspace import Workspace

__all__ = ["Finding", "ReviewResult", "Reviewer", "Workspace", "render", "run_review"]
