"""Which units a review read an earlier version of, once the change was collected again."""

from __future__ import annotations

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.review_versions import earlier_versions
from reviewtui.units.model import ReviewUnit, unit_key
from tests.conftest import GitRepoBuilder

SETTINGS = "".join(f"V{n} = {n}\n" for n in range(20))
SERVICE = ("def charge(amount):\n    total = amount * {}\n    return total\n" + "\n" * 20 +
           "def refund(amount):\n    return {}\n")


def _units(repo: GitRepoBuilder) -> list[ReviewUnit]:
    return list(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)).units)


def test_the_units_edited_since_are_named_and_marked_by_what_they_became(
        repo: GitRepoBuilder) -> None:
    repo.write("app/service.py", SERVICE.format(2, "amount"))
    repo.write("app/settings.py", SETTINGS)
    repo.commit("base")
    repo.write("app/service.py", SERVICE.format(3, "-amount"))
    repo.write("app/settings.py", SETTINGS.replace("V15 = 15", "V15 = 16"))
    read = _units(repo)
    repo.write("app/service.py", SERVICE.format(4, "-amount"))  # charge edited
    # a unit of no definition whose lines moved down (two lines added at the top, a unit of
    # their own): followed by the lines it covered
    repo.write("app/settings.py", "A = 1\nB = 2\n" + SETTINGS.replace("V15 = 15", "V15 = 17"))
    now = _units(repo)
    versions = earlier_versions(read, now)
    charge = next(u for u in now if u.file_path == "app/service.py" and u.span()[0] < 5)
    refund = next(u for u in now if u.file_path == "app/service.py" and u.span()[0] > 5)
    settings = next(u for u in now if u.file_path == "app/settings.py" and u.span()[0] > 5)
    assert {u.file_path for u in versions.changed} == {"app/service.py", "app/settings.py"}
    assert unit_key(settings) not in {unit_key(u) for u in read}
    assert {unit_key(charge), unit_key(settings)} == versions.marked
    assert versions.current == {unit_key(refund)}
    assert "2 units (" in versions.note(1) and "1 finding on lines" in versions.note(1)
    nothing = earlier_versions(now, now)
    assert (nothing.changed, nothing.marked, nothing.note(0)) == ((), frozenset(), "")
