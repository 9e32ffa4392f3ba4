"""Map scanner findings onto units by line, and let error findings raise a unit's level.

A finding belongs to every unit whose hunks cover its line on the "after" side (context lines
included: a finding next to a change is about the change). Findings outside every unit are
about code nobody changed and are left out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from reviewtui.models import ScannerFinding
from reviewtui.rules.engine import apply_scanner_findings
from reviewtui.rules.scanners import ScannerIssue
from reviewtui.rules.suggestion import RuleSuggestion
from reviewtui.units.model import ReviewUnit


def findings_by_unit(units: Iterable[ReviewUnit],
                     issues: Iterable[ScannerIssue]) -> dict[str, list[ScannerFinding]]:
    spans: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for unit in units:
        if unit.change_type == "delete":
            continue
        for hunk in unit.hunks:
            if hunk.new_count:
                spans[unit.file_path].append(
                    (hunk.new_start, hunk.new_start + hunk.new_count - 1, unit.unit_id))
    found: dict[str, list[ScannerFinding]] = defaultdict(list)
    for issue in sorted(set(issues)):
        for low, high, unit_id in spans.get(issue.path, ()):
            if low <= issue.line <= high:
                found[unit_id].append(ScannerFinding(
                    tool=issue.tool, line=issue.line, column=issue.column,
                    severity=issue.severity,  # type: ignore[arg-type]
                    rule_id=issue.rule_id, message=issue.message))
    return {key: value for key, value in found.items()}


def apply_findings(suggestions: Mapping[str, RuleSuggestion],
                   findings: Mapping[str, Sequence[ScannerFinding]]) -> dict[str, RuleSuggestion]:
    out = dict(suggestions)
    for unit_id, unit_findings in findings.items():
        if unit_id in out:
            errors = sum(1 for f in unit_findings if f.severity == "error")
            out[unit_id] = apply_scanner_findings(out[unit_id], errors,
                                                  len(unit_findings) - errors)
    return out
