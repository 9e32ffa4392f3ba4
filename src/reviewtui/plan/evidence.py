"""The person's decisions as evidence for the self-learning step.

Every level override, skip and added request -- made in the workbench (when it is persisted) or
given with ``--overrides`` -- becomes a ``user`` record of the evidence log with the unit's tags,
language, path and lines and the rules' level it overrode. A decision taken back (the override
removed in the workbench) is recorded too, with every ``user_*`` field empty, so that the
learning step counts only what the person still says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from reviewtui.models import ContextLevel, ExtraRequest, IndexUnit
from reviewtui.plan.schema import ConflictRecord, OverrideSet, UnitOverride


@dataclass(frozen=True)
class UnitFacts:
    """What a record says about its unit (from the review index, or ``LoadedChange.facts``
    for a scored unit)."""

    unit_id: str
    file_path: str
    lines: str
    language: str | None
    tags: tuple[str, ...]
    rule_level: ContextLevel | None
    rule_confidence: float | None
    risk: str | None

    @classmethod
    def of_index(cls, unit: IndexUnit) -> UnitFacts:
        return cls(unit.unit_id, unit.file_path,
                   unit.line_numbers.new_compact or unit.line_numbers.old_compact,
                   unit.language, tuple(unit.tags), unit.rule_context_level,
                   unit.rule_confidence,
                   unit.agent_decision.priority if unit.agent_decision else None)


def describe_request(request: ExtraRequest) -> str:
    """``previous_version``, ``callers(charge)``, ``search(PAYMENT_TIMEOUT)``."""
    detail = getattr(request, "symbol", None) or getattr(request, "keyword", None)
    return f"{request.type}({detail})" if detail else request.type


def user_record(facts: UnitFacts, override: UnitOverride | None, now: str) -> ConflictRecord:
    """The person's decision on one unit (None or an empty override: taken back)."""
    decided = override if override is not None else UnitOverride()
    return ConflictRecord(
        timestamp=now, kind="user_override", source="user", unit_id=facts.unit_id,
        file_path=facts.file_path, lines=facts.lines or None, language=facts.language,
        tags=list(facts.tags), rule_context_level=facts.rule_level,
        rule_confidence=facts.rule_confidence, risk=facts.risk,
        user_level=decided.level, user_skip=decided.skip,
        user_requests=[describe_request(r) for r in decided.add_requests])


def override_records(facts: Mapping[str, UnitFacts], before: OverrideSet,
                     after: OverrideSet) -> list[ConflictRecord]:
    """A record for every unit whose override differs between ``before`` and ``after``
    (units ``facts`` does not know are left out: there is nothing to say about them)."""
    now = datetime.now(UTC).isoformat(timespec="seconds")
    records: list[ConflictRecord] = []
    for unit_id in _changed(before, after):
        known = facts.get(unit_id)
        if known is not None:
            records.append(user_record(known, after.units.get(unit_id), now))
    return records


def _changed(before: OverrideSet, after: OverrideSet) -> Iterable[str]:
    empty = UnitOverride()
    for unit_id in dict.fromkeys([*before.units, *after.units]):
        old = before.units.get(unit_id, empty)
        new = after.units.get(unit_id, empty)
        if old != new and not (old.is_empty and new.is_empty):
            yield unit_id
