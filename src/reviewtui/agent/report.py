"""``reviewtui review --format``: the review as Markdown, JSON or SARIF 2.1.0.

SARIF results carry the finding's severity as ``level`` (P0/P1 error, P2 warning, P3 note), the
P-level and confidence as properties, and a ``partialFingerprints`` entry that survives line
moves, so code-scanning UIs keep a finding's identity (and its dismissal) across pushes. Units
the review budget left out are said in every format: a Markdown section, the JSON field
``not_reviewed``, and in SARIF the run's ``notReviewed`` property and tool notifications. A
finding's fix renders as in ``reviewtui export``: a suggestion block, SARIF ``fixes``, JSON.
"""

from __future__ import annotations

import json
from typing import Any

from reviewtui import __version__
from reviewtui.agent.findings import (
    INTENT_CATEGORY,
    SARIF_LEVEL,
    SEVERITY_NAMES,
    ReviewResult,
)
from reviewtui.sessions.export import (
    SARIF_SCHEMA,
    fix_block,
    sarif_fix,
    sarif_location,
    sarif_text,
    sarif_uri,
)
from reviewtui.sessions.markdown_text import code_span, inert_suggestions

_VERDICTS = {"approve": "Approve", "comment": "Comment", "request_changes": "Request changes"}


CLI_TO_REVIEW = "review them with --all-batches"
# the workbench has no --all-batches: its review reads the settings (batches) or the units shown
TUI_TO_REVIEW = ("raise [context] review_batches, or R again with only them shown (/ filters), "
                 "or reviewtui review --all-batches")


def render_markdown(result: ReviewResult, *, not_reviewed_shown: int | None = None,
                    to_review: str = CLI_TO_REVIEW) -> str:
    """The review as Markdown; ``not_reviewed_shown``: name at most that many of the units left
    out, and count the rest (the workbench's chat: a Markdown list item is a widget there, and
    thousands of them froze it for a minute)."""
    lines = [f"# Review: {_VERDICTS[result.verdict]}", "", result.summary.strip() or "-", ""]
    if not result.findings:
        lines.append("No findings.")
    for n, finding in enumerate(result.findings, start=1):
        where = (f"{finding.file_path}:{finding.start_line}" if finding.start_line ==
                 finding.end_line else
                 f"{finding.file_path}:{finding.start_line}-{finding.end_line}")
        side = " (removed lines, before the change)" if finding.side == "old" else ""
        kind = "intent mismatch: " if finding.category == INTENT_CATEGORY else ""
        lines += [f"## {n}. [{finding.severity} {SEVERITY_NAMES[finding.severity]}] "
                  f"{kind}{finding.title}", "",
                  f"{code_span(where)}{side} · unit `{finding.unit_id}` · "
                  f"confidence {finding.confidence:.2f}",
                  "", inert_suggestions(finding.body.strip())]
        if finding.suggestion:
            lines += ["", "Suggestion:", "", inert_suggestions(finding.suggestion.strip())]
        if finding.fix is not None:
            lines += fix_block(finding.fix)
        lines.append("")
    if result.dropped:
        lines += ["---", "", f"{len(result.dropped)} findings left out:", ""]
        lines += [f"- {reason}" for reason in result.dropped]
    lines += _not_reviewed_markdown(result, not_reviewed_shown, to_review)
    lines += ["", f"_{result.units_reviewed} units reviewed by {result.model or 'the model'}; "
              f"{result.prompt_tokens} prompt + {result.completion_tokens} completion tokens._"]
    return "\n".join(lines).rstrip() + "\n"


def not_reviewed_summary(result: ReviewResult, to_review: str = CLI_TO_REVIEW) -> str:
    """One sentence: how many units were left out, by risk class, and how to include them
    (``to_review``: as the command line or the workbench does it)."""
    counts: dict[str, int] = {}
    for unit in result.not_reviewed:
        counts[unit.risk] = counts.get(unit.risk, 0) + 1
    by_risk = ", ".join(f"{n} {risk}" for risk, n in counts.items())
    total = len(result.not_reviewed)
    return (f"{total} unit{'s' if total != 1 else ''} not reviewed ({by_risk} risk): over the "
            f"review budget ([context] review_budget and review_batches); {to_review}")


def _not_reviewed_markdown(result: ReviewResult, shown: int | None = None,
                          to_review: str = CLI_TO_REVIEW) -> list[str]:
    if not result.not_reviewed:
        return []
    lines = ["", "## Not reviewed", "", not_reviewed_summary(result, to_review) + ".", ""]
    named = result.not_reviewed if shown is None else result.not_reviewed[:shown]
    lines += [f"- `{u.unit_id}` {u.location} ({u.risk} risk, {u.final_context_level.value}): "
              f"{u.reason}" for u in named]
    if len(named) < len(result.not_reviewed):
        lines.append(f"- … and {len(result.not_reviewed) - len(named)} more")
    return lines


def render_json(result: ReviewResult) -> str:
    return json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def _rule_id(category: str | None, severity: str) -> str:
    base = (category or "review").strip().lower().replace(" ", "-") or "review"
    return f"reviewtui/{base}/{severity.lower()}"


def render_sarif(result: ReviewResult) -> str:
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for finding in result.findings:
        rule_id = _rule_id(finding.category, finding.severity)
        rules.setdefault(rule_id, {
            "id": rule_id,
            "shortDescription": {"text": f"{finding.category or 'Review'} finding "
                                         f"({finding.severity})"},
            "defaultConfiguration": {"level": SARIF_LEVEL[finding.severity]},
        })
        lines = (f"L{finding.start_line}" if finding.start_line == finding.end_line
                 else f"L{finding.start_line}-{finding.end_line}")
        sarif_result: dict[str, Any] = {
            "ruleId": rule_id,
            "level": SARIF_LEVEL[finding.severity],
            "message": {"text": sarif_text(finding.title, finding.body, finding.side, lines)},
            "locations": [sarif_location(finding.file_path, finding.side, finding.start_line,
                                         finding.end_line)],
            "partialFingerprints": {"reviewtuiFinding/v1": finding.fingerprint},
            "properties": {"severity": finding.severity, "confidence": finding.confidence,
                           "unitId": finding.unit_id, "side": finding.side},
        }
        if finding.fix is not None and finding.fix.applicable and finding.fix.original:
            sarif_result["fixes"] = [sarif_fix(finding.file_path, finding.fix,
                                               f"Fix for: {finding.title}")]
        results.append(sarif_result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "reviewtui", "version": __version__,
                                "informationUri": "https://pypi.org/project/reviewtui/",
                                "rules": list(rules.values())}},
            "results": results,
            "invocations": [{
                "executionSuccessful": True,
                "toolExecutionNotifications": _not_reviewed_notifications(result),
            }],
            "properties": {
                "verdict": result.verdict, "summary": result.summary,
                "unitsReviewed": result.units_reviewed,
                "notReviewed": [{"unitId": u.unit_id, "location": u.location, "risk": u.risk,
                                 "tokens": u.tokens, "reason": u.reason}
                                for u in result.not_reviewed],
            },
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _not_reviewed_notifications(result: ReviewResult) -> list[dict[str, Any]]:
    """A warning for the run, then a note per unit left out, at its file."""
    if not result.not_reviewed:
        return []
    notes: list[dict[str, Any]] = [{"level": "warning", "descriptor": {"id": "not-reviewed"},
                                    "message": {"text": not_reviewed_summary(result)}}]
    notes += [{"level": "note", "descriptor": {"id": "not-reviewed"},
               "message": {"text": f"unit {u.unit_id} ({u.risk} risk) not reviewed: {u.reason}"},
               "locations": [{"physicalLocation": {
                   "artifactLocation": {"uri": sarif_uri(u.file_path),
                                        "uriBaseId": "%SRCROOT%"}}}]}
              for u in result.not_reviewed]
    return notes


def render(result: ReviewResult, fmt: str) -> str:
    if fmt == "json":
        return render_json(result)
    if fmt == "sarif":
        return render_sarif(result)
    return render_markdown(result)
