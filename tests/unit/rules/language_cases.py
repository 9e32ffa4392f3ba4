"""Table-driven rule cases on real repositories, with the evidence each rule must name.

A case commits ``before`` (and ``extra_files``), writes ``after`` and scores the single unit of
``path`` through the real pipeline (git -> units -> rules), as ``reviewtui index`` does. Labels
are checked in ``rule_notes``: ``"rs:unsafe"`` must have matched, ``"rs:unsafe(unsafe {)"`` must
have matched with that evidence; ``absent`` labels must not have matched.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.conftest import GitRepoBuilder
from tests.unit.rules.test_language_rules import Case, score


@dataclass(frozen=True)
class EvidenceCase(Case):
    absent: set[str] = field(default_factory=set)
    role: str | None = None
    tags: set[str] = field(default_factory=set)  # tags the unit must have


def check(repo: GitRepoBuilder, case: EvidenceCase) -> None:
    unit, suggestion = score(repo, case)
    notes = suggestion.notes
    explain = f"{unit.tags} {suggestion.role} -> {notes}"
    assert suggestion.context_level.value == case.level, explain
    assert suggestion.risk.value in case.risk, explain
    assert f"risk={suggestion.risk.value}" in notes
    for label in case.labels:
        assert (label if "(" in label else f"{label}(") in notes, (label, explain)
    for label in case.absent:
        assert f"{label}(" not in notes, (label, explain)
    requests = {(r.type, r.symbol) for r in suggestion.extra_requests}
    assert case.requests <= requests, (requests, explain)
    assert case.min_confidence <= suggestion.confidence <= case.max_confidence, explain
    if case.role is not None:
        assert suggestion.role == case.role, explain
    assert case.tags <= set(unit.tags), explain


def ids(cases: list[EvidenceCase]) -> list[str]:
    return [case.name for case in cases]
