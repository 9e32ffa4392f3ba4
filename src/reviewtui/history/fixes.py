"""Which commits fix a bug: the message says so, and it is not a typo, docs or a bump.

Shared by ``reviewtui eval`` (the fixes whose blamed lines make its cases) and by the history
signals of priority (was this definition fixed before?), so both mean the same thing by "a fix"
-- with the project's own words too: ``[eval] fix_patterns`` and ``exclude_patterns`` make
the matcher of both (``fix_matcher``).
The patterns are the SZZ literature's usual keyword set, tightened by exclusions for the
commits that say "fix" about nothing a reviewer could have caught: typos, documentation,
formatting, lint, type annotations only, version bumps and merges. A fix trailer
(``Fixes #12``, ``Fixed: org/repo#3``, ``fixes GH-7``) counts on its own; ``Closes #N`` and
``Resolves #N`` do not: they close any issue or pull request, and projects that merge through
pull requests put one on every commit (curl: two commits in three of its last 3,000, from
"GHA: update dependency" to "lib: new easy option string storage", were "fixes" by it, and the
history signals -- was this definition fixed before? -- said yes for four units in five).

A revert is never a fix, whatever the patterns say (SZZ work drops them as fix commits): it
removes what the reverted commit added, so the blame lands on that commit and every unit of it
"held the bug" -- a case that says nothing about a ranking (axios's "fix: revert named
exports" made one: every unit of source the undone commit changed held "the bug"). A
subject's ``revert`` word (``Revert "..."``, ``fix: revert named exports``, ``Partially
reverts 8f8df53``), Mercurial's ``Backed out changeset``, or git's own ``This reverts commit
<sha>`` opening the body (a revert whose subject was rewritten) say so; the same line further
down a squashed pull request's list of its commits does not.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_FIX_PATTERNS: tuple[str, ...] = (
    r"\bfix(e[sd])?\b", r"\bfixing\b", r"\bbug(s|fix)?\b", r"\bhotfix\b", r"\bregression\b",
    r"\bcrash(es|ed|ing)?\b", r"\bincorrect(ly)?\b", r"\bwrong(ly)?\b", r"\bbroken\b",
    r"\bfault(y)?\b", r"\bdefect\b", r"\berroneous(ly)?\b", r"\bmistaken(ly)?\b",
)
DEFAULT_EXCLUDE_PATTERNS: tuple[str, ...] = (
    r"\btypos?\b", r"\bspelling\b", r"\bmisspell", r"\bgrammar\b",
    r"\bdocs?\b", r"\bdocumentation\b", r"\bdocstrings?\b", r"\breadme\b", r"\bchangelog\b",
    r"\bchanges\.(rst|md)\b", r"\bcomments?\b",
    r"\bformat(ting)?\b", r"\bwhitespace\b", r"\bindent(ation)?\b", r"\bcode style\b",
    r"\blint(er|ing)?\b", r"\bflake8\b", r"\bpylint\b", r"\beslint\b", r"\bruff\b",
    r"\bgolint\b", r"\bgo ?vet\b", r"\brubocop\b", r"\bcheckstyle\b",
    r"\btyping\b", r"\btype (hints?|annotations?|checking|checker|errors?)\b", r"\bmypy\b",
    r"\bpyright\b",
    r"\bbump(s|ed)?\b", r"\bversion bump\b", r"^(prepare )?release\b", r"^v?\d+\.\d+(\.\d+)?\b",
    r"^merge\b", r"\bflaky\b", r"\bpre-commit\b", r"\bauto[- ]?fix",
    r"\bannotations?\b",
)
_REVERT_SUBJECT = re.compile(r"\brevert(?:s|ing)?\b|^backed out changeset\b", re.IGNORECASE)
_REVERT_BODY = re.compile(r"^this reverts commit [0-9a-f]{7,}", re.IGNORECASE)
_REF = r"(?:[\w.-]+/[\w.-]+)?(?:#|gh-)\d+\b"
_TRAILER = re.compile(r"^\s*fix(?:e[sd])?\s*:?\s+" + _REF, re.IGNORECASE | re.MULTILINE)
_REF_TRAILER = re.compile(r"^\s*(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s+(" + _REF + ")",
                          re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FixMatcher:
    """Says whether a commit message describes a bug fix (compiled once, used per commit)."""

    include: re.Pattern[str]
    exclude: re.Pattern[str]

    @classmethod
    def build(cls, include: Sequence[str] = DEFAULT_FIX_PATTERNS,
              exclude: Sequence[str] = DEFAULT_EXCLUDE_PATTERNS) -> FixMatcher:
        """``re.error`` for a pattern that does not compile (the settings check them first)."""
        flags = re.IGNORECASE | re.MULTILINE
        return cls(re.compile("|".join(f"(?:{p})" for p in include) or r"(?!)", flags),
                   re.compile("|".join(f"(?:{p})" for p in exclude) or r"(?!)", flags))

    @property
    def stamp(self) -> str:
        """Names the patterns, for the caches of what was classified with them."""
        text = self.include.pattern + "\n" + self.exclude.pattern
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def is_fix(self, message: str) -> bool:
        """A fix trailer anywhere, or a fix word in the subject with no exclusion there.

        Only the subject is matched against the words: bodies mention "fix" and "bug" in
        passing ("this does not fix #12", "see the bug tracker") far more often."""
        subject = message.strip().split("\n", 1)[0]
        if is_revert(message) or self.exclude.search(subject):
            return False
        if _TRAILER.search(message):
            return True
        return self.include.search(subject) is not None


def configured_patterns(include: Sequence[str] | None, exclude: Sequence[str] | None
                        ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``[eval]`` settings' fix and exclusion patterns; None: the shipped set."""
    return (DEFAULT_FIX_PATTERNS if include is None else tuple(include),
            DEFAULT_EXCLUDE_PATTERNS if exclude is None else tuple(exclude))


def fix_matcher(include: Sequence[str] | None, exclude: Sequence[str] | None) -> FixMatcher:
    """The matcher of the ``[eval]`` settings' patterns, for eval's mining and the history
    signals alike."""
    return FixMatcher.build(*configured_patterns(include, exclude))


def is_revert(message: str) -> bool:
    """The commit undoes an earlier one: its subject says so, or its body opens with git's
    ``This reverts commit <sha>`` (a squash lists its reverted commits further down)."""
    subject, _, body = message.strip().partition("\n")
    if _REVERT_SUBJECT.search(subject):
        return True
    opening = body.strip().split("\n", 1)[0]
    return _REVERT_BODY.match(opening) is not None


def issue_refs(message: str) -> list[str]:
    """The issues a commit says it fixes or closes (``#12``, ``org/repo#3``, ``GH-7``)."""
    return [match.group(1) for match in _REF_TRAILER.finditer(message)]
