"""The triage view model: rows, filter, sort, review status, overrides -- no Textual here.

The TUI is a thin shell: every decision the person makes (a level, a skip, extra requests, a
"reviewed" mark) lands here as data, is applied over the fused plan by the plan package's
override layer, and is persisted by the session store. Keeping it free of widgets lets the unit
tests drive triage without starting an App, and keeps per-key work to a dictionary update and one
row refresh even with thousands of units.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from reviewtui.models import ContextLevel, ExtraRequest
from reviewtui.plan import FusedItem, FusedPlan, OverrideSet, UnitOverride
from reviewtui.plan.overrides import apply_override
from reviewtui.sessions.marks import ReviewMarks, ReviewStatus
from reviewtui.sessions.review_records import ReviewComment, StoredFinding
from reviewtui.units.identity import UnitContents
from reviewtui.units.model import ReviewUnit

LEVELS = list(ContextLevel)
RISK_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}
STATUSES = ("new", "reviewed", "skipped", "changed")


@dataclass(frozen=True)
class Row:
    unit: ReviewUnit
    item: FusedItem  # with the person's overrides applied
    status: str  # new | reviewed | skipped | changed
    findings: int  # open review findings + scanner findings: what the table's column counts
    review: tuple[StoredFinding, ...] = ()  # the review agent's findings on this unit
    comments: tuple[ReviewComment, ...] = ()  # the reviewer's own
    # unit id -> why it stands where it does in the priority order (LoadedChange's)
    reasons: Callable[[str], tuple[str, ...]] | None = field(default=None, compare=False,
                                                             repr=False)

    @functools.cached_property
    def why(self) -> tuple[str, ...]:
        """Why the unit stands where it does in the priority order: worded when the detail
        pane first shows the row, not for every row of the table (the learned part's lines
        cost ~0.3 ms a unit: a second for a few thousand rows before the table could show)."""
        return self.reasons(self.unit.unit_id) if self.reasons is not None else ()

    @property
    def open_findings(self) -> tuple[StoredFinding, ...]:
        return tuple(f for f in self.review if f.state == "open")


SEVERITY_WORDS = {"critical": "p0", "major": "p1", "minor": "p2", "nit": "p3"}
FINDING_STATES = ("open", "accepted", "dismissed", "fixed", "gone")
_RISKS = ("critical", "high", "medium", "low")
_STATUSES = ("new", "reviewed", "skipped", "changed", *FINDING_STATES)
_SEVERITIES = ("p0", "p1", "p2", "p3")


@dataclass(frozen=True)
class Filter:
    """``/`` filter: free words match path, location, tags; ``tag:x``, ``risk:x``, ``level:x``,
    ``status:x`` (a unit's status, or a state of its findings: ``status:open``,
    ``status:dismissed``...) and ``sev:x`` (an open finding of that severity: ``sev:p1``,
    ``sev:major``) narrow further; all terms must match."""

    words: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    risks: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    levels: tuple[str, ...] = ()
    severities: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Filter:
        words: list[str] = []
        fields: dict[str, list[str]] = {"tag": [], "risk": [], "status": [], "level": [],
                                        "sev": []}
        for term in text.split():
            key, _, value = term.partition(":")
            if value and key.lower() in fields:
                fields[key.lower()] += [v for v in value.lower().split(",") if v]
            else:
                words.append(term.lower())
        severities = tuple(SEVERITY_WORDS.get(s, s) for s in fields["sev"])
        return cls(tuple(words), tuple(fields["tag"]), tuple(fields["risk"]),
                   tuple(fields["status"]), tuple(fields["level"]), severities)

    @property
    def empty(self) -> bool:
        return not (self.words or self.tags or self.risks or self.statuses or self.levels
                    or self.severities)

    def unknown(self) -> list[str]:
        """The field terms no unit can match (``risk:bogus``, ``sev:zz``), with what the field
        takes: a filter showing "0 units" gives no hint that a term was not understood."""
        levels = [level.value for level in ContextLevel]
        known = {"risk": (self.risks, _RISKS), "status": (self.statuses, _STATUSES),
                 "sev": (self.severities, _SEVERITIES)}
        found = [f"{key}:{value} ({key} is {', '.join(allowed)})"
                 for key, (values, allowed) in known.items()
                 for value in values if value not in allowed]
        return found + [f"level:{value} (level is {', '.join(levels)})"
                        for value in self.levels
                        if not any(level.startswith(value) for level in levels)]

    def _status_matches(self, row: Row) -> bool:
        states = {f.state for f in row.review}
        return any(s == row.status or s in states for s in self.statuses)

    def matches(self, row: Row) -> bool:
        unit, item = row.unit, row.item
        text = f"{unit.location} {unit.unit_id} {' '.join(unit.tags)}".lower()
        if any(word not in text for word in self.words):
            return False
        if self.tags and not all(any(t in tag for tag in unit.tags) for t in self.tags):
            return False
        if self.risks and (item.risk or "") not in self.risks:
            return False
        if self.statuses and not self._status_matches(row):
            return False
        if self.severities and not any(f.severity.lower() in self.severities
                                       for f in row.open_findings):
            return False
        return not self.levels or any(item.final_context_level.value.startswith(lv)
                                      for lv in self.levels)


class Triage:
    """Rows of one change under the fused plan, the overrides and the review marks."""

    def __init__(self, units: Sequence[ReviewUnit], plan: FusedPlan,
                 overrides: OverrideSet | None = None, marks: ReviewMarks | None = None,
                 findings: dict[str, int] | None = None,
                 reasons: Callable[[str], tuple[str, ...]] | None = None) -> None:
        self.units = list(units)
        self.reasons = reasons  # unit id -> why it stands where it does (LoadedChange's)
        self.by_id = {u.unit_id: u for u in self.units}
        self.plan = plan
        self.fused = {item.unit_id: item for item in plan.plan}
        self.overrides = overrides or OverrideSet()
        self.marks = marks if marks is not None else ReviewMarks()
        self.contents = UnitContents(self.units)  # what the marks are kept by
        self._reviewed: dict[str, ReviewStatus] | None = None  # worked out when first shown
        self.findings = dict(findings or {})  # scanner findings per unit
        self.review: dict[str, list[StoredFinding]] = {}  # the agent's, per unit
        self.comments: dict[str, list[ReviewComment]] = {}
        self.sort_key = "priority"  # priority | risk | file

    def set_review(self, findings: Sequence[StoredFinding],
                   comments: Sequence[ReviewComment]) -> None:
        """The session's findings and comments, each filed under the unit it sits in."""
        self.review, self.comments = {}, {}
        for finding in findings:
            owner = self._unit_for(finding.file_path, finding.start_line, finding.end_line,
                                   finding.unit_id, finding.side)
            if owner is not None:
                self.review.setdefault(owner, []).append(finding)
        for comment in comments:
            owner = self._unit_for(comment.file_path, comment.start_line, comment.end_line,
                                   None, comment.side)
            if owner is not None:
                self.comments.setdefault(owner, []).append(comment)

    def _unit_for(self, path: str, start: int, end: int, unit_id: str | None,
                  side: str) -> str | None:
        if unit_id in self.by_id:
            return unit_id
        return next((u.unit_id for u in self.units if path in (u.file_path, u.old_path)
                     and u.covers(start, end, side)), None)

    def set_plan(self, plan: FusedPlan) -> None:
        self.plan = plan
        self.fused = {item.unit_id: item for item in plan.plan}

    def item(self, unit_id: str) -> FusedItem:
        return apply_override(self.fused[unit_id], self.overrides.units.get(unit_id))

    def review_status(self, unit: ReviewUnit) -> ReviewStatus:
        """``reviewed``, ``changed`` (↻) or ``new``, by the marks (``sessions.marks``)."""
        if self._reviewed is None:
            self._reviewed = self.marks.statuses(self.units, self.contents)
        return self._reviewed.get(unit.unit_id, "new")

    def status(self, unit: ReviewUnit) -> str:
        mark = self.review_status(unit)
        if mark == "reviewed":
            return "reviewed"
        if self.item(unit.unit_id).skip_review:
            return "skipped"
        return mark

    def row(self, unit_id: str) -> Row:
        unit = self.by_id[unit_id]
        review = tuple(self.review.get(unit_id, ()))
        count = self.findings.get(unit_id, 0) + sum(1 for f in review if f.state == "open")
        return Row(unit, self.item(unit_id), self.status(unit), count, review,
                   tuple(self.comments.get(unit_id, ())), self.reasons)

    def rows(self, flt: Filter | None = None) -> list[Row]:
        rows = [self.row(u.unit_id) for u in self.units if u.unit_id in self.fused]
        if flt is not None and not flt.empty:
            rows = [r for r in rows if flt.matches(r)]
        if self.sort_key == "risk":
            rows.sort(key=lambda r: (RISK_ORDER.get(r.item.risk or "", 9),
                                     -(r.item.priority or 0.0), r.unit.file_path))
        elif self.sort_key == "priority":
            rows.sort(key=lambda r: (-(r.item.priority or 0.0), r.unit.file_path))
        return rows

    def next_sort(self) -> str:
        """Cycle the order: priority -> risk -> file -> priority."""
        order = ("priority", "risk", "file")
        self.sort_key = order[(order.index(self.sort_key) + 1) % len(order)]
        return self.sort_key

    # --- the person's decisions ------------------------------------------------------------

    def _override(self, unit_id: str) -> UnitOverride:
        return self.overrides.units.get(unit_id) or UnitOverride()

    def _store(self, unit_id: str, override: UnitOverride) -> None:
        units = dict(self.overrides.units)
        if override.is_empty:
            units.pop(unit_id, None)
        else:
            units[unit_id] = override
        self.overrides = OverrideSet(units=units)

    def set_level(self, unit_id: str, level: ContextLevel) -> None:
        """The person's level. The level the unit came with is a toggle: pressed while the
        person's is another (or is that one), the decision is taken back; pressed with none of
        theirs, it is confirmed as theirs -- kept whatever a later plan says, and heard by the
        evidence log as agreement with the rules."""
        fused = self.fused[unit_id].final_context_level
        value = None if level is fused and self._override(unit_id).level is not None else level
        self._store(unit_id, self._override(unit_id).model_copy(update={"level": value}))

    def shift_level(self, unit_id: str, step: int) -> ContextLevel:
        current = self.item(unit_id).final_context_level
        index = max(0, min(len(LEVELS) - 1, LEVELS.index(current) + step))
        if LEVELS[index] is not current:  # at either end a shift changes nothing
            self.set_level(unit_id, LEVELS[index])
        return LEVELS[index]

    def toggle_skip(self, unit_id: str) -> bool:
        skipped = not self.item(unit_id).skip_review
        fused = self.fused[unit_id].skip_review
        value = None if skipped == fused else skipped
        self._store(unit_id, self._override(unit_id).model_copy(update={"skip": value}))
        return skipped

    def set_requests(self, unit_id: str, wanted: Iterable[ExtraRequest]) -> None:
        """Make the unit's final requests exactly ``wanted`` (as add/remove over fusion)."""
        from reviewtui.plan.requests import request_key

        wanted = list(wanted)
        fused = self.fused[unit_id].extra_requests
        fused_keys = {request_key(r) for r in fused}
        wanted_keys = {request_key(r) for r in wanted}
        add = [r for r in wanted if request_key(r) not in fused_keys]
        remove = [r for r in fused if request_key(r) not in wanted_keys]
        self._store(unit_id, self._override(unit_id).model_copy(
            update={"add_requests": add, "remove_requests": remove}))

    def toggle_reviewed(self, unit_id: str) -> bool:
        """Mark the unit's content reviewed, or take its mark back; True: it is marked now.
        Only this unit's mark changes (another unit of its function keeps its own)."""
        unit = self.by_id[unit_id]
        self._reviewed = None
        if self.marks.matching(unit, self.contents):
            self.marks.unmark(unit, self.contents)
            return False
        self.marks.mark(unit, self.contents)
        return True

    def next_file_row(self, rows: Sequence[Row], index: int, step: int) -> int:
        """The first row of the next (step 1) or previous (-1) file from ``index``."""
        if not rows:
            return 0
        path = rows[index].unit.file_path
        i = index
        while 0 <= i + step < len(rows):
            i += step
            if rows[i].unit.file_path != path:
                if step < 0:  # go to the first row of that file
                    other = rows[i].unit.file_path
                    while i > 0 and rows[i - 1].unit.file_path == other:
                        i -= 1
                return i
        return index

