"""Text in Markdown's inline code: a path may hold backticks of its own."""

from __future__ import annotations

import re

_RUNS = re.compile("`+")


def code_span(text: str) -> str:
    """``text`` as one code span (CommonMark): delimited by a backtick run longer than any in
    it, and padded with a space where it starts or ends with a backtick (the padding is not
    shown). ```a`b.py``` would have closed after ``a`` and shown the rest as text."""
    longest = max((len(run) for run in _RUNS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
