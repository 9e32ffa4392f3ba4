"""``eval --since DATE`` checked before git reads it.

git reads a calendar date it cannot place without a word: ``2999-01-01`` (past the years its
date parser knows) became a date of this year, and ``2024-13-45`` some other day, so ``eval``
silently read another stretch of history than the one asked for. A date written as
``YYYY-MM-DD`` is checked here; anything else (``2 years ago``, ``last monday``) is git's to read.
"""

from __future__ import annotations

import re
from datetime import date

from reviewtui.errors import UsageError

_CALENDAR = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")


def check_since(since: str | None, today: date | None = None) -> None:
    """``UsageError`` for a ``YYYY-MM-DD`` date that does not exist or is after ``today``."""
    found = _CALENDAR.match(since or "")
    if found is None:
        return
    try:
        day = date(*(int(part) for part in found.groups()))
    except ValueError:
        raise UsageError(f"--since {since}: there is no such date",
                         hint="write it as YYYY-MM-DD, e.g. 2024-01-31") from None
    if day > (today or date.today()):
        raise UsageError(f"--since {since}: that date is still to come, so no fix was "
                         "committed after it", hint="give a past date, e.g. '2 years ago'")
