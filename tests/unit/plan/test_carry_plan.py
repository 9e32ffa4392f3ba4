"""A plan made for an earlier version of a change, carried onto the units there are now
(``pipeline.planning.carry_plan``): by unit id, an edited unit taking the plan of the unit it
was, the rest decided by the rules as in a plan that did not cover them."""

from __future__ import annotations

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextLevel
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.pipeline.planning import carry_plan
from reviewtui.plan import FusedPlan, LLMPlanItem, PlannerReport, fuse_plan
from tests.conftest import GitRepoBuilder

BILLING = ("def charge(amount):\n    total = amount * {}\n    return total\n" + "\n" * 12 +
           "def refund(amount):\n    return {}\n")


def _load(repo: GitRepoBuilder) -> LoadedChange:
    return load_change(repo.root, ChangeSelector(SelectorMode.AUTO))


def _planned(loaded: LoadedChange) -> tuple[FusedPlan, str, str]:
    """The planner's plan: full file for the charge, diff only for the refund."""
    charge = next(u.unit_id for u in loaded.units if u.covers(2, 2))
    refund = next(u.unit_id for u in loaded.units if u.covers(17, 17))
    answers = {charge: LLMPlanItem(unit_id=charge, llm_context_level=ContextLevel.FULL_FILE),
               refund: LLMPlanItem(unit_id=refund, llm_context_level=ContextLevel.DIFF_ONLY)}
    fused = fuse_plan(loaded.review_index().units, answers, set(answers), model="m")
    return (FusedPlan(plan=fused.items, planner=PlannerReport(status="ok", model="m")),
            charge, refund)


def _base(repo: GitRepoBuilder) -> LoadedChange:
    repo.write("app/billing.py", BILLING.format(2, "amount"))
    repo.commit("base")
    repo.write("app/billing.py", BILLING.format(3, "-amount"))
    return _load(repo)


def test_an_edited_unit_takes_the_plan_of_the_unit_it_was(repo: GitRepoBuilder) -> None:
    before = _base(repo)
    plan, charge, refund = _planned(before)
    repo.write("app/billing.py", BILLING.format(4, "-amount"))  # the charge edited
    repo.write("app/new.py", "def new():\n    return 1\n")
    now = _load(repo)
    carried = carry_plan(now, plan, before.units)
    items = {item.unit_id: item for item in carried.plan.plan}
    assert set(items) == {u.unit_id for u in now.units}
    [edited] = [u.unit_id for u in now.units
                if u.file_path == "app/billing.py" and u.covers(2, 2)]
    assert edited != charge and carried.followed == (edited,)
    assert items[edited].llm_context_level is ContextLevel.FULL_FILE
    assert items[refund] is next(i for i in plan.plan if i.unit_id == refund)  # as it was
    [new] = [u.unit_id for u in now.units if u.file_path == "app/new.py"]
    assert carried.uncovered == (new,)
    assert items[new].llm_context_level is None and items[new].reason.startswith("rules_only")
    assert carried.plan.planner == plan.planner
    # Another change, not a version of this one: only the same units keep their plan.
    other = carry_plan(now, plan, before.units, follow=False)
    assert other.followed == () and set(other.uncovered) == {edited, new}
    assert next(i for i in other.plan.plan if i.unit_id == edited).llm_context_level is None


def test_of_two_units_that_became_one_the_same_definition_gives_its_plan(
        repo: GitRepoBuilder) -> None:
    before = _base(repo)
    plan, _, _ = _planned(before)
    repo.write("app/billing.py", BILLING.format(4, "amount"))  # the refund's change undone
    now = _load(repo)
    [edited] = [u.unit_id for u in now.units]
    # both the refund and the charge lead here (the refund read first)
    carried = carry_plan(now, plan, before.units[::-1])
    assert carried.followed == (edited,)
    assert carried.plan.plan[0].llm_context_level is ContextLevel.FULL_FILE  # the charge's


def test_a_plan_for_the_same_units_is_the_plan(repo: GitRepoBuilder) -> None:
    before = _base(repo)
    plan, _, _ = _planned(before)
    carried = carry_plan(_load(repo), plan, before.units)
    assert carried.plan == plan and carried.followed == carried.uncovered == ()
