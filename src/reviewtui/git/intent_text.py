"""The change's stated purpose as the text a model reads, under a token budget.

The planner, the review agent and the chat's static memory all send ``intent_markdown``: the
branch, the linked issues, the description and the commits, most recent first. The budget is
``intent_budget``: a tenth of the model's context window, at most ``INTENT_MAX_TOKENS`` (4,000)
and at least ``INTENT_MIN_TOKENS`` (200). The description takes at most half of it (cut at line
boundaries). The commits come whole (subject, body, trailers) when they all fit; otherwise the
first line of each, most recent first, until the budget is spent, then a line saying how many
older commits are left out -- so a range of 10,000 commits costs what a screenful does.
"""

from __future__ import annotations

from collections.abc import Callable

from reviewtui.git.intent import ChangeIntent, CommitMessage

INTENT_SHARE = 10  # one tenth of the context window
INTENT_MAX_TOKENS = 4_000
INTENT_MIN_TOKENS = 200
_MAX_ISSUES = 20
_MAX_SUBJECT = 200  # characters of a first line in the capped form

Count = Callable[[str], int]


def intent_budget(context_window: int) -> int:
    """Tokens the stated purpose may take in one request to a model of ``context_window``."""
    return max(INTENT_MIN_TOKENS, min(INTENT_MAX_TOKENS, context_window // INTENT_SHARE))


def _fit_lines(text: str, count: Count, budget: int) -> str:
    """The first lines of ``text`` that fit ``budget`` tokens (the first line cut by
    characters when even it does not), with a note when something was left out."""
    if count(text) <= budget:
        return text
    kept: list[str] = []
    used = 0
    for line in text.splitlines():
        cost = count(line) + 1
        if used + cost > budget - 8:
            if not kept:
                kept.append(line[: max(0, (budget - 8) * 3)])
            break
        kept.append(line)
        used += cost
    return "\n".join(kept) + "\n[… description cut to fit the model's budget]"


def _full(commit: CommitMessage) -> str:
    subject = commit.subject or "(empty commit message)"
    lines = [f"- {commit.short}{' (merge)' if commit.merge else ''}: {subject}"]
    if commit.body:
        lines += [f"  {line}".rstrip() for line in commit.body.splitlines()]
    lines += [f"  {t.key}: {t.value}" for t in commit.trailers]
    return "\n".join(lines)


def _subject(commit: CommitMessage) -> str:
    subject = commit.subject or "(empty commit message)"
    if len(subject) > _MAX_SUBJECT:
        subject = subject[:_MAX_SUBJECT] + "…"
    return f"- {commit.short}{' (merge)' if commit.merge else ''}: {subject}"


def _commits(intent: ChangeIntent, count: Count, budget: int) -> list[str]:
    total = intent.total_commits
    title = (f"### Commits ({total}, most recent first)" if total > 1 else "### Commit")
    full = [_full(c) for c in intent.commits]
    if len(intent.commits) == total and count("\n".join([title, *full])) <= budget:
        return [title, *full]
    title = (f"### Commits ({total}, most recent first; first lines only, within the "
             f"budget)")
    lines = [title]
    used = count(title) + 24  # the closing note
    for commit in intent.commits:
        line = _subject(commit)
        cost = count(line) + 1
        if used + cost > budget:
            break
        lines.append(line)
        used += cost
    left = total - (len(lines) - 1)
    if left > 0:
        lines.append(f"- … and {left} older commits not shown")
    return lines


def intent_markdown(intent: ChangeIntent, count: Count, budget: int) -> str:
    """The stated purpose as a Markdown section of at most about ``budget`` tokens; "" when
    there is none."""
    if intent.is_empty:
        return ""
    lines = ["## Stated purpose of the change",
             "(from the commit messages, the branch name and the author's description: "
             "check the change against it)"]
    if intent.branch:
        lines.append(f"Branch: {intent.branch}")
    issues = intent.issues
    if issues:
        lines.append("Linked issues: " + ", ".join(issues[:_MAX_ISSUES])
                     + (f" (+{len(issues) - _MAX_ISSUES} more)" if len(issues) > _MAX_ISSUES
                        else ""))
    if intent.description:
        lines += ["### Description", _fit_lines(intent.description, count, budget // 2)]
    left = budget - count("\n".join(lines))
    if intent.commits:
        lines += _commits(intent, count, max(0, left))
    return "\n".join(lines)
