"""Where a line comment sits on a GitLab merge request, and its text there (pure)."""

from __future__ import annotations

from pathlib import Path

from reviewtui.forge.draft import DraftComment
from reviewtui.forge.gitlab_position import DiffRefs, LineMap, gitlab_body, position
from reviewtui.git.model import (
    ChangeSet,
    ChangeStatus,
    DiffLine,
    FileChange,
    Hunk,
    Side,
    SideKind,
)

REFS = DiffRefs("b" * 40, "s" * 40, "h" * 40)


def _renamed() -> ChangeSet:
    lines = (DiffLine(" ", "keep", 10, 12), DiffLine("-", "old", 11, None),
             DiffLine("+", "new", None, 13), DiffLine(" ", "tail", 12, 14))
    hunk = Hunk(old_start=10, old_count=3, new_start=12, new_count=3, section="", lines=lines)
    return ChangeSet(Path("/r"), "range", Side(SideKind.COMMIT, "a" * 40),
                     Side(SideKind.COMMIT, "b" * 40),
                     files=(FileChange(ChangeStatus.RENAME, "old.py", "new.py", hunks=(hunk,)),))


def _comment(line: int, side: str = "RIGHT", start: int | None = None,
             body: str = "text") -> DraftComment:
    path = "new.py" if side == "RIGHT" else "old.py"
    return DraftComment("k", path, start or line, line, side, body, "t")  # type: ignore[arg-type]


def test_added_removed_and_unchanged_lines_get_the_numbers_gitlab_matches() -> None:
    lines = LineMap.of(_renamed())
    added = position(_comment(13), REFS, lines)
    assert (added["old_path"], added["new_path"], added["new_line"]) == ("old.py", "new.py", 13)
    assert "old_line" not in added
    unchanged = position(_comment(14), REFS, lines)
    assert (unchanged["old_line"], unchanged["new_line"]) == (12, 14)
    removed = position(_comment(11, "LEFT"), REFS, lines)
    assert removed["old_line"] == 11 and "new_line" not in removed
    left_unchanged = position(_comment(10, "LEFT"), REFS, lines)
    assert (left_unchanged["old_line"], left_unchanged["new_line"]) == (10, 12)
    assert (added["base_sha"], added["start_sha"], added["head_sha"]) == (
        "b" * 40, "s" * 40, "h" * 40)
    assert added["position_type"] == "text"


def test_a_comment_on_several_lines_says_so_and_its_suggestion_covers_them() -> None:
    body = "fix it\n\n````suggestion\na\nb\n````\n\n<!-- reviewtui:fingerprint=k -->"
    several = gitlab_body(_comment(14, start=12, body=body))
    assert several.startswith("*Lines 12–14:*\n\nfix it")
    assert "````suggestion:-2+0\na\nb\n````" in several
    assert several.endswith("<!-- reviewtui:fingerprint=k -->")
    assert gitlab_body(_comment(14, body=body)) == body  # one line: as on GitHub
