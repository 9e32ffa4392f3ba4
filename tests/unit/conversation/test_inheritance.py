"""Inheritance scoring (seed 004): the file overlap between a question and an earlier round."""

from __future__ import annotations

import pytest

from reviewtui.conversation.inheritance import file_overlap


def test_file_overlap() -> None:
    assert file_overlap([], ["a.py"]) == 0.0
    assert file_overlap(["src/a.py"], ["src/a.py"]) == 1.0
    assert file_overlap(["src/a.py"], ["src/a.py", "src/b.py"]) == pytest.approx(0.5)
    assert file_overlap(["a.py"], ["src/a.py"]) == pytest.approx(0.5 / 1.5)  # basename only
    assert file_overlap(["x.py"], ["src/a.py"]) == 0.0
