"""Findings follow their lines' text within the change's hunks -- never onto the same text in
lines the change does not touch -- on a real repository."""

from __future__ import annotations

from reviewtui.agent.follow import follow_findings
from reviewtui.agent.record import side_hash
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.git.contents import SideLines
from reviewtui.pipeline import load_change
from reviewtui.sessions.review_records import StoredFinding
from tests.conftest import GitRepoBuilder

FAR = "".join(f"def keep_{i}():\n    return {i}\n\n\n" for i in range(8))
BASE = "def total(a):\n    t = a\n    return 0\n\n\n" + FAR + "def last(t):\n    return t\n"


def _followed(repo: GitRepoBuilder, reviewed: str, now: str, line: int) -> StoredFinding | None:
    """A finding on ``line`` of ``reviewed`` (its text hashed as a review keeps it), followed
    to the working tree holding ``now``: what it became (None: unchanged)."""
    repo.write("m.py", BASE)
    repo.commit("base")
    repo.write("m.py", reviewed)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    lines = SideLines(loaded.change_set, loaded.reader)
    finding = StoredFinding(fingerprint="f", title="t", file_path="m.py", start_line=line,
                            end_line=line, line_hash=side_hash("m.py", "new", line, line,
                                                               lines.line))
    repo.write("m.py", now)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    lines = SideLines(loaded.change_set, loaded.reader)
    moved = follow_findings([finding], loaded.units, lines.line, lines.data)
    return moved[0][1] if moved else None


def test_the_nearest_place_on_the_change_is_taken(repo: GitRepoBuilder) -> None:
    reviewed = BASE.replace("    t = a\n", "    t = a * 3\n")
    moved = _followed(repo, reviewed, "# one\n# two\n" + reviewed, 2)
    assert moved is not None and (moved.start_line, moved.state) == (4, "open")


def test_the_same_text_outside_the_change_is_not_the_finding(repo: GitRepoBuilder) -> None:
    # the flagged line becomes "    return t"; the file's last line says the same, unchanged
    reviewed = BASE.replace("    return 0\n", "    return t\n", 1)
    moved = _followed(repo, reviewed, reviewed.replace("return t\n\n", "return t + 0\n\n", 1), 3)
    assert reviewed.split("\n")[2] == reviewed.split("\n")[-2] == "    return t"
    assert moved is not None and (moved.start_line, moved.state) == (3, "fixed")
