"""The person's decisions follow their units when the change is collected again."""

from __future__ import annotations

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextLevel
from reviewtui.pipeline import load_change
from reviewtui.plan import OverrideSet, UnitOverride
from reviewtui.plan.overrides import carried_ids, carry_overrides
from reviewtui.units import ReviewUnit
from tests.conftest import GitRepoBuilder

BIG = ["def big(x):", *[f"    v{i} = x + {i}" for i in range(60)], "    return x"]


def _write(repo: GitRepoBuilder, edits: dict[int, str]) -> None:
    lines = [edits.get(i, line) for i, line in enumerate(BIG)]
    repo.write("mod.py", "\n".join(lines) + "\n")


def _units(repo: GitRepoBuilder) -> list[ReviewUnit]:
    return load_change(repo.root, ChangeSelector(SelectorMode.AUTO)).units


def _two_units_of_one_function(repo: GitRepoBuilder) -> tuple[list[ReviewUnit], ReviewUnit]:
    _write(repo, {})
    repo.commit("base")
    _write(repo, {4: "    v3 = x + 300", 51: "    v50 = x + 5000"})
    before = _units(repo)
    assert len(before) == 2 and before[0].functions == before[1].functions == ("big",)
    return before, max(before, key=lambda u: u.span() or (0, 0))


def test_a_decision_stays_on_the_edited_unit_not_the_first_of_its_function(
        repo: GitRepoBuilder) -> None:
    before, second = _two_units_of_one_function(repo)
    first = next(u for u in before if u is not second)
    decided = OverrideSet(units={second.unit_id: UnitOverride(level=ContextLevel.FULL_FILE)})
    _write(repo, {4: "    v3 = x + 300", 51: "    v50 = x + 5001"})  # only the second edited
    after = _units(repo)
    edited = next(u for u in after if u.unit_id != first.unit_id)
    assert first.unit_id in {u.unit_id for u in after}  # untouched: the same id
    carried = carry_overrides(decided, before, after)
    assert list(carried.units) == [edited.unit_id]
    assert carried.units[edited.unit_id].level is ContextLevel.FULL_FILE


def test_a_decision_never_moves_to_an_untouched_unit(repo: GitRepoBuilder) -> None:
    """The decided unit's edit is undone (its unit is gone): its decision is kept under its
    id (the code may come back), not given to the other unit of the function."""
    before, second = _two_units_of_one_function(repo)
    decided = OverrideSet(units={second.unit_id: UnitOverride(skip=True)})
    _write(repo, {4: "    v3 = x + 300"})
    after = _units(repo)
    assert carried_ids(decided, before, after) == {}
    assert carry_overrides(decided, before, after) == decided


def test_two_edited_units_keep_their_own_decisions(repo: GitRepoBuilder) -> None:
    before, second = _two_units_of_one_function(repo)
    first = next(u for u in before if u is not second)
    decided = OverrideSet(units={first.unit_id: UnitOverride(skip=True),
                                 second.unit_id: UnitOverride(level=ContextLevel.FULL_FILE)})
    _write(repo, {4: "    v3 = x + 301", 51: "    v50 = x + 5001"})
    after = sorted(_units(repo), key=lambda u: u.span() or (0, 0))
    assert not {u.unit_id for u in after} & set(decided.units)
    carried = carry_overrides(decided, before, after)
    assert carried.units[after[0].unit_id].skip is True
    assert carried.units[after[1].unit_id].level is ContextLevel.FULL_FILE
