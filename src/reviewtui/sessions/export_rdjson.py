"""The person's review in the Reviewdog Diagnostic Format (rdjson), for forges reviewtui does not
publish to itself: ``reviewtui export --format rdjson | reviewdog -f=rdjson -reporter=…`` posts
it to Gerrit, Bitbucket, Gitea, GitLab or GitHub.

One ``DiagnosticResult`` (source ``reviewtui``): each exported finding is a diagnostic with the
same rule code as SARIF's ``ruleId``, P0/P1 an ``ERROR``, P2 a ``WARNING``, P3 ``INFO``; each of
the reviewer's comments an ``INFO`` diagnostic with the code ``reviewtui/comment``. Ranges are
line-wise (no columns: reviewdog then covers the whole lines, the end line included).

An applicable fix is the diagnostic's suggestion, and then the diagnostic sits on the lines the
fix replaces (reviewdog, like GitHub, only posts a suggestion on a comment spanning exactly its
lines; the finding's own lines are named in the message when they differ). Each diagnostic's
``original_output`` is one readable line (``calc.py:2: [P1] title``): what ``-reporter=local``
prints (without it reviewdog would print the diagnostic's protobuf text). The suggestion's
text is the replacement lines joined by newlines, none for a deletion; a fix that leaves a
single empty line has no line-wise spelling, so its range runs from column 1 of the first line
to the end of the last one's text (columns count UTF-8 bytes, as reviewdog's do). A fix kept as
text only is no suggestion: its text and reason go into the message.

A comment or a finding on removed lines (the old side) has no place in the new file: its
diagnostic names the file only, and says which old lines it is about (a finding with an
applicable fix sits on the fix's lines, which are lines of the new file). The verdict and its
summary are not line-bound and have no rdjson field; Markdown and JSON carry them.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from reviewtui.sessions.export import (
    ExportedFinding,
    ExportedReview,
    fix_block,
    removed_lines,
    rule_id,
)
from reviewtui.sessions.markdown_text import inert_suggestions
from reviewtui.sessions.review_records import STATE_LABELS, ReviewComment, StoredFix

RdfSeverity = Literal["ERROR", "WARNING", "INFO"]
SEVERITY: dict[str, RdfSeverity] = {"P0": "ERROR", "P1": "ERROR", "P2": "WARNING",
                                    "P3": "INFO"}
SOURCE = {"name": "reviewtui", "url": "https://pypi.org/project/reviewtui/"}


def render_rdjson(review: ExportedReview) -> str:
    diagnostics = [_finding(f) for f in review.findings]
    diagnostics += [_comment(c) for c in review.comments]
    result = {"source": SOURCE, "diagnostics": diagnostics}
    return json.dumps(result, indent=2, ensure_ascii=False) + "\n"


def _lines(start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": start}, "end": {"line": end}}


def suggestion(fix: StoredFix) -> dict[str, Any]:
    """The fix as an rdjson ``Suggestion`` over exactly the lines it replaces."""
    lines = fix.replacement_lines
    if lines != [""]:
        return {"range": _lines(fix.start_line, fix.end_line), "text": "\n".join(lines)}
    last = fix.original[-1] if fix.original else ""
    return {"range": {"start": {"line": fix.start_line, "column": 1},
                      "end": {"line": fix.end_line,
                              "column": len(last.encode("utf-8")) + 1}},
            "text": ""}


def _finding(finding: ExportedFinding) -> dict[str, Any]:
    parts = [finding.title]
    if finding.state not in ("open", "accepted"):
        reason = f": {finding.reason}" if finding.reason else ""
        parts[0] += f" ({STATE_LABELS[finding.state]}{reason})"
    fix = finding.fix
    start, end = finding.start_line, finding.end_line
    old = finding.side == "old"  # removed lines: not in the file as it is now
    suggested = fix is not None and fix.applicable and bool(fix.original)
    if fix is not None and suggested and (old or (fix.start_line, fix.end_line) != (start, end)):
        parts.append(f"(Found at {finding.place}; the suggestion replaces {fix.lines}.)")
        start, end, old = fix.start_line, fix.end_line, False
    elif old:
        parts.append(f"{removed_lines(finding.lines)}.")
    if finding.body:
        parts.append(inert_suggestions(finding.body))
    if finding.suggestion:
        parts.append(f"Suggestion: {inert_suggestions(finding.suggestion)}")
    if fix is not None and not suggested:
        parts.append("\n".join(fix_block(fix)).strip("\n"))
    location: dict[str, Any] = {"path": finding.file_path}
    if not old:
        location["range"] = _lines(start, end)
    where = finding.file_path if old else f"{finding.file_path}:{start}"
    diagnostic: dict[str, Any] = {
        "message": "\n\n".join(parts),
        "location": location,
        "severity": SEVERITY[finding.severity],
        "code": {"value": rule_id(finding)},
        "original_output": f"{where}: [{finding.severity}] {parts[0]}",
    }
    if fix is not None and suggested:
        diagnostic["suggestions"] = [suggestion(fix)]
    return diagnostic


def _comment(comment: ReviewComment) -> dict[str, Any]:
    location: dict[str, Any] = {"path": comment.file_path}
    message = comment.body
    where = comment.file_path
    if comment.side == "old":
        message = f"{removed_lines(comment.lines)}: {comment.body}"
    else:
        location["range"] = _lines(comment.start_line, comment.end_line)
        where += f":{comment.start_line}"
    first = message.partition("\n")[0]
    return {"message": message, "location": location, "severity": "INFO",
            "code": {"value": "reviewtui/comment"},
            "original_output": f"{where}: [comment] {first}"}
