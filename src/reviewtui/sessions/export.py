"""The person's review of a change as a deliverable: Markdown, JSON or SARIF (rdjson, for
reviewdog, is ``export_rdjson``).

Markdown is ready to paste as a pull-request review: the verdict, how much was reviewed, then per
file the reviewer's comments and the findings with the lines they are about quoted. JSON follows
``ExportedReview`` (a documented pydantic schema); SARIF 2.1.0 carries the findings with the
same fingerprints ``reviewtui review`` gives (a dismissed finding is a suppression with its
reason) and the comments as notes. Accepted and untriaged findings are in; dismissed, gone
and fixed ones only with ``everything`` (``--all``). Each starts with the change's stated
purpose (``export_intent``: Markdown's top lines, JSON's ``intent``, the SARIF run's
``intent`` property), and findings of the ``intent_mismatch`` category ("does not do what it
says") are labelled and counted as such.

A finding's structured fix travels with it: Markdown renders an applicable one as a GitHub
```` ```suggestion ```` block holding exactly the replacement lines, headed by the lines it
replaces (a suggestion replaces the lines its comment is on: post it on those); SARIF as the
result's ``fixes`` (an ``artifactChange`` whose ``replacement`` deletes the fix's lines and
inserts the new text); JSON carries the ``fix`` field as stored. A fix kept as text only is
shown as text with the reason, never as a suggestion.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from reviewtui import __version__
from reviewtui.sessions.export_intent import (
    ExportedIntent,
    intent_markdown_lines,
    intent_sarif,
)
from reviewtui.sessions.markdown_text import code_fence, code_span, inert_suggestions
from reviewtui.sessions.review_records import (
    STATE_LABELS,
    ReviewComment,
    ReviewVerdict,
    StoredFinding,
    StoredFix,
    VerdictKind,
)

Quote = Callable[[str, str, int, int], list[str]]  # path, side, start, end -> lines
EXPORT_SCHEMA_VERSION: Literal[1] = 1
MAX_QUOTED_LINES = 12
# The OASIS schema of SARIF 2.1.0 (Errata 01): the exports validate against this very file.
SARIF_SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
                "sarif-schema-2.1.0.json")
_SARIF_LEVEL = {"P0": "error", "P1": "error", "P2": "warning", "P3": "note"}
_VERDICT_TITLES = {"approve": "Approve", "request_changes": "Request changes",
                   "comment": "Comment"}
_DEFAULT_STATES = frozenset({"accepted", "open"})
INTENT_CATEGORY = "intent_mismatch"  # agent.findings' category for "does not match the intent"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


UnitStatus = Literal["reviewed", "skipped", "left", "changed"]  # changed: reviewed, then edited


class ExportedUnit(_Model):
    unit_id: str
    location: str
    file_path: str
    status: UnitStatus
    risk: str | None = None


class ExportSummary(_Model):
    units: int
    reviewed: int
    skipped: int
    left: int  # neither reviewed nor skipped (changed since its review included)


class ExportedFinding(StoredFinding):
    quote: list[str] = Field(default_factory=list)  # the flagged lines, numbered


class ExportedComment(ReviewComment):
    quote: list[str] = Field(default_factory=list)


class ExportedReview(_Model):
    """``reviewtui export --format json``: the review of one change."""

    schema_version: Literal[1] = EXPORT_SCHEMA_VERSION
    tool: str = f"reviewtui {__version__}"
    change: str  # e.g. "range: 1a2b3c4d -> 5e6f7a8b"
    session_id: str | None
    verdict: VerdictKind | None
    verdict_summary: str = ""
    summary: ExportSummary
    intent: ExportedIntent | None = None  # the change's stated purpose
    comments: list[ExportedComment]
    findings: list[ExportedFinding]
    units: list[ExportedUnit]


def build_export(change: str, session_id: str | None, verdict: ReviewVerdict | None,
                 findings: Sequence[StoredFinding], comments: Sequence[ReviewComment],
                 units: Sequence[ExportedUnit], quote: Quote, *,
                 everything: bool = False, intent: ExportedIntent | None = None,
                 ) -> ExportedReview:
    shown = [f for f in findings if everything or f.state in _DEFAULT_STATES]
    counts = {status: sum(1 for u in units if u.status == status)
              for status in ("reviewed", "skipped")}
    return ExportedReview(
        change=change, session_id=session_id,
        verdict=verdict.verdict if verdict else None,
        verdict_summary=verdict.summary if verdict else "",
        summary=ExportSummary(units=len(units), reviewed=counts["reviewed"],
                              skipped=counts["skipped"],
                              left=len(units) - counts["reviewed"] - counts["skipped"]),
        intent=intent,
        comments=[ExportedComment(**c.model_dump(), quote=quote(
            c.file_path, c.side, c.start_line, c.end_line)) for c in comments],
        findings=[ExportedFinding(**f.model_dump(), quote=quote(
            f.file_path, f.side, f.start_line, f.end_line)) for f in shown],
        units=list(units))


def render_export(review: ExportedReview, fmt: str) -> str:
    if fmt == "json":
        return review.model_dump_json(indent=2) + "\n"
    if fmt == "sarif":
        return _sarif(review)
    return _markdown(review)


def _fence(lines: Sequence[str]) -> list[str]:
    if not lines:
        return []
    shown = list(lines[:MAX_QUOTED_LINES])
    if len(lines) > MAX_QUOTED_LINES:
        shown.append(f"… {len(lines) - MAX_QUOTED_LINES} more lines")
    return ["", "```", *shown, "```"]


def _in_item(text: str) -> str:
    """``text`` indented into its finding's list item, every line of it: a line at column 0
    (a code block's fence) would end the item."""
    return "\n".join(f"  {line}" if line else line for line in text.split("\n"))


def _markdown(review: ExportedReview) -> str:
    title = _VERDICT_TITLES[review.verdict] if review.verdict else "No verdict yet"
    s = review.summary
    out = [f"## Review: {title}", ""]
    if review.intent is not None:
        out += intent_markdown_lines(review.intent)
    if review.verdict_summary:
        out += [review.verdict_summary, ""]
    mismatches = sum(1 for f in review.findings if f.category == INTENT_CATEGORY)
    against = f" ({mismatches} against the stated purpose)" if mismatches else ""
    out += [f"**{s.reviewed} of {s.units} units reviewed** · {s.skipped} skipped · "
            f"{s.left} left · {len(review.comments)} comments · "
            f"{len(review.findings)} findings{against}  ", f"<sub>{review.change}</sub>", ""]
    files = sorted({c.file_path for c in review.comments}
                   | {f.file_path for f in review.findings})
    for path in files:
        out += [f"### {code_span(path)}", ""]
        for comment in (c for c in review.comments if c.file_path == path):
            side = " (removed lines)" if comment.side == "old" else ""
            out += [f"**{comment.lines}**{side} — {comment.body}", *_fence(comment.quote), ""]
        for finding in (f for f in review.findings if f.file_path == path):
            state = "" if finding.state == "accepted" else f", {STATE_LABELS[finding.state]}"
            reason = f" (dismissed: {finding.reason})" if finding.reason else ""
            kind = "intent mismatch · " if finding.category == INTENT_CATEGORY else ""
            out.append(f"- **{finding.severity} · {kind}{finding.title}** "
                       f"({finding.place}{state}){reason}")
            if finding.body:
                out.append(_in_item(inert_suggestions(finding.body)))
            if finding.suggestion:
                out.append(_in_item(f"Suggestion: {inert_suggestions(finding.suggestion)}"))
            out += ["  " + line if line else line for line in _fence(finding.quote)]
            if finding.fix is not None:
                out += ["  " + line if line else line for line in fix_block(finding.fix)]
            out.append("")
    if not files:
        out += ["No comments or findings.", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def fix_block(fix: StoredFix) -> list[str]:
    """An applicable fix as a GitHub suggestion block: exactly the replacement lines (none:
    the lines are deleted); a text-only fix as plain text with why it is not a suggestion."""
    lines = fix.replacement_lines
    fence = code_fence(lines)
    why = [f"Why: {fix.explanation}"] if fix.explanation else []
    if fix.applicable:
        return ["", f"Suggested fix ({fix.lines}):", *why, "", f"{fence}suggestion", *lines,
                fence]
    return ["", f"Fix as text only ({fix.lines}; {fix.reason or 'not checked'}):", *why, "",
            fence, *lines, fence]


def sarif_uri(path: str) -> str:
    """A repository path as SARIF's ``artifactLocation.uri``, a URI reference relative to
    ``%SRCROOT%`` (SARIF 2.1.0 §3.4.3, RFC 3986): every byte but the unreserved characters and
    ``/`` percent-encoded, UTF-8 for non-ASCII (``sub dir/é.py`` → ``sub%20dir/%C3%A9.py``;
    a ``:`` too, or a first segment would read as a scheme). A name that is not UTF-8 keeps
    its own bytes."""
    try:
        data = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        data = path.encode("utf-8", "surrogatepass")
    return quote(data, safe="/")


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def sarif_fix(path: str, fix: StoredFix, description: str) -> dict[str, Any]:
    """A SARIF 2.1.0 ``fix``: one artifact change deleting the fix's lines and inserting the
    replacement: from column 1 of the first line to column 1 of the line after (newlines
    included; after a final newline SARIF counts one more, empty, line); when the range ends a
    file that has no final newline, to the end of its last line's text. The new text takes the
    replaced lines' line ending."""
    lines = fix.replacement_lines
    if fix.end_line < fix.file_lines or fix.final_newline:  # a next line exists (maybe empty)
        region = {"startLine": fix.start_line, "startColumn": 1,
                  "endLine": fix.end_line + 1, "endColumn": 1}
        text = "".join(line + fix.line_ending for line in lines)
    else:
        last = fix.original[-1] if fix.original else ""
        region = {"startLine": fix.start_line, "startColumn": 1, "endLine": fix.end_line,
                  "endColumn": _utf16_length(last) + 1}
        text = fix.line_ending.join(lines)
    return {"description": {"text": description},
            "artifactChanges": [{
                "artifactLocation": {"uri": sarif_uri(path), "uriBaseId": "%SRCROOT%"},
                "replacements": [{"deletedRegion": region, "insertedContent": {"text": text}}],
            }]}


def rule_id(finding: StoredFinding) -> str:
    """The finding's rule: SARIF's ``ruleId``, rdjson's ``code``."""
    return f"reviewtui/{(finding.category or 'review').lower()}/{finding.severity.lower()}"


def _sarif(review: ExportedReview) -> str:
    results: list[dict[str, Any]] = []
    for finding in review.findings:
        result: dict[str, Any] = {
            "ruleId": rule_id(finding),
            "level": _SARIF_LEVEL[finding.severity],
            "message": {"text": sarif_text(finding.title, finding.body, finding.side,
                                           finding.lines)},
            "locations": [sarif_location(finding.file_path, finding.side, finding.start_line,
                                         finding.end_line)],
            "partialFingerprints": {"reviewtuiFinding/v1": finding.fingerprint},
            "properties": {"severity": finding.severity, "confidence": finding.confidence,
                           "state": finding.state, "unitId": finding.unit_id,
                           "side": finding.side},
        }
        if finding.fix is not None and finding.fix.applicable and finding.fix.original:
            result["fixes"] = [sarif_fix(finding.file_path, finding.fix,
                                         f"Fix for: {finding.title}")]
        if finding.state == "dismissed":
            result["suppressions"] = [{"kind": "external", "status": "accepted",
                                       "justification": finding.reason or "dismissed"}]
        results.append(result)
    for comment in review.comments:
        results.append({
            "ruleId": "reviewtui/comment", "level": "note", "kind": "review",
            "message": {"text": comment.body if comment.side == "new" else
                        f"{removed_lines(comment.lines)}: {comment.body}"},
            "locations": [sarif_location(comment.file_path, comment.side, comment.start_line,
                                         comment.end_line)],
            "properties": {"side": comment.side, "commentId": comment.comment_id},
        })
    log = {
        "$schema": SARIF_SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "reviewtui", "version": __version__,
                                "informationUri": "https://pypi.org/project/reviewtui/"}},
            "results": results,
            "properties": {"verdict": review.verdict, "summary": review.verdict_summary,
                           "change": review.change,
                           "units": review.summary.model_dump(),
                           "intent": intent_sarif(review.intent) if review.intent else None},
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def removed_lines(lines: str) -> str:
    """How an export names lines that the change removed: they are not in the file now."""
    return f"On removed lines {lines} (before the change)"


def sarif_text(title: str, body: str, side: str, lines: str) -> str:
    """A result's message: the title, on removed lines which ones, then the body."""
    parts = [title, f"{removed_lines(lines)}." if side == "old" else "", body]
    return "\n\n".join(part for part in parts if part)


def sarif_location(path: str, side: str, start: int, end: int) -> dict[str, Any]:
    """A SARIF location: lines of the file after the change; for removed lines (the old
    side) the file alone -- a region would point at the lines that are there now -- and
    the message names the old lines."""
    location: dict[str, Any] = {"artifactLocation": {"uri": sarif_uri(path),
                                                    "uriBaseId": "%SRCROOT%"}}
    if side == "new":
        location["region"] = {"startLine": start, "endLine": end}
    return {"physicalLocation": location}
