"""Where a line comment goes on a GitLab merge request, and its text as GitLab reads it.

Pure. GitLab anchors a diff note by a ``position`` (``doc/api/discussions.md``, "Create a new
thread in the merge request diff"): the merge request's ``diff_refs`` (base, start and head
sha), both paths, and the line: ``new_line`` alone on an added line, ``old_line`` alone on a
removed one, both on an unchanged line (GitLab finds no line code, and keeps no note, for an
unchanged line given by one number only). So the diff's own line pairs are kept here.

A comment on several lines is anchored on its last line (a multi-line ``line_range`` needs
GitLab's line codes of both ends): its text says which lines, and a suggestion block says how
many lines above it replaces (GitLab's ```` ```suggestion:-N+0 ````), so applying it replaces the
same lines as on GitHub.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from reviewtui.forge.draft import DraftComment
from reviewtui.git.model import ChangeSet

_SUGGESTION = re.compile(r"^(`{3,})suggestion$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class DiffRefs:
    base_sha: str
    start_sha: str
    head_sha: str


@dataclass
class LineMap:
    """Per file of the diff: its two paths and the unchanged lines' numbers on both sides."""

    paths: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    new_to_old: dict[str, dict[int, int]] = field(default_factory=dict)  # by new path
    old_to_new: dict[str, dict[int, int]] = field(default_factory=dict)  # by old path

    @classmethod
    def of(cls, change_set: ChangeSet) -> LineMap:
        found = cls()
        for change in change_set.files:
            old = change.old_path or change.new_path or ""
            new = change.new_path or change.old_path or ""
            found.paths[(new, "RIGHT")] = found.paths[(old, "LEFT")] = (old, new)
            for hunk in change.hunks:
                for line in hunk.lines:
                    if line.kind == " " and line.old_no and line.new_no:
                        found.new_to_old.setdefault(new, {})[line.new_no] = line.old_no
                        found.old_to_new.setdefault(old, {})[line.old_no] = line.new_no
        return found


def gitlab_body(comment: DraftComment) -> str:
    """The comment's text for GitLab: which lines, and suggestion blocks over all of them."""
    if comment.start_line == comment.line:
        return comment.body
    above = comment.line - comment.start_line
    body = _SUGGESTION.sub(lambda m: f"{m.group(1)}suggestion:-{above}+0", comment.body)
    return f"*Lines {comment.start_line}–{comment.line}:*\n\n{body}"


def position(comment: DraftComment, refs: DiffRefs, lines: LineMap) -> dict[str, Any]:
    """The ``position`` of a draft note on ``comment``'s (last) line."""
    old_path, new_path = lines.paths.get((comment.path, comment.side),
                                         (comment.path, comment.path))
    found: dict[str, Any] = {"base_sha": refs.base_sha, "start_sha": refs.start_sha,
                             "head_sha": refs.head_sha, "position_type": "text",
                             "old_path": old_path, "new_path": new_path}
    if comment.side == "RIGHT":
        found["new_line"] = comment.line
        old = lines.new_to_old.get(new_path, {}).get(comment.line)
        if old is not None:
            found["old_line"] = old
    else:
        found["old_line"] = comment.line
        new = lines.old_to_new.get(old_path, {}).get(comment.line)
        if new is not None:
            found["new_line"] = new
    return found


def draft_note(comment: DraftComment, refs: DiffRefs, lines: LineMap) -> dict[str, Any]:
    """The create-draft-note body of a line comment."""
    return {"note": gitlab_body(comment), "position": position(comment, refs, lines)}
