"""``--since`` dates git would misread are refused before git reads them."""

from __future__ import annotations

from datetime import date

import pytest

from reviewtui.errors import UsageError
from reviewtui.eval.since import check_since

TODAY = date(2026, 11, 28)


@pytest.mark.parametrize("since", [None, "", "2026-11-28", "2001-02-03", "2024-1-5",
                                   "2024-01-31 12:00", "2 years ago", "last monday", "@0"])
def test_past_dates_and_words_pass(since: str | None) -> None:
    check_since(since, TODAY)


@pytest.mark.parametrize(("since", "says"), [
    ("2026-11-29", "still to come"), ("2999-01-01", "still to come"),
    ("2024-13-01", "no such date"), ("2023-02-29", "no such date"), ("2024-00-10", "no such date"),
])
def test_impossible_or_future_dates_are_refused(since: str, says: str) -> None:
    with pytest.raises(UsageError, match=says):
        check_since(since, TODAY)
