"""The loading view's line: files analysed, then the priority order's history as it is read."""

from __future__ import annotations

from dataclasses import replace

from reviewtui.analysis.progress import AnalysisProgress
from reviewtui.tui.kept_screen import KeptScreen
from reviewtui.tui.widgets.loading_view import loading_text

HALF = AnalysisProgress(done=40, total=80, elapsed=1.0, largest_left=("big.py",))
DONE = AnalysisProgress(done=80, total=80, elapsed=2.0, largest_left=())


def test_the_line_says_the_files_then_the_order_counted_after_them() -> None:
    assert loading_text(None, 0.3) == "Collecting the change… 0.3 s"
    assert loading_text(HALF, 1.2) == (
        "Analysing 40/80 files (50%), 1.2 s · largest left: big.py")
    assert loading_text(DONE, 2.5) == (
        "Analysing 80/80 files (100%), 2.5 s · ordering by priority…")
    # the history of the changed lines, read file by file: a sign of life for seconds
    assert loading_text(replace(DONE, ordering=(37, 100)), 3.1) == (
        "Analysing 80/80 files (100%), 3.1 s · ordering by priority: history of 37/100 "
        "files…")


def test_over_the_kept_rows_too() -> None:
    kept = KeptScreen(rows=(), total=0, longest=10, theme=None, title="t")
    assert loading_text(replace(DONE, ordering=(5, 9)), 1.5, kept).endswith(
        " · ordering by priority: history of 5/9 files…")
    assert "analysing 40/80 files" in loading_text(HALF, 1.0, kept)
