"""The plan stage's contracts: the planner's llm_plan, the fused plan, the person's overrides.

Field names are the seeds' (``llm_context_level``, ``final_context_level``, ``skip_review``,
``reason``). The LLM's reply is validated loosely item by item (``RawPlanItem``) so that one bad
item costs that item only; what survives becomes a strict ``LLMPlanItem`` with typed requests.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from reviewtui.models import ContextLevel, ExtraRequest

Source = Literal["rule", "llm", "user"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RawPlanItem(BaseModel):
    """One item as a model may write it: anything beyond ``unit_id`` may be missing or wrong."""

    model_config = ConfigDict(extra="ignore")

    unit_id: str
    llm_context_level: Any = None
    extra_requests: Any = None
    skip_review: Any = False
    reason: Any = None
    unrelated: Any = False  # older prompts and many models leave these out
    unrelated_reason: Any = None


class LLMPlanItem(_Model):
    unit_id: str
    llm_context_level: ContextLevel | None
    extra_requests: list[ExtraRequest] = Field(default_factory=list)
    skip_review: bool = False
    reason: str = ""
    unrelated: bool = False  # nothing to do with the change's stated purpose
    unrelated_reason: str = ""


class Provenance(_Model):
    """Which layer decided: the final level, the skip flag, and each extra request."""

    level: Source
    skip: Source
    extra_requests: list[Source] = Field(default_factory=list)


class FusedItem(_Model):
    unit_id: str
    file_path: str
    location: str
    risk: str | None
    rule_context_level: ContextLevel | None
    rule_confidence: float | None
    llm_context_level: ContextLevel | None
    final_context_level: ContextLevel
    extra_requests: list[ExtraRequest]
    skip_review: bool
    reason: str
    provenance: Provenance
    priority: float | None = None  # the rules' review order (higher first)
    # The planner found it unrelated to the change's stated purpose: why (None: related, or
    # no planner, or no stated purpose).
    unrelated: str | None = None


class PlannerReport(_Model):
    """What the planner did: ``status`` is ok, partial, failed, skipped or not_configured."""

    status: Literal["ok", "partial", "failed", "skipped", "not_configured"]
    model: str | None = None
    batches: int = 0
    failed_batches: int = 0
    messages: list[str] = Field(default_factory=list)  # dropped items and why, failures
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # The endpoint itself failed (unreachable, timed out, rejected the key, unknown model):
    # whatever asks the same model next would fail the same way.
    endpoint_error: str | None = None
    # When the plan was made, if it was kept from an earlier run (``plan.cache``): then no
    # request was sent and the token counts (this run's) are 0.
    cached_at: datetime | None = None


class FusedPlan(_Model):
    plan: list[FusedItem]
    planner: PlannerReport
    conflicts: int = 0  # rule/LLM disagreements found (and appended to the conflict log)


class UnitOverride(_Model):
    """The person's decisions for one unit; ``None`` leaves the layer below in charge."""

    level: ContextLevel | None = None
    skip: bool | None = None
    add_requests: list[ExtraRequest] = Field(default_factory=list)
    remove_requests: list[ExtraRequest] = Field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return (self.level is None and self.skip is None and not self.add_requests
                and not self.remove_requests)


class OverrideSet(_Model):
    """All overrides of one change, keyed by unit id (persisted by the session store)."""

    units: dict[str, UnitOverride] = Field(default_factory=dict)


EvidenceSource = Literal["llm", "user"]
EvidenceKind = Literal[
    # the LLM planner against the rules (the first three are the "conflicts" a plan reports)
    "rule_high_vs_llm_expand", "rule_high_vs_llm_skip", "level_mismatch",
    "level_differs",  # other levels (one apart, or a skip without a level)
    "agreement",  # the LLM said the rules' level
    # the person's decision (workbench or --overrides); all user_* empty: taken back
    "user_override",
]


class ConflictRecord(BaseModel):
    """One line of the per-repository evidence log: what the LLM planner (``source = "llm"``)
    or the person (``"user"``) said about a unit, against the rules' level.

    ``pack`` is the identity of the rule pack the unit was scored under and ``change`` the
    change it belongs to. Lines written before these fields existed read as ``llm`` with no
    ``pack``: their pack is unknown, so they count as stale. Unknown fields (a newer version's)
    are ignored rather than making the line unreadable.
    """

    model_config = ConfigDict(extra="ignore")

    timestamp: str
    kind: EvidenceKind
    source: EvidenceSource = "llm"
    unit_id: str
    file_path: str
    lines: str | None = None  # the unit's changed lines, "L3-5,L9" (new side, else old side)
    language: str | None
    tags: list[str]
    rule_context_level: ContextLevel | None
    rule_confidence: float | None
    risk: str | None
    llm_context_level: ContextLevel | None = None
    llm_skip_review: bool = False
    llm_reason: str = ""
    model: str | None = None
    user_level: ContextLevel | None = None
    user_skip: bool | None = None
    user_requests: list[str] = Field(default_factory=list)  # added requests, "callers(charge)"
    pack: str | None = None
    change: str | None = None

    def said_level(self) -> ContextLevel | None:
        """The level this record votes for: the level said, else ``diff_only`` for a skip (a
        learned rule sets a level; it never skips), else None (no level was said)."""
        if self.source == "user":
            if self.user_level is not None:
                return self.user_level
            return ContextLevel.DIFF_ONLY if self.user_skip else None
        if self.llm_context_level is not None:
            return self.llm_context_level
        return ContextLevel.DIFF_ONLY if self.llm_skip_review else None
