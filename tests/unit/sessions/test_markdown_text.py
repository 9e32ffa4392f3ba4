from __future__ import annotations

from reviewtui.sessions.export import ExportedFinding, ExportedReview, ExportSummary, render_export
from reviewtui.sessions.markdown_text import code_span, inert_suggestions


def test_a_code_span_is_delimited_past_the_text_s_own_backticks() -> None:
    assert code_span("app.py") == "`app.py`"
    assert code_span("a`b.py") == "``a`b.py``"
    assert code_span("a``b`") == "``` a``b` ```"  # a backtick at an end: padded


def test_suggestion_fences_become_plain_code_blocks() -> None:
    text = ("a\n```suggestion\nx\n```\n  ~~~~ suggestion:-1+0\ny\n~~~~\n"
            "````SUGGESTION \nz\n````\n    ```suggestion\n```python\nq\n```")
    assert inert_suggestions(text) == (
        "a\n```\nx\n```\n  ~~~~\ny\n~~~~\n````\nz\n````\n"
        "    ```suggestion\n```python\nq\n```")  # 4 spaces: code already, not a fence


def test_the_markdown_export_shows_the_models_suggestion_blocks_as_code() -> None:
    review = ExportedReview(change="c", session_id="s", verdict=None,
                            summary=ExportSummary(units=1, reviewed=1, skipped=0, left=0),
                            comments=[], units=[], findings=[ExportedFinding(
                                fingerprint="f", title="T", file_path="a.py", start_line=1,
                                end_line=2, body="Do:\n\n```suggestion\nx\n```",
                                suggestion="```suggestion\ny\n```")])
    text = render_export(review, "markdown")
    assert "```suggestion" not in text
    assert "  ```\n  x\n  ```" in text


def test_a_finding_s_text_of_several_lines_stays_inside_its_list_item() -> None:
    """Only the first line of a finding's text was indented: a code block in it, at column 0,
    ended the finding's list item, and its quote and fix showed under nothing."""
    finding = ExportedFinding(fingerprint="f", title="T", file_path="a.py", start_line=1,
                              end_line=1, body="First.\n\n```python\nx = 1\n```\nMore.",
                              suggestion="Do this:\n\ny = 2", quote=["    1 | x = 0"])
    review = ExportedReview(change="c", session_id="s", verdict=None, comments=[], units=[],
                            summary=ExportSummary(units=1, reviewed=1, skipped=0, left=0),
                            findings=[finding])
    text = render_export(review, "markdown")
    assert ("- **P2 · T** (L1, open)\n  First.\n\n  ```python\n  x = 1\n  ```\n  More.\n"
            "  Suggestion: Do this:\n\n  y = 2\n\n  ```\n      1 | x = 0\n  ```") in text
