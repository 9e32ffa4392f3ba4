"""Text in Markdown's code spans and fenced blocks: a path or a line may hold backticks; and the
model's prose made safe to post where a ```` ```suggestion ```` block is applied to code."""

from __future__ import annotations

import re
from collections.abc import Iterable

_RUNS = re.compile("`+")
# A fence opening a suggestion (CommonMark: at most three spaces of indent, three or more
# backticks or tildes, the info string); GitLab's ``suggestion:-N+M`` too.
_SUGGESTION_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*suggestion\b[^\r\n]*",
                               re.MULTILINE | re.IGNORECASE)


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


def inert_suggestions(text: str) -> str:
    """``text`` with every suggestion block made a plain code block. GitHub and GitLab apply a
    suggestion over the lines of the comment holding it: only a fix reviewtui checked may be
    one, never one the model wrote into a finding's text (unchecked, and meant for whatever
    lines it had in mind, while the comment sits on the finding's)."""
    return _SUGGESTION_FENCE.sub(r"\1\2", text)
