"""Text in Markdown's code spans and fenced blocks: a path or a line may hold backticks."""

from __future__ import annotations

import re
from collections.abc import Iterable

_RUNS = re.compile("`+")


def _longest_run(texts: Iterable[str]) -> int:
    """The longest run of backticks in ``texts`` (0: none)."""
    return max((len(run) for text in texts for run in _RUNS.findall(text)), default=0)


def code_fence(lines: Iterable[str]) -> str:
    """A backtick fence longer than any run of backticks in ``lines`` (at least three)."""
    return "`" * max(3, _longest_run(lines) + 1)


def code_span(text: str) -> str:
    """``text`` as one code span (CommonMark): delimited by a backtick run longer than any in
    it, and padded with a space where it starts or ends with a backtick (the padding is not
    shown). ```a`b.py``` would have closed after ``a`` and shown the rest as text."""
    fence = "`" * (_longest_run([text]) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
