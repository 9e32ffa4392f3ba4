"""What a person's review of a change keeps: findings with their state, comments, a verdict.

Pydantic because these cross the SQLite boundary and are exported as JSON. A finding keeps the
agent's fingerprint (file, normalised title, text of the flagged lines: stable when unrelated
lines move), so a second review merges into the first instead of duplicating it, and the
person's decision — accepted, dismissed with a reason — survives.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Severity = Literal["P0", "P1", "P2", "P3"]
FindingState = Literal["open", "accepted", "dismissed", "fixed", "gone"]
VerdictKind = Literal["approve", "request_changes", "comment"]
Side = Literal["new", "old"]  # the file after the change, or before it (removed lines)

#: How each state reads to a person: "fixed?" — the flagged lines changed since, look again.
STATE_LABELS: dict[str, str] = {"open": "open", "accepted": "accepted",
                                "dismissed": "dismissed", "fixed": "fixed?", "gone": "gone"}


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StoredFix(_Record):
    """A replacement of after-side lines the agent proposed for a finding, as checked.

    ``start_line``-``end_line`` are lines of the finding's file as reviewed; ``replacement``
    takes their place (empty: the lines are deleted). ``original_sha`` hashes the exact bytes
    of those lines as reviewed, so applying can tell whether the working tree still holds them;
    ``original`` is their text, for previews. A fix that failed a check (range outside the
    file, a result that does not parse, no after side) is kept as text: ``applicable`` is
    False and ``reason`` says why.
    """

    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    replacement: str = ""
    original: list[str] = Field(default_factory=list)
    original_sha: str = ""
    file_lines: int = 0  # lines of the file as reviewed (SARIF needs to know the last one)
    line_ending: Literal["\n", "\r\n"] = "\n"  # of the replaced lines (the new ones get it)
    final_newline: bool = True  # the file as reviewed ends with a newline
    applicable: bool = True
    reason: str | None = None
    # the model's word on why this fixes the finding, as it proposed it (shown again with the
    # fix in the workbench's preview, in --dry-run and beside the suggestion when exported)
    explanation: str = ""

    @property
    def lines(self) -> str:
        return (f"L{self.start_line}" if self.start_line == self.end_line
                else f"L{self.start_line}-{self.end_line}")

    @property
    def replacement_lines(self) -> list[str]:
        """The replacement as lines: "" is none (a deletion), one trailing newline is not an
        extra empty line."""
        if not self.replacement:
            return []
        text = self.replacement.replace("\r\n", "\n")
        return (text[:-1] if text.endswith("\n") else text).split("\n")


class StoredFinding(_Record):
    """One finding of the review agent, as the person's review keeps it."""

    fingerprint: str = Field(min_length=1)
    title: str
    body: str = ""
    severity: Severity = "P2"
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    file_path: str
    # new: lines of the file after the change; old: removed lines, numbered before the change
    # (records written before sides were kept have none: they read as new)
    side: Side = "new"
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    unit_id: str | None = None
    unit_key: str | None = None  # the unit's identity across edits (file and definition)
    category: str | None = None
    suggestion: str | None = None
    fix: StoredFix | None = None  # a structured fix, when the agent proposed one
    # the flagged lines' text when found: the finding follows it when other lines move, and
    # is "fixed?" when it is nowhere to be found
    line_hash: str = ""
    state: FindingState = "open"
    reason: str | None = None  # why it was dismissed
    model: str | None = None
    first_seen: str = ""
    updated_at: str = ""

    @property
    def label(self) -> str:
        return STATE_LABELS[self.state]

    @property
    def lines(self) -> str:
        return (f"L{self.start_line}" if self.start_line == self.end_line
                else f"L{self.start_line}-{self.end_line}")

    @property
    def place(self) -> str:
        """Its lines as a person reads them: ``L2-3``, or ``removed lines L34-35`` (numbered
        before the change) on the old side."""
        return self.lines if self.side == "new" else f"removed lines {self.lines}"


class AppliedFix(_Record):
    """A fix the person applied: what the file held before, to undo it once, exactly."""

    apply_id: int | None = None  # given by the store
    fingerprint: str
    file_path: str
    before: bytes  # the file's exact bytes before the fix
    after_sha: str  # sha256 of what the fix wrote: undo only restores over that
    state_before: FindingState
    applied_at: str = ""
    undone_at: str | None = None


class ReviewComment(_Record):
    """The reviewer's own comment on a line or a range of the change."""

    comment_id: int | None = None  # given by the store
    file_path: str
    side: Side = "new"  # old: on removed lines
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    body: str = Field(min_length=1)
    unit_key: str | None = None
    finding: str | None = None  # the fingerprint it was promoted from
    # its lines' text when saved (as a finding's): a comment follows it when lines move
    line_hash: str = ""
    created_at: str = ""
    updated_at: str = ""

    @property
    def lines(self) -> str:
        return (f"L{self.start_line}" if self.start_line == self.end_line
                else f"L{self.start_line}-{self.end_line}")


class ReviewVerdict(_Record):
    verdict: VerdictKind
    summary: str = ""
    updated_at: str = ""


class MergeReport(_Record):
    """What a review changed in the findings kept so far."""

    new: int = 0
    seen_again: int = 0
    reopened: int = 0
    gone: int = 0
