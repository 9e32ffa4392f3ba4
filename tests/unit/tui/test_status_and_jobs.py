"""The status line's wording and the LLM job registry, without an app."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from reviewtui.llm.settings import LLMConfig
from reviewtui.models import ContextLevel
from reviewtui.plan.schema import FusedItem, FusedPlan, PlannerReport, Provenance
from reviewtui.tui.jobs import LLMJobs
from reviewtui.tui.status import plan_source

MODEL = LLMConfig(model="qwen2.5-coder", base_url="http://localhost:11434/v1")


def _item(unit: str, by: str, skip: bool = False, skip_by: str = "rule") -> FusedItem:
    return FusedItem(unit_id=unit, file_path="a.py", location="a.py:L1",
                     rule_context_level=ContextLevel.FUNCTION, rule_confidence=0.5, risk="low",
                     llm_context_level=None, extra_requests=[],
                     final_context_level=ContextLevel.FILE_CONTEXT, skip_review=skip,
                     reason="", provenance=Provenance(level=by, skip=skip_by))


def _plan(status: str, items: list[FusedItem], **report: object) -> FusedPlan:
    return FusedPlan(plan=items, planner=PlannerReport(status=status, model="qwen2.5-coder",
                                                       **report))  # type: ignore[arg-type]


def test_no_model_says_so() -> None:
    text = plan_source(LLMConfig(), _plan("not_configured", []))
    assert text == "rules' plan · no model configured (REVIEWTUI_MODEL)"


def test_a_model_but_no_plan_yet_names_it_and_the_key() -> None:
    assert plan_source(MODEL, _plan("skipped", [])) == "rules' plan · P asks qwen2.5-coder"
    assert plan_source(MODEL, _plan("skipped", []), planning=True) == (
        "planner running on qwen2.5-coder…")


def test_after_a_plan_what_the_model_decided() -> None:
    items = [_item("u1", "llm"), _item("u2", "rule", skip=True, skip_by="llm"),
             _item("u3", "user")]
    plan = _plan("ok", items, batches=1).model_copy(update={"conflicts": 2})
    assert plan_source(MODEL, plan) == (
        "planned by qwen2.5-coder: 1 levels, 1 skips by the model · 2 disagreements")


def test_a_failed_plan_says_why() -> None:
    plan = _plan("failed", [], endpoint_error="cannot connect to http://localhost:11434/v1")
    assert plan_source(MODEL, plan) == (
        "planner failed (qwen2.5-coder): cannot connect to http://localhost:11434/v1")


def test_jobs_cancel_all_and_ignore_late_results() -> None:
    jobs = LLMJobs()
    chat = jobs.start("chat")
    planner = jobs.start("planner")
    assert jobs.running() and jobs.running("chat")
    assert jobs.cancel() == ["chat", "planner"]
    assert chat.is_set() and planner.is_set() and not jobs.running()
    assert jobs.finish("chat", chat) is False  # a cancelled job's result is ignored


def test_a_new_job_replaces_and_cancels_the_old_one() -> None:
    jobs = LLMJobs()
    first = jobs.start("chat")
    second = jobs.start("chat")
    assert first.is_set() and not second.is_set()
    assert jobs.finish("chat", first) is False
    assert jobs.running("chat")
    assert jobs.finish("chat", second) is True
    assert not jobs.running()
    assert isinstance(second, threading.Event)


def test_a_plan_for_an_earlier_version_says_what_became_of_it() -> None:
    from reviewtui.pipeline.planning import CarriedPlan
    from reviewtui.tui.status import earlier_plan

    plan = _plan("ok", [])
    head = "the plan was made for an earlier version of the change"
    assert earlier_plan(CarriedPlan(plan)) == head  # only units that left
    assert earlier_plan(CarriedPlan(plan, ("u1",), ("u2",))) == (
        f"{head} (1 edited unit took the plan of the version it read; 1 unit it did not "
        "cover keeps the rules' level)")
    assert earlier_plan(CarriedPlan(plan, (), ("u2", "u3"))) == (
        f"{head} (2 units it did not cover keep the rules' levels)")


def test_a_kept_plan_says_how_old_it_is_and_that_p_asks_again() -> None:
    made = datetime(2026, 1, 2, 10, 0, tzinfo=UTC)
    plan = _plan("ok", [_item("u1", "llm")], batches=1, cached_at=made)
    assert plan_source(MODEL, plan, now=made + timedelta(hours=3, minutes=5)) == (
        "planned by qwen2.5-coder (kept plan, made 3 h ago; P asks again): 1 levels, "
        "0 skips by the model")
