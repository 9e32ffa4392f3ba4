"""What ``reviewtui rules learn`` reports (``--json`` prints ``LearnReport``), and the record of a
rejected candidate. Pydantic: this is the boundary scripts read and the file we persist."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reviewtui.models import ContextLevel

CandidateStatus = Literal["ready", "not_yet", "rejected", "blocked"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CandidateKey(_Model):
    """What the learned rule would match: units with all of ``tags``, in ``language`` (None:
    any), with a path matching one of ``paths`` (empty: any)."""

    tags: list[str]
    language: str | None
    paths: list[str] = Field(default_factory=list)

    def label(self) -> str:
        where = f" in {','.join(self.paths)}" if self.paths else ""
        return f"{self.language or 'any language'}: {'+'.join(self.tags)}{where}"


class Example(_Model):
    """One sample: where it is and what each side said."""

    unit_id: str
    location: str  # path:lines
    source: Literal["llm", "user"]
    rule_level: ContextLevel | None
    said_level: ContextLevel | None
    said: str  # "diff_only", "skip", "diff_only + previous_version"
    reason: str = ""  # the LLM's reason
    change: str | None = None


class Candidate(_Model):
    id: str
    status: CandidateStatus
    reasons: list[str] = Field(default_factory=list)  # why it is not ready
    key: CandidateKey
    level: ContextLevel  # the proposed level
    samples: int  # units with a level said (per source: the latest record of each unit)
    agreeing: int  # samples that said ``level``
    agreement: float  # agreeing / samples
    confidence: float  # (agreeing + 1) / (samples + 2): the learned rule's confidence
    llm: int
    user: int
    files: int
    changes: int
    stale: int  # records of this kind scored under another rule pack: not counted
    votes: dict[str, int]  # level said -> samples
    rule_levels: dict[str, int]  # the rules' level -> samples
    requests: dict[str, int] = Field(default_factory=dict)  # requests the person added
    examples: list[Example]


class EvidenceSummary(_Model):
    log: str
    records: int  # readable lines
    used: int  # samples: fresh, latest per unit and source, not taken back
    llm: int
    user: int
    stale: int  # latest records scored under another (or an unknown) rule pack
    unstamped: int  # lines of an older version (no source, no pack): read as llm, stale
    consumed: int  # samples older than the learned rule that now covers their unit
    unreadable: list[int] = Field(default_factory=list)  # line numbers, skipped
    pack: str  # the identity of the rule pack in use


class LearnReport(_Model):
    evidence: EvidenceSummary
    min_samples: int
    min_agreement: float
    learned_file: str
    rejected_file: str
    candidates: list[Candidate]
    problems: list[str] = Field(default_factory=list)  # one-line notes (nothing was changed)


class Rejection(_Model):
    id: str
    rejected: str  # ISO 8601, UTC
    samples: int  # proposed again once its samples reach twice this
    key: CandidateKey
    level: ContextLevel


class Rejections(_Model):
    """``.git/reviewtui/rejected_rules.json``."""

    version: Literal[1] = 1
    rejected: dict[str, Rejection] = Field(default_factory=dict)
