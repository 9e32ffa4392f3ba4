"""The detail pane's review section, as Rich renderables: the unit's findings and comments, and
for a pull request the review comments others left on its lines (read-only).

Findings show their severity in colour (P0 red to P3 dim), their state ("fixed?" when their
lines changed since), their lines and title; the one ``f``/``F`` moved to is marked. The diff
marks the lines a finding sits on (``finding_diff_lines``). No Textual here.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.text import Text

from reviewtui.forge.threads import PullThread
from reviewtui.sessions.review_records import ReviewComment, StoredFinding
from reviewtui.tui.review_versions import EARLIER_REVIEW
from reviewtui.units.model import ReviewUnit

SEVERITY_STYLES = {"P0": "bold red", "P1": "red", "P2": "yellow", "P3": "dim"}
STATE_STYLES = {"open": "bold", "accepted": "green", "dismissed": "dim strike",
                "fixed": "cyan", "gone": "dim"}


def review_section(findings: Iterable[StoredFinding], comments: Iterable[ReviewComment],
                   current: str | None = None, threads: Iterable[PullThread] = (), *,
                   earlier: bool = False) -> RenderableType:
    """``earlier``: the unit's last review read an earlier version of it (said first)."""
    findings, comments, threads = list(findings), list(comments), list(threads)
    if not findings and not comments and not threads and not earlier:
        return Text("")
    parts: list[RenderableType] = []
    if earlier:
        parts.append(Text(EARLIER_REVIEW, style="bold yellow"))
    if findings:
        parts.append(Text(f"findings ({sum(1 for f in findings if f.state == 'open')} open)",
                          style="bold"))
    for finding in findings:
        line = Text("▶ " if finding.fingerprint == current else "  ")
        line.append(f"{finding.severity} ", style=SEVERITY_STYLES[finding.severity])
        line.append(f"{finding.label:<9} ", style=STATE_STYLES[finding.state])
        line.append(f"{finding.place:<9} ")
        line.append(finding.title, style="bold" if finding.state == "open" else "")
        if finding.fix is not None:  # ctrl+f previews it
            line.append("  ⚒ fix" if finding.fix.applicable else "  ⚒ fix (text only)",
                        style="green" if finding.fix.applicable else "dim")
        parts.append(line)
        if finding.fingerprint == current:  # the one f/F moved to: its whole text
            detail = finding.body or ""
            if finding.reason:
                detail = f"dismissed: {finding.reason}" + (f" — {detail}" if detail else "")
            if detail:
                parts.append(Text("    " + detail, style="dim"))
        elif finding.reason:
            parts.append(Text(f"    dismissed: {finding.reason}", style="dim"))
    if comments:
        parts.append(Text(f"comments ({len(comments)})", style="bold"))
    for comment in comments:
        text = Text("  ")
        text.append(f"{comment.lines:<9} ", style="magenta")
        first, _, rest = comment.body.partition("\n")
        text.append(first + (" …" if rest else ""))
        parts.append(text)
    if threads:
        parts.append(Text(f"on the pull request ({len(threads)}, read-only)", style="bold"))
    for thread in threads:
        text = Text("  ↳ " if thread.reply else "  ")
        text.append(f"L{thread.line:<8} " if thread.line is not None else "outdated  ",
                    style="blue")
        text.append(f"@{thread.author} ", style="bold")
        text.append(thread.first_line)
        parts.append(text)
    return Group(*parts)


def finding_diff_lines(unit: ReviewUnit, findings: Iterable[StoredFinding]) -> set[int]:
    """The 1-based lines of ``unit.diff_text(numbered=False)`` that findings sit on (a
    finding on removed lines by their old numbers)."""
    wanted = [(f.side, f.start_line, f.end_line) for f in findings
              if f.state in ("open", "accepted", "fixed")]
    if not wanted:
        return set()
    rows: list[tuple[int | None, int | None]] = []  # (new, old) number of each diff row
    for hunk in unit.hunks:
        rows.append((None, None))  # the hunk's header
        rows += [(line.new_no, line.old_no if line.kind == "-" else None)
                 for line in hunk.lines]
        if hunk.new_missing_newline or hunk.old_missing_newline:
            rows.append((None, None))
    return {row for row, (new, old) in enumerate(rows, start=1)
            if any(lo <= number <= hi for side, lo, hi in wanted
                   if (number := new if side == "new" else old) is not None)}
