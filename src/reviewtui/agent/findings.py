"""The review agent's output: findings and a verdict, checked against the change, and rendered.

A finding must point at the change: its file is one of the changed files and its line range
holds one of a unit's changed lines (an added line, by its new number; a removed line, by its
old number) -- the unchanged context lines the diff shows around them do not count. Findings
that point elsewhere are dropped with a reason rather than shown as if they were about this
change; a missing ``unit_id`` is filled from the overlap. A title longer than 200 characters
is cut (with an ellipsis) rather than dropping the finding. One exception: a finding of the category
``intent_mismatch`` (the change does not do what its commit messages or description say: a
promised part missing, an unrequested part, a test that does not test the stated fix) may name
something that is *not* there; when its lines miss the change but its unit (or file) is one of
the change's, it is moved onto that unit's first changed line rather than dropped. Severities
are P0 (must fix, breaks things) to P3 (nit). Fingerprints hash the file, the normalised title
and the text of the flagged lines, not their numbers, so a finding keeps its identity when
unrelated lines move (SARIF ``partialFingerprints``).

A finding may carry a structured ``fix`` (``agent.fixes``): checked against the file as
reviewed, it is either applicable or kept as text only with the reason; a malformed one is left
out (and listed why) without losing its finding.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from reviewtui.agent.fixes import check_fix, parse_fix
from reviewtui.models import DeferredUnit
from reviewtui.sessions.review_records import Side, StoredFix
from reviewtui.units.model import ReviewUnit

Severity = Literal["P0", "P1", "P2", "P3"]
LineText = Callable[[str, int], str | None]  # path, line number -> its text (None: no such)
Verdict = Literal["approve", "comment", "request_changes"]
SEVERITY_NAMES = {"P0": "critical", "P1": "major", "P2": "minor", "P3": "nit"}
SARIF_LEVEL = {"P0": "error", "P1": "error", "P2": "warning", "P3": "note"}
INTENT_CATEGORY = "intent_mismatch"  # "does not match the stated purpose"
MAX_TITLE = 200  # characters; a longer title is cut, with an ellipsis
CATEGORIES = ("bug", "security", INTENT_CATEGORY, "maintainability", "performance", "test")
_CATEGORY_WORDS = {"intent": INTENT_CATEGORY, "intent-mismatch": INTENT_CATEGORY,
                   "mismatch": INTENT_CATEGORY, "scope": INTENT_CATEGORY,
                   "description": INTENT_CATEGORY, "purpose": INTENT_CATEGORY}


class Finding(BaseModel):
    model_config = ConfigDict(extra="ignore")

    title: str = Field(min_length=1, max_length=MAX_TITLE)
    body: str = ""
    severity: Severity = "P2"
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    file_path: str
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    unit_id: str | None = None
    category: str | None = None
    suggestion: str | None = None
    fix: StoredFix | None = None  # set by check_findings from the agent's "fix" object
    fingerprint: str = ""
    side: Side = "new"  # set by check_findings: "old" on removed lines only

    @field_validator("title", mode="before")
    @classmethod
    def _title(cls, value: Any) -> Any:
        """A title over the limit is cut, with an ellipsis: not a reason to lose the
        finding."""
        if isinstance(value, str) and len(value) > MAX_TITLE:
            return value[:MAX_TITLE - 1].rstrip() + "…"
        return value

    @field_validator("category", mode="before")
    @classmethod
    def _category(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return None
        text = value.strip().lower().replace(" ", "_")[:40]
        return _CATEGORY_WORDS.get(text.replace("_", "-"), text) or None

    @field_validator("severity", mode="before")
    @classmethod
    def _severity(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip().upper()
            words = {"CRITICAL": "P0", "BLOCKER": "P0", "HIGH": "P1", "MAJOR": "P1",
                     "MEDIUM": "P2", "MINOR": "P2", "LOW": "P3", "NIT": "P3", "INFO": "P3"}
            return words.get(text, text)
        return value


class ReviewResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Verdict
    summary: str
    findings: list[Finding]
    model: str | None = None
    units_reviewed: int = 0
    dropped: list[str] = Field(default_factory=list)  # findings left out, and why
    not_reviewed: list[DeferredUnit] = Field(default_factory=list)  # over the review budget
    prompt_tokens: int = 0
    completion_tokens: int = 0


FIX_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"start_line": {"type": "integer"}, "end_line": {"type": "integer"},
                   "replacement": {"type": "string"}},
    "required": ["start_line", "end_line", "replacement"]}


def findings_schema() -> dict[str, Any]:
    """The JSON the agent's final answer must follow (also its prompt's contract)."""
    finding = {
        "type": "object",
        "properties": {
            "title": {"type": "string"}, "body": {"type": "string"},
            "severity": {"type": "string", "enum": ["P0", "P1", "P2", "P3"]},
            "confidence": {"type": "number"}, "file_path": {"type": "string"},
            "start_line": {"type": "integer"}, "end_line": {"type": "integer"},
            "unit_id": {"type": "string"}, "suggestion": {"type": "string"},
            "category": {"type": "string", "enum": list(CATEGORIES)},
            "fix": FIX_SCHEMA,
        },
        "required": ["title", "body", "severity", "confidence", "file_path", "start_line",
                     "end_line"],
    }
    return {"type": "object", "properties": {
        "verdict": {"type": "string", "enum": ["approve", "comment", "request_changes"]},
        "summary": {"type": "string"},
        "findings": {"type": "array", "items": finding}},
        "required": ["verdict", "summary", "findings"]}


def _changed_lines(unit: ReviewUnit) -> list[tuple[str, frozenset[int]]]:
    """The unit's changed lines: its added lines (new numbering, on its path) and its removed
    lines (old numbering, on its old path). Context lines are not changed lines."""
    added = frozenset(line.new_no for hunk in unit.hunks for line in hunk.lines
                      if line.kind == "+" and line.new_no is not None)
    removed = frozenset(line.old_no for hunk in unit.hunks for line in hunk.lines
                        if line.kind == "-" and line.old_no is not None)
    return [(unit.file_path, added), (unit.old_path or unit.file_path, removed)]


def _on_change(changed: list[tuple[str, frozenset[int]]], path: str, start: int,
               end: int) -> bool:
    """Do lines ``start``-``end`` of ``path`` hold one of these changed lines?"""
    return any(where == path and any(start <= n <= end for n in lines)
               for where, lines in changed)


def _side(changed: list[tuple[str, frozenset[int]]], finding: Finding) -> Side:
    """``old`` when the finding's lines hold removed lines (old numbering, as the prompt asks
    for removed code) and no added line; else ``new``."""
    added, removed = changed
    where = (finding.file_path, finding.start_line, finding.end_line)
    return "old" if _on_change([removed], *where) and not _on_change([added], *where) else "new"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def fingerprint(finding: Finding, line_text: LineText) -> str:
    """File, normalised title and the flagged lines' text (``line_text`` reads the finding's
    side), hashed."""
    lines = [line_text(finding.file_path, n) or "" for n in
             range(finding.start_line, min(finding.end_line, finding.start_line + 20) + 1)]
    code = "\n".join(" ".join(line.split()) for line in lines)
    data = "\0".join((finding.file_path, _slug(finding.title), code))
    return hashlib.sha256(data.encode("utf-8", "replace")).hexdigest()[:32]


def _same_finding(first: Finding, again: Finding) -> Finding:
    """One finding said twice (a model repeats one in two parts of a batched review): the
    more severe, then surer, of the two, with a fix if either has one. Counted twice, the
    workbench said "18 new" where the session kept 3."""
    best, other = ((again, first) if (again.severity, -again.confidence)
                   < (first.severity, -first.confidence) else (first, again))
    if best.fix is None and other.fix is not None:
        best.fix = other.fix
    return best


def _intent_owner(finding: Finding, by_id: dict[str, ReviewUnit],
                  units: Sequence[ReviewUnit]) -> ReviewUnit | None:
    """An intent finding off the changed lines: moved onto its unit's (else its file's first
    unit's) first changed line; None when neither is part of the change."""
    owner = by_id.get(finding.unit_id or "") or next(
        (u for u in units if u.file_path == finding.file_path), None)
    if owner is None:
        return None
    lines = [line for hunk in owner.hunks for line in hunk.lines if line.kind != " "]
    added = next((line.new_no for line in lines if line.new_no is not None
                  and line.kind == "+"), None)
    removed = next((line.old_no for line in lines if line.old_no is not None), None)
    if added is not None:
        finding.file_path, finding.start_line = owner.file_path, added
    elif removed is not None:
        finding.file_path, finding.start_line = owner.old_path or owner.file_path, removed
    else:
        return None
    finding.end_line = finding.start_line
    return owner


def check_findings(raw: Sequence[Any], units: Sequence[ReviewUnit], line_text: LineText,
                   file_bytes: Callable[[str], bytes | None] | None = None, *,
                   old_text: LineText | None = None) -> tuple[list[Finding], list[str]]:
    """Validated findings that overlap the change (unit ids filled, the side they are on),
    and why others were not.

    ``line_text`` reads the files after the change, ``old_text`` before it (the text of a
    finding on removed lines; ``line_text`` when not given). ``file_bytes(path)`` is a file as
    reviewed (after side), to check fixes against; without it a fix is kept as text only."""
    by_id = {u.unit_id: u for u in units}
    changed = {u.unit_id: _changed_lines(u) for u in units}
    kept: list[Finding] = []
    at: dict[str, int] = {}  # fingerprint -> its place in ``kept``
    dropped: list[str] = []
    for item in raw:
        raw_fix = item.get("fix") if isinstance(item, dict) else None
        if isinstance(item, dict):
            # fix is checked apart; side and fingerprint are ours to set, never the model's
            item = {key: value for key, value in item.items()
                    if key not in ("fix", "side", "fingerprint")}
        try:
            finding = Finding.model_validate(item)
        except ValueError as exc:
            first = str(exc).splitlines()[1:2] or [str(exc)]
            dropped.append(f"malformed finding {str(item)[:60]!r}: {first[0].strip()}")
            continue
        if finding.end_line < finding.start_line:
            finding.start_line, finding.end_line = finding.end_line, finding.start_line
        candidates = [by_id[finding.unit_id]] if finding.unit_id in by_id else list(units)
        where = (finding.file_path, finding.start_line, finding.end_line)
        owner = next((u for u in candidates if _on_change(changed[u.unit_id], *where)), None)
        if owner is None and finding.unit_id in by_id:
            owner = next((u for u in units if _on_change(changed[u.unit_id], *where)), None)
        if owner is None and finding.category == INTENT_CATEGORY:
            owner = _intent_owner(finding, by_id, units)
        if owner is None:
            dropped.append(f"{finding.file_path}:{finding.start_line}-{finding.end_line} "
                           f"{finding.title!r}: not on a changed line of this change")
            continue
        finding.unit_id = owner.unit_id
        finding.side = _side(changed[owner.unit_id], finding)
        finding.fingerprint = fingerprint(
            finding, old_text if finding.side == "old" and old_text is not None else line_text)
        fix, problem = parse_fix(raw_fix)
        if problem is not None:
            dropped.append(f"{finding.file_path}:{finding.start_line} {finding.title!r}: "
                           f"{problem} (the finding is kept)")
        elif fix is not None:
            data = file_bytes(finding.file_path) if file_bytes is not None else None
            finding.fix = check_fix(fix, finding.file_path, data)
        earlier = at.get(finding.fingerprint)
        if earlier is None:
            at[finding.fingerprint] = len(kept)
            kept.append(finding)
        else:  # said again (by another part of the review): one finding, its best of both
            kept[earlier] = _same_finding(kept[earlier], finding)
    kept.sort(key=lambda f: (f.severity, -f.confidence, f.file_path, f.start_line))
    return kept, dropped
