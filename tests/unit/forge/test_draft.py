"""The review as it would be sent: which comments sit on the diff, what folds into the summary."""

from __future__ import annotations

from pathlib import Path

from reviewtui.forge.draft import REVIEW_MARKER, build_draft, marker, marker_key
from reviewtui.git.model import ChangeSet, ChangeStatus, FileChange, Hunk, Side, SideKind
from reviewtui.sessions.export import (
    ExportedComment,
    ExportedFinding,
    ExportedReview,
    ExportSummary,
)
from reviewtui.sessions.review_records import StoredFix


def _change() -> ChangeSet:
    hunks = (Hunk(old_start=1, old_count=6, new_start=1, new_count=7, section="", lines=()),
             Hunk(old_start=40, old_count=3, new_start=41, new_count=4, section="", lines=()))
    return ChangeSet(Path("/r"), "range", Side(SideKind.COMMIT, "a" * 40),
                     Side(SideKind.COMMIT, "b" * 40),
                     files=(FileChange(ChangeStatus.MODIFY, "m.py", "m.py", hunks=hunks),))


def _review(comments: list[ExportedComment], findings: list[ExportedFinding],
            verdict: str | None = "approve") -> ExportedReview:
    return ExportedReview(change="range", session_id="s", verdict=verdict,  # type: ignore[arg-type]
                          verdict_summary="Fine.", comments=comments, findings=findings,
                          summary=ExportSummary(units=2, reviewed=2, skipped=0, left=0),
                          units=[])


def test_comments_on_one_hunk_are_placed_others_fold() -> None:
    review = _review(
        [ExportedComment(comment_id=1, file_path="m.py", start_line=2, end_line=4, body="a"),
         ExportedComment(comment_id=2, file_path="m.py", start_line=6, end_line=42, body="b"),
         ExportedComment(comment_id=3, file_path="m.py", side="old", start_line=40,
                         end_line=40, body="removed?")],
        [ExportedFinding(fingerprint="f1", title="Far", file_path="m.py", start_line=20,
                         end_line=20, state="accepted"),
         ExportedFinding(fingerprint="f2", title="Other file", file_path="n.py",
                         start_line=1, end_line=1)])
    draft = build_draft(review, _change())
    assert draft.event == "APPROVE"
    placed = {c.key: c.payload() for c in draft.comments}
    assert placed["comment-1"] == {"path": "m.py", "line": 4, "side": "RIGHT",
                                   "body": "a\n\n" + marker("comment-1"), "start_line": 2,
                                   "start_side": "RIGHT"}
    assert placed["comment-3"]["side"] == "LEFT" and placed["comment-3"]["line"] == 40
    # Lines 6-42 cross two hunks: the comment sits on the longest part in one (6-7, the first
    # of two equal ones) and names all its lines; it used to fold into the summary.
    assert (placed["comment-2"]["start_line"], placed["comment-2"]["line"]) == (6, 7)
    assert placed["comment-2"]["body"] == (
        "b\n\n(About m.py L6-42; placed on the lines of it that are in the diff.)\n\n"
        + marker("comment-2"))
    assert [f.comment.key for f in draft.folded] == ["f1", "f2"]
    summary = draft.summary()
    assert summary.startswith("Fine.\n\nreviewtui: 2 of 2 units reviewed")
    assert "- `m.py` L20 (outside the diff): **P2 · Far**" in summary
    assert summary.endswith(REVIEW_MARKER)
    assert marker_key(placed["comment-1"]["body"]) == "comment-1"  # type: ignore[arg-type]


def test_a_fix_outside_the_hunk_is_text_never_a_suggestion() -> None:
    inside = StoredFix(start_line=3, end_line=4, replacement="x = 1\n", original=["a", "b"])
    outside = StoredFix(start_line=6, end_line=9, replacement="y = 2\n", original=["c"] * 4)
    review = _review([], [
        ExportedFinding(fingerprint="in", title="In", file_path="m.py", start_line=2,
                        end_line=2, fix=inside),
        ExportedFinding(fingerprint="out", title="Out", file_path="m.py", start_line=5,
                        end_line=5, fix=outside)], verdict=None)
    draft = build_draft(review, _change())
    assert draft.event == "COMMENT"
    by_key = {c.key: c for c in draft.comments}
    assert (by_key["in"].start_line, by_key["in"].line) == (3, 4)  # on the fix's lines
    assert "```suggestion\nx = 1\n```" in by_key["in"].body
    assert (by_key["out"].start_line, by_key["out"].line) == (5, 5)
    assert "suggestion" not in by_key["out"].body
    assert "Fix as text only (L6-9; its lines are not all in one hunk of the diff)" in (
        by_key["out"].body)


def test_folding_keeps_everything() -> None:
    review = _review([ExportedComment(comment_id=1, file_path="m.py", start_line=2,
                                      end_line=2, body="keep me\nsecond line")], [])
    draft = build_draft(review, _change()).fold(["comment-1"], "refused by GitHub").with_note(
        "head moved")
    assert draft.comments == ()
    text = draft.summary()
    assert text.startswith("> **Note:** head moved\n\nFine.")
    assert "- `m.py` L2 (refused by GitHub): keep me\n  second line" in text


def test_a_finding_on_removed_lines_is_on_the_left_side() -> None:
    fix = StoredFix(start_line=2, end_line=3, replacement="x = 1\n", original=["a", "b"])
    review = _review([], [
        ExportedFinding(fingerprint="gone", title="Check removed", file_path="m.py",
                        side="old", start_line=40, end_line=41),
        ExportedFinding(fingerprint="put-back", title="Put it back", file_path="m.py",
                        side="old", start_line=5, end_line=5, fix=fix),
        ExportedFinding(fingerprint="far", title="Far", file_path="m.py", side="old",
                        start_line=20, end_line=20)])
    draft = build_draft(review, _change())
    placed = {c.key: c.payload() for c in draft.comments}
    assert placed["gone"] | {"body": ""} == {"path": "m.py", "line": 41, "side": "LEFT",
                                            "start_line": 40, "start_side": "LEFT", "body": ""}
    # a suggestion replaces lines of the new file: the comment sits on the fix's lines
    assert placed["put-back"]["side"] == "RIGHT" and placed["put-back"]["line"] == 3
    assert "(Found at removed lines L5; the suggestion replaces L2-3.)" in str(
        placed["put-back"]["body"])
    [folded] = draft.folded
    assert folded.comment.key == "far" and folded.comment.lines == "removed L20"
    assert "- `m.py` removed L20 (outside the diff): **P2 · Far**" in draft.summary()


def test_a_comment_on_removed_lines_of_a_renamed_file_names_the_new_file() -> None:
    """GitHub knows a renamed file by its new name only, on both sides of its diff; GitLab's
    position gets both names from the diff."""
    hunks = (Hunk(old_start=1, old_count=3, new_start=1, new_count=2, section="", lines=()),)
    change = ChangeSet(Path("/r"), "range", Side(SideKind.COMMIT, "a" * 40),
                       Side(SideKind.COMMIT, "b" * 40), files=(FileChange(
                           ChangeStatus.RENAME, "old.py", "new.py", hunks=hunks),))
    review = _review(
        [ExportedComment(comment_id=1, file_path="old.py", side="old", start_line=2,
                         end_line=2, body="why removed?"),
         ExportedComment(comment_id=2, file_path="new.py", start_line=1, end_line=1,
                         body="fine")],
        [ExportedFinding(fingerprint="gone", title="Removed", file_path="old.py", side="old",
                         start_line=2, end_line=3)])
    draft = build_draft(review, change)
    assert draft.folded == ()
    placed = {c.key: c.payload() for c in draft.comments}
    assert (placed["comment-1"]["path"], placed["comment-1"]["side"]) == ("new.py", "LEFT")
    assert (placed["gone"]["path"], placed["gone"]["side"], placed["gone"]["line"]) == (
        "new.py", "LEFT", 3)
    assert placed["comment-2"]["path"] == "new.py"
    assert {c.key: c.path for c in draft.comments}["gone"] == "old.py"  # GitLab's lookup


def test_a_finding_reaching_past_its_hunk_sits_on_the_part_in_the_diff() -> None:
    review = _review([], [
        ExportedFinding(fingerprint="f1", title="Spills over", file_path="m.py", start_line=5,
                        end_line=12, state="accepted"),
        ExportedFinding(fingerprint="f2", title="Removed tail", file_path="m.py", side="old",
                        start_line=30, end_line=41, state="accepted"),
        ExportedFinding(fingerprint="f3", title="Between hunks", file_path="m.py",
                        start_line=10, end_line=30, state="accepted")])
    draft = build_draft(review, _change())
    placed = {c.key: c for c in draft.comments}
    assert (placed["f1"].start_line, placed["f1"].line, placed["f1"].side) == (5, 7, "RIGHT")
    assert "(About m.py L5-12; placed on" in placed["f1"].body
    assert marker_key(placed["f1"].body) == "f1" and placed["f1"].body.endswith(marker("f1"))
    assert (placed["f2"].start_line, placed["f2"].line, placed["f2"].side) == (40, 41, "LEFT")
    assert "(About m.py removed L30-41; placed on" in placed["f2"].body
    assert [f.comment.key for f in draft.folded] == ["f3"]  # none of its lines is on the diff


MODEL_SUGGESTS = "Keep the old rate:\n\n```suggestion\nx = 2\n```"


def test_a_suggestion_block_the_model_wrote_is_never_a_suggestion() -> None:
    """A forge applies a ```` ```suggestion ```` block over the lines of its comment: one the
    model wrote in a finding's text (unchecked, on lines 2-4 here) would replace those three
    lines with one. Only a checked, applicable fix is a suggestion."""
    fix = StoredFix(start_line=3, end_line=3, replacement="y = 1\n", original=["y = 0"])
    review = _review([], [
        ExportedFinding(fingerprint="text", title="Rate", file_path="m.py", start_line=2,
                        end_line=4, body=MODEL_SUGGESTS, suggestion="```suggestion\nz\n```"),
        ExportedFinding(fingerprint="fix", title="Fixed", file_path="m.py", start_line=3,
                        end_line=3, body=MODEL_SUGGESTS, fix=fix)], verdict=None)
    by_key = {c.key: c.body for c in build_draft(review, _change()).comments}
    assert "suggestion" not in by_key["text"].replace("Suggestion: ", "")
    assert "Keep the old rate:\n\n```\nx = 2\n```" in by_key["text"]  # still shown, as code
    assert by_key["fix"].count("```suggestion") == 1  # the checked fix's own
    assert "```suggestion\ny = 1\n```" in by_key["fix"]


def test_a_summary_past_the_limit_names_its_comments_then_counts_the_rest() -> None:
    review = _review([], [ExportedFinding(fingerprint=f"f{n}", title=f"Far {n}", body="x" * 500,
                                          file_path="m.py", start_line=20, end_line=20)
                          for n in range(30)])
    draft = build_draft(review, _change())
    assert len(draft.summary()) > 15_000 and draft.summary(None) == draft.summary()
    named = draft.summary(5_000)
    assert len(named) <= 5_000 and "x" * 500 not in named
    assert all(f"(outside the diff): P2 · Far {n}" in named for n in range(30))
    counted = draft.summary(1_200)
    assert len(counted) <= 1_200 and counted.endswith(REVIEW_MARKER)
    shown = counted.count("(outside the diff): P2 · Far")
    assert 0 < shown < 30 and f"- … and {30 - shown} more" in counted


def test_a_backtick_in_a_path_stays_inside_its_code_span_in_the_summary() -> None:
    review = _review([], [ExportedFinding(fingerprint="f", title="Far", file_path="a`b.py",
                                          start_line=1, end_line=1)])
    summary = build_draft(review, _change()).summary()
    assert "- ``a`b.py`` L1 (outside the diff): **P2 · Far**" in summary
