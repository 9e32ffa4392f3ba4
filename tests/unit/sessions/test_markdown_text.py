from __future__ import annotations

from reviewtui.sessions.markdown_text import code_span


def test_a_code_span_is_delimited_past_the_text_s_own_backticks() -> None:
    assert code_span("app.py") == "`app.py`"
    assert code_span("a`b.py") == "``a`b.py``"
    assert code_span("a``b`") == "``` a``b` ```"  # a backtick at an end: padded
