"""``git rm --cached f``: the commit deletes f from the repository while f stays on disk.

Against the working tree (``--all``, ``--working``, no selector) git shows that file twice: a
deletion (HEAD has it, the index does not) and an untracked addition (it is on disk) of the same
unchanged lines, which read as "f replaced by a new f". The person sees one unit: the deletion
the commit makes, tagged ``kept_on_disk``, in every selector and after a refresh.
"""

from __future__ import annotations

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.units import ReviewUnit
from tests.conftest import GitRepoBuilder
from tests.unit.git.test_refresh import _age, _same_as_whole

BODY = "def f(x):\n    return x + 1\n\n\ndef g(y):\n    return y * 2\n"
SELECTORS = [ChangeSelector(SelectorMode.ALL), ChangeSelector(SelectorMode.WORKING),
             ChangeSelector(SelectorMode.STAGED), ChangeSelector(SelectorMode.AUTO)]


def _untracked_in_place(repo: GitRepoBuilder, path: str = "pkg/a.py") -> None:
    repo.write(path, BODY)
    repo.write("pkg/b.py", BODY)
    repo.commit("base")
    repo.git("rm", "-q", "--cached", path)
    repo.write("pkg/b.py", BODY.replace("x + 1", "x + 2"))  # an unrelated edit
    repo.git("add", "pkg/b.py")


def _units_of(repo: GitRepoBuilder, selector: ChangeSelector, path: str) -> list[ReviewUnit]:
    return [u for u in load_change(repo.root, selector, use_cache=False).units
            if u.file_path == path]


@pytest.mark.parametrize("selector", SELECTORS, ids=lambda s: s.mode.value)
def test_a_file_untracked_in_place_is_one_deletion_kept_on_disk(
        repo: GitRepoBuilder, selector: ChangeSelector) -> None:
    _untracked_in_place(repo)
    [unit] = _units_of(repo, selector, "pkg/a.py")
    assert unit.change_type == "delete"
    assert {"deleted_file", "kept_on_disk"} <= set(unit.tags)
    assert not {"new_file", "untracked"} & set(unit.tags)
    assert unit.removed_lines == BODY.count("\n") and unit.added_lines == 0


def test_the_unit_is_the_same_in_every_selector(repo: GitRepoBuilder) -> None:
    _untracked_in_place(repo)
    ids = {s.mode.value: [u.unit_id for u in _units_of(repo, s, "pkg/a.py")] for s in SELECTORS}
    assert len({tuple(v) for v in ids.values()}) == 1, ids


def test_an_ignored_file_untracked_in_place_is_kept_on_disk(repo: GitRepoBuilder) -> None:
    repo.write(".env", "TOKEN=abc\n")
    repo.commit("base")
    repo.write(".gitignore", ".env\n")
    repo.git("add", ".gitignore")
    repo.git("rm", "-q", "--cached", ".env")
    for selector in (SELECTORS[0], SELECTORS[2]):
        [unit] = _units_of(repo, selector, ".env")
        assert unit.change_type == "delete" and "kept_on_disk" in unit.tags


def test_a_plain_deletion_is_not_kept_on_disk(repo: GitRepoBuilder) -> None:
    _untracked_in_place(repo)
    repo.git("rm", "-q", "-f", "pkg/b.py")
    for selector in SELECTORS:
        [unit] = _units_of(repo, selector, "pkg/b.py") or [None]
        if unit is not None:
            assert unit.change_type == "delete" and "kept_on_disk" not in unit.tags


def test_a_file_untracked_in_place_then_edited_is_still_one_unit(repo: GitRepoBuilder) -> None:
    _untracked_in_place(repo)
    repo.write("pkg/a.py", BODY + "\n\ndef h():\n    pass\n")
    for selector in SELECTORS:
        [unit] = _units_of(repo, selector, "pkg/a.py")
        assert unit.change_type == "delete" and "kept_on_disk" in unit.tags


@pytest.mark.parametrize("mode", [SelectorMode.ALL, SelectorMode.AUTO])
def test_untracking_in_place_after_loading_refreshes_to_one_unit(
        repo: GitRepoBuilder, mode: SelectorMode) -> None:
    selector = ChangeSelector(mode)
    repo.write("pkg/a.py", BODY)
    repo.write("pkg/b.py", BODY)
    repo.commit("base")
    repo.write("pkg/b.py", BODY.replace("x + 1", "x + 2"))
    _age(repo.root)
    loaded = load_change(repo.root, selector)
    repo.git("rm", "-q", "--cached", "pkg/a.py")
    fresh = loaded.refresh()
    _same_as_whole(fresh, selector)
    [unit] = [u for u in fresh.units if u.file_path == "pkg/a.py"]
    assert unit.change_type == "delete" and "kept_on_disk" in unit.tags
    repo.write("pkg/a.py", BODY + "# edited on disk\n")
    again = fresh.refresh()
    _same_as_whole(again, selector)
    [unit] = [u for u in again.units if u.file_path == "pkg/a.py"]
    assert unit.change_type == "delete" and "kept_on_disk" in unit.tags


def test_working_refresh_keeps_one_unit(repo: GitRepoBuilder) -> None:
    selector = ChangeSelector(SelectorMode.WORKING)
    _untracked_in_place(repo)
    _age(repo.root)
    loaded = load_change(repo.root, selector)
    repo.write("pkg/a.py", BODY + "# edited on disk\n")
    fresh = loaded.refresh()
    _same_as_whole(fresh, selector)
    [unit] = [u for u in fresh.units if u.file_path == "pkg/a.py"]
    assert unit.change_type == "delete" and "kept_on_disk" in unit.tags


def test_a_large_file_untracked_in_place_is_one_unit(repo: GitRepoBuilder) -> None:
    # a deleted file longer than a unit is cut into several; this one leaves the repository
    # unchanged on disk: one decision, one unit
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(80))
    _untracked_in_place(repo)
    repo.write("pkg/big.py", body)
    repo.git("add", "pkg/big.py")
    repo.git("commit", "-q", "-m", "big")
    repo.git("rm", "-q", "--cached", "pkg/big.py")
    for selector in SELECTORS:
        [unit] = _units_of(repo, selector, "pkg/big.py")
        assert unit.change_type == "delete" and "kept_on_disk" in unit.tags
        assert unit.removed_lines == body.count("\n")


def test_working_before_the_first_commit_lists_untracked_files_as_new(
        repo: GitRepoBuilder) -> None:
    repo.write("a.py", BODY)
    [unit] = _units_of(repo, SELECTORS[1], "a.py")
    assert unit.change_type == "add" and "untracked" in unit.tags
