"""Each changed file version with changed lines is analysed, around those lines."""

from __future__ import annotations

from reviewtui.git import ChangeSelector, ContentReader, SelectorMode, collect_change
from reviewtui.git.runner import open_repository
from reviewtui.units.structures import analyze_changes
from tests.conftest import GitRepoBuilder


def test_every_changed_side_is_analysed(repo: GitRepoBuilder) -> None:
    for i in range(6):
        repo.write(f"m{i}.py", "".join(f"def f{j}():\n    return {j}\n\n" for j in range(30)))
    repo.write("util.go", "package u\n\nfunc A() int {\n\treturn 1\n}\n")
    repo.commit("base")
    for i in range(6):
        repo.write(f"m{i}.py", "".join(f"def f{j}():\n    return {j + (j == i)}\n\n"
                                       for j in range(30)))
    repo.write("util.go", "package u\n\nfunc A() int {\n\treturn 2\n}\n")
    git_repo = open_repository(repo.root)
    change_set = collect_change(git_repo, ChangeSelector(SelectorMode.ALL))
    reader = ContentReader(git_repo, change_set, 1 << 20)
    serial = analyze_changes(change_set.files, reader)
    assert set(serial) == {(f"m{i}.py", side) for i in range(6) for side in ("old", "new")} | {
        ("util.go", "old"), ("util.go", "new")}
    inner = serial[("m3.py", "new")].enclosing(3 * 3 + 2)
    assert inner is not None and inner.name == "f3"

