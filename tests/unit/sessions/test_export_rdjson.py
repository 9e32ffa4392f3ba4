"""The rdjson rendering on its own: severities, the one fix with no line-wise spelling (a single
empty line, columns in UTF-8 bytes), comments on removed lines, and what is never a suggestion.
The documents validate against reviewdog's published schema."""

from __future__ import annotations

import json

from reviewtui.sessions.export import ExportedFinding, ExportedReview, ExportSummary
from reviewtui.sessions.export_rdjson import render_rdjson, suggestion
from reviewtui.sessions.review_records import ReviewComment, StoredFix
from tests.support.schemas import rdjson_errors


def _finding(severity: str, fix: StoredFix | None = None) -> ExportedFinding:
    return ExportedFinding.model_validate({
        "fingerprint": f"fp-{severity}", "title": f"{severity} finding", "severity": severity,
        "file_path": "src/ünï.py", "start_line": 3, "end_line": 3, "fix": fix})


def _review(findings: list[ExportedFinding],
            comments: list[ReviewComment] | None = None) -> ExportedReview:
    return ExportedReview(change="range: a -> b", session_id="s_1", verdict=None,
                         summary=ExportSummary(units=1, reviewed=1, skipped=0, left=0),
                         comments=[], findings=findings, units=[]).model_copy(
        update={"comments": comments or []})


def test_severities_map_to_reviewdogs() -> None:
    document = json.loads(render_rdjson(_review([_finding(p) for p in ("P0", "P1", "P2", "P3")])))
    assert rdjson_errors(document) == []
    assert [d["severity"] for d in document["diagnostics"]] == ["ERROR", "ERROR", "WARNING",
                                                                "INFO"]
    assert [d["code"]["value"] for d in document["diagnostics"]][2] == "reviewtui/review/p2"


def test_a_single_empty_line_is_a_column_range_in_utf8_bytes() -> None:
    fix = StoredFix(start_line=3, end_line=4, replacement="\n", original=["a", "x = 'é✓'"])
    assert suggestion(fix) == {"range": {"start": {"line": 3, "column": 1},
                                         "end": {"line": 4, "column": 12}}, "text": ""}  # 11 bytes
    deletion = StoredFix(start_line=3, end_line=4, replacement="", original=["a", "b"])
    assert suggestion(deletion) == {"range": {"start": {"line": 3}, "end": {"line": 4}},
                                    "text": ""}
    two = StoredFix(start_line=3, end_line=3, replacement="p\r\n\r\n", original=["a"])
    assert suggestion(two)["text"] == "p\n"  # two lines, the second empty


def test_text_only_and_unchecked_fixes_are_no_suggestions() -> None:
    text_only = StoredFix(start_line=90, end_line=90, replacement="x\n", applicable=False,
                          reason="line 90 is outside the file")
    no_original = StoredFix(start_line=3, end_line=3, replacement="x\n")
    document = json.loads(render_rdjson(_review([_finding("P1", text_only),
                                                 _finding("P2", no_original)])))
    assert rdjson_errors(document) == []
    assert all("suggestions" not in d for d in document["diagnostics"])
    assert "line 90 is outside the file" in document["diagnostics"][0]["message"]


def test_comments_on_removed_lines_name_the_file_only() -> None:
    comments = [ReviewComment(file_path="a.py", side="old", start_line=4, end_line=5, body="why?"),
                ReviewComment(file_path="a.py", start_line=1, end_line=1, body="nice")]
    document = json.loads(render_rdjson(_review([], comments)))
    assert rdjson_errors(document) == []
    old, new = document["diagnostics"]
    assert old["location"] == {"path": "a.py"}
    assert old["message"] == "On removed lines L4-5 (before the change): why?"
    assert new["location"]["range"] == {"start": {"line": 1}, "end": {"line": 1}}
    # what reviewdog -reporter=local prints, one line each
    assert old["original_output"] == ("a.py: [comment] On removed lines L4-5 (before the "
                                      "change): why?")
    assert new["original_output"] == "a.py:1: [comment] nice"


def test_original_output_is_one_readable_line() -> None:
    dismissed = _finding("P2").model_copy(update={"state": "dismissed", "reason": "ok"})
    document = json.loads(render_rdjson(_review([_finding("P0"), dismissed])))
    assert rdjson_errors(document) == []
    assert [d["original_output"] for d in document["diagnostics"]] == [
        "src/ünï.py:3: [P0] P0 finding", "src/ünï.py:3: [P2] P2 finding (dismissed: ok)"]


def test_a_suggestion_block_in_the_models_text_is_no_suggestion() -> None:
    """reviewdog posts the message as the comment's body: a ```` ```suggestion ```` block the
    model wrote there would be one the forge applies over the diagnostic's lines."""
    finding = _finding("P1").model_copy(update={
        "body": "Like this:\n\n```suggestion\nx = 2\n```", "suggestion": "~~~ suggestion\ny\n~~~"})
    [diagnostic] = json.loads(render_rdjson(_review([finding])))["diagnostics"]
    assert "suggestion" not in diagnostic["message"].replace("Suggestion: ", "")
    assert "```\nx = 2\n```" in diagnostic["message"] and "suggestions" not in diagnostic
