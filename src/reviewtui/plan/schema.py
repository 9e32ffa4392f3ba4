"""The plan stage's contracts: the planner's llm_plan, the fused plan, the person's overrides.

Field names are the seeds' (``llm_context_level``, ``final_context_level``, ``skip_review``,
``reason``). The LLM's reply is validated loosely item by item (``RawPlanItem``) so that one bad
item costs that item only; what survives becomes a strict ``LLMPlanItem`` with typed requests.
"""

from __future__ import annotations

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


class LLMPlanItem(_Model):
    unit_id: str
    llm_context_level: ContextLevel | None
    extra_requests: list[ExtraRequest] = Field(default_factory=list)
    skip_review: bool = False
    reason: str = ""


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


class ConflictRecord(_Model):
    """One rule/LLM disagreement, a line of the per-repository conflict log."""

    timestamp: str
    kind: Literal["rule_high_vs_llm_expand", "rule_high_vs_llm_skip", "level_mismatch"]
    unit_id: str
    file_path: str
    language: str | None
    tags: list[str]
    rule_context_level: ContextLevel | None
    rule_confidence: float | None
    risk: str | None
    llm_context_level: ContextLevel | None
    llm_skip_review: bool
    llm_reason: str
    model: str | None
