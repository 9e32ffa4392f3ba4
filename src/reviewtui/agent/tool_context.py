"""What the review agent's tools may look at: the change, its two sides and lazy views of it.

Kept apart from ``tools`` (the schemas and the guarded runner), ``tool_impl`` (what each tool
does) and ``tool_files`` (the files of the change's two sides) because all of them read it: the
runner builds the tools over one context, each tool and its file reads read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reviewtui.context.search import ProjectSearch
from reviewtui.git.contents import ContentReader
from reviewtui.git.model import ChangeSet
from reviewtui.git.runner import GitRepo
from reviewtui.models import ContextBundle, ScannerFinding

__all__ = ["ToolContext"]


@dataclass(frozen=True)
class ToolContext:
    """Everything the tools may look at; the callables are the caller's (lazy) views."""

    root: Path  # resolved repository root
    repo: GitRepo | None
    change_set: ChangeSet
    reader: ContentReader
    search: ProjectSearch | None
    unit: Callable[[str], dict[str, Any] | None]  # unit id or prefix -> IndexUnit JSON
    bundle: Callable[[str], ContextBundle | None]  # unit id or prefix -> its bundle
    scanner_issues: Callable[[str], list[ScannerFinding] | None]  # path -> findings; None: none ran
    tool_result: Callable[[str], str | None]  # tool-memory ref id -> the full stored result
