"""Which unit the cursor follows after a refresh: the one it was on, even with a new id."""

from __future__ import annotations

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.units.identity import successor_of
from tests.conftest import GitRepoBuilder

SERVICE = ("def charge(amount):\n    total = amount * {}\n    return total\n" + "\n" * 20 +
           "def refund(amount):\n    return {}\n")


def test_an_edited_unit_is_followed_to_its_new_id_in_its_own_file(repo: GitRepoBuilder) -> None:
    repo.write("app/service.py", SERVICE.format(2, "amount"))
    repo.write("app/old.py", "def legacy():\n    return 1\n")
    repo.commit("base")
    repo.write("app/service.py", SERVICE.format(3, "-amount"))
    repo.write("app/old.py", "def legacy():\n    return 2\n")
    before = load_change(repo.root, ChangeSelector(SelectorMode.AUTO)).units
    refund = next(u for u in before if u.file_path == "app/service.py" and u.span()[0] > 10)
    old = next(u for u in before if u.file_path == "app/old.py")
    repo.write("app/service.py", SERVICE.format(3, "abs(amount)"))  # the refund fix applied
    after = load_change(repo.root, ChangeSelector(SelectorMode.AUTO)).units
    assert refund.unit_id not in {u.unit_id for u in after}  # a new id
    new_refund = successor_of(refund, after)
    found = next(u for u in after if u.unit_id == new_refund)
    assert found.file_path == "app/service.py" and found.span()[0] > 10  # not charge's unit
    assert successor_of(old, after) == old.unit_id  # unchanged: itself
    repo.write("app/old.py", "def legacy():\n    return 1\n")  # its file left the change
    gone = load_change(repo.root, ChangeSelector(SelectorMode.AUTO)).units
    assert successor_of(old, gone) is None
