"""Compact per-file results: what worker processes send back and what the cache stores.

A unit's hunks are kept as indices into its file's hunks: the diff is parsed on every run anyway,
so a record stays small (no diff lines in it) and rebuilding a unit is one constructor call.
The pieces of a hunk split for size (a long new file) are stored as a slice of their hunk's
lines with their own header: unpickling them whole (tens of thousands of diff lines on a large
change) was a third of a warm run's decoding. Suggestions and
scopes are stored as plain tuples (enums by value, each rule once per run): unpickling frozen
slotted dataclasses field by field cost more than everything else a warm run does with them.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reviewtui.git.model import FileChange, Hunk
from reviewtui.models import ContextLevel
from reviewtui.rules.compiled import Rule, Stage
from reviewtui.rules.confidence import ConfidenceFactors, RiskFactors, RiskLevel
from reviewtui.rules.suggestion import Request, RuleMatch, RuleSuggestion, suggestion_of
from reviewtui.units.model import ReviewUnit, Scope, review_unit

_FIELDS = tuple(field.name for field in dataclasses.fields(ReviewUnit))
_HUNKS = HUNKS_FIELD = _FIELDS.index("hunks")
_SCOPES = _FIELDS.index("scopes")
_LEVELS = {level.value: level for level in ContextLevel}
_RISKS = {risk.value: risk for risk in RiskLevel}
_STAGES = {stage.value: stage for stage in Stage}
MATCHES_FIELD = 5  # where a flat suggestion keeps its matches: (flat rule, precision, evidence)


@dataclass(frozen=True, slots=True)
class FileRecord:
    """The units of one changed file (hunks as indices) with their rule suggestions."""

    units: tuple[tuple[object, ...], ...]
    suggestions: tuple[tuple[Any, ...], ...]


def dump(record: FileRecord) -> bytes:
    return pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)


def load(data: bytes) -> FileRecord:
    """The record pickled in ``data``; ``ValueError`` if it is not one (torn, foreign)."""
    try:
        record = pickle.loads(data)
    except Exception as exc:  # any unpickling failure means: not a usable record
        raise ValueError(f"unreadable record: {exc}") from None
    if not isinstance(record, FileRecord):
        raise ValueError("not a file record")
    return record


def encode(change: FileChange, units: Sequence[ReviewUnit],
           suggestions: Sequence[RuleSuggestion]) -> FileRecord:
    """The record of a file's units and their suggestions. A rule or scope that several of
    them hold is flattened once, into one tuple they all hold: pickled once, with a reference
    for the others (the units of a file share their enclosing definitions' scopes, and their
    suggestions a handful of rules)."""
    position = {id(hunk): index for index, hunk in enumerate(change.hunks)}
    lines: dict[int, tuple[int, int]] | None = None
    rows: list[tuple[object, ...]] = []
    scopes: dict[int, tuple[Any, ...]] = {}  # by the id of a Scope that ``units`` hold
    for unit in units:
        values: list[object] = [getattr(unit, name) for name in _FIELDS]
        stored: list[object] = []
        for hunk in unit.hunks:
            index = position.get(id(hunk))
            if index is None:
                if lines is None:
                    lines = {id(line): (h, n) for h, whole in enumerate(change.hunks)
                             for n, line in enumerate(whole.lines)}
                stored.append(_piece(change.hunks, lines, hunk))
            else:
                stored.append(index)
        values[_HUNKS] = tuple(stored)
        flat: list[tuple[Any, ...]] = []
        for scope in unit.scopes:
            found = scopes.get(id(scope))
            if found is None:
                found = scopes[id(scope)] = (scope.kind, scope.name, scope.qualified_name,
                                             scope.role, scope.decorators, scope.signature,
                                             scope.start_line, scope.end_line)
            flat.append(found)
        values[_SCOPES] = tuple(flat)
        rows.append(tuple(values))
    rules: dict[int, tuple[Any, ...]] = {}  # by the id of a Rule that ``suggestions`` hold
    return FileRecord(tuple(rows), tuple(_flat_suggestion(s, rules) for s in suggestions))


def _piece(hunks: tuple[Hunk, ...], lines: dict[int, tuple[int, int]],
           piece: Hunk) -> tuple[object, ...] | Hunk:
    """A piece of one of ``hunks`` as (hunk, first line, end, its header...); the piece itself
    when its lines are not a run of one hunk's lines (then it is pickled whole)."""
    if not piece.lines or id(piece.lines[0]) not in lines:
        return piece
    index, start = lines[id(piece.lines[0])]
    end = start + len(piece.lines)
    whole = hunks[index].lines
    if end > len(whole) or any(a is not b for a, b in zip(whole[start:end], piece.lines,
                                                          strict=True)):
        return piece
    return (index, start, end, piece.old_start, piece.old_count, piece.new_start,
            piece.new_count, piece.section, piece.old_missing_newline,
            piece.new_missing_newline)


def _flat_rule(rule: Rule) -> tuple[Any, ...]:
    return (rule.stage.value, rule.rule_id, rule.label, rule.risk.value, rule.level.value,
            rule.requests, tuple(sorted(rule.unless)), rule.language_specific, rule.decisive,
            tuple(sorted(rule.requires)), rule.beyond_role_cap, rule.on, rule.level_floor,
            rule.reads, rule.skip_reason)


def _flat_suggestion(s: RuleSuggestion,
                     rules: dict[int, tuple[Any, ...]] | None = None) -> tuple[Any, ...]:
    """``s`` as a plain tuple; ``rules`` keeps each rule's flat tuple by the rule's id (the
    caller holds the rules meanwhile), so that a rule met again is that same tuple."""
    f, r = s.factors, s.risk_factors
    matches: list[tuple[Any, ...]] = []
    for match in s.matches:
        rule = match.rule
        if rules is None:
            flat = _flat_rule(rule)
        else:
            flat = rules.get(id(rule))  # type: ignore[assignment]
            if flat is None:
                flat = rules[id(rule)] = _flat_rule(rule)
        matches.append((flat, match.precision, match.evidence))
    return (
        s.context_level.value, s.confidence, s.risk.value, s.notes,
        tuple((q.type, q.symbol) for q in s.extra_requests),
        tuple(matches),
        (f.rule_specificity, f.pattern_precision, f.context_availability, f.language_bonus),
        (r.change_scope, r.security_sensitive, r.change_type, r.pattern_risk, r.symbol_risk),
        s.formula_risk.value, s.decided_by, s.learned, s.scanner_notes, s.role,
        s.priority_parts, s.line_signals, s.tokens, s.skip_reason,
    )


class _Builder:
    """Rebuilds suggestions; one ``Rule`` object per distinct rule, as the engine has, and one
    object per distinct (immutable) request list, match list and factor set: thousands of
    units share a few hundred of them, and frozen dataclasses are slow to construct."""

    def __init__(self) -> None:
        self._rules: dict[tuple[Any, ...], Rule] = {}
        self._requests: dict[tuple[Any, ...], tuple[Request, ...]] = {}
        self._matches: dict[tuple[Any, ...], tuple[RuleMatch, ...]] = {}
        self._factors: dict[tuple[Any, ...], ConfidenceFactors] = {}
        self._risks: dict[tuple[Any, ...], RiskFactors] = {}

    def rule(self, flat: tuple[Any, ...]) -> Rule:
        found = self._rules.get(flat)
        if found is None:
            (stage, rule_id, label, risk, level, requests, unless, specific, decisive,
             requires, beyond, on, floor, reads, skip) = flat
            found = self._rules[flat] = Rule(_STAGES[stage], rule_id, label, _RISKS[risk],
                                             _LEVELS[level], requests, frozenset(unless),
                                             specific, decisive, frozenset(requires), beyond,
                                             on, floor, reads, skip)
        return found

    def suggestion(self, t: tuple[Any, ...], reach: int | None = None) -> RuleSuggestion:
        requests = self._requests.get(t[4])
        if requests is None:
            requests = self._requests[t[4]] = tuple(Request(kind, symbol)
                                                    for kind, symbol in t[4])
        matches = self._matches.get(t[5])
        if matches is None:
            matches = self._matches[t[5]] = tuple(
                RuleMatch(self.rule(rule), precision, evidence)
                for rule, precision, evidence in t[5])
        factors = self._factors.get(t[6])
        if factors is None:
            factors = self._factors[t[6]] = ConfidenceFactors(*t[6])
        risks = self._risks.get(t[7])
        if risks is None:
            risks = self._risks[t[7]] = RiskFactors(*t[7])
        return _suggestion((
            _LEVELS[t[0]], t[1], _RISKS[t[2]], t[3], requests, matches, factors, risks,
            _RISKS[t[8]], t[9], t[10], t[11], t[12], t[13], reach, t[14], t[15], t[16]))


_suggestion = suggestion_of


_BUILDER = _Builder()


def flat_suggestion(suggestion: RuleSuggestion) -> tuple[Any, ...]:
    """A suggestion as the plain tuple records keep (its reach left out)."""
    return _flat_suggestion(suggestion)


def rebuilt(flat: tuple[Any, ...], *, reach: int | None = None) -> RuleSuggestion:
    """The suggestion of ``flat`` (see ``flat_suggestion``), with ``reach`` when counted."""
    return _BUILDER.suggestion(flat, reach)


def decode(change: FileChange, record: FileRecord) -> list[tuple[ReviewUnit, RuleSuggestion]]:
    """The units and suggestions of ``record``, attached to this run's hunks of ``change``.

    Raises ``ValueError`` when the record does not fit the change (a stale or foreign record).
    """
    if len(record.units) != len(record.suggestions):
        raise ValueError("record has mismatched units and suggestions")
    try:
        return _decode(change, record)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"record does not fit the change: {exc}") from None


def _decode(change: FileChange, record: FileRecord) -> list[tuple[ReviewUnit, RuleSuggestion]]:
    hunks = change.hunks
    out: list[tuple[ReviewUnit, RuleSuggestion]] = []
    # A scope tuple several units hold (``encode`` shares them) is made a Scope once: by the
    # tuple's id, which stays that tuple's while ``record`` holds it.
    scopes: dict[int, Scope] = {}
    for row, suggestion in zip(record.units, record.suggestions, strict=True):
        if len(row) != len(_FIELDS):
            raise ValueError("record was written for another unit layout")
        values = list(row)
        stored = values[_HUNKS]
        if not isinstance(stored, tuple):
            raise ValueError("record hunks are not a tuple")
        values[_HUNKS] = tuple(_hunk(hunks, item) for item in stored)
        made: list[Scope] = []
        for flat in values[_SCOPES]:  # type: ignore[attr-defined]
            scope = scopes.get(id(flat))
            if scope is None:
                scope = scopes[id(flat)] = Scope(*flat)
            made.append(scope)
        values[_SCOPES] = tuple(made)
        unit = review_unit(*values)  # type: ignore[arg-type]
        out.append((unit, _BUILDER.suggestion(suggestion)))
    return out


def _hunk(hunks: tuple[Hunk, ...], item: object) -> Hunk:
    if isinstance(item, int) and 0 <= item < len(hunks):
        return hunks[item]
    if isinstance(item, tuple) and len(item) == 10:
        (index, start, end, old_start, old_count, new_start, new_count, section, old_missing,
         new_missing) = item
        if isinstance(index, int) and 0 <= index < len(hunks):
            lines = hunks[index].lines
            if 0 <= start < end <= len(lines):
                return Hunk(old_start, old_count, new_start, new_count, section,
                            lines[start:end], old_missing, new_missing)
    if isinstance(item, Hunk):
        return item
    raise ValueError("record hunks do not fit the change")
