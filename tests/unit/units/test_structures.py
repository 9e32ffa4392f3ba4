"""Each changed file version with changed lines is analysed, around those lines."""

from __future__ import annotations

from reviewtui.git import ChangeSelector, ContentReader, SelectorMode, collect_change
from reviewtui.git.runner import open_repository
from reviewtui.pipeline import load_change
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



def test_a_minified_file_is_not_parsed_and_its_line_is_in_no_single_function(
        repo: GitRepoBuilder) -> None:
    # jquery.min.js: thousands of functions on one line. Parsed, the changed line was "in a
    # single function" (whichever came first) -- and the parse cost 0.3 s for a 4-line diff.
    functions = ";".join(f"function f{i}(a){{return a+{i}}}" for i in range(400))
    repo.write("static/lib.min.js", functions + "\n")
    repo.write("static/app.js", "function main() {\n  return 1;\n}\n")
    repo.commit("base")
    repo.write("static/lib.min.js", functions.replace("a+7}", "a+8}") + "\n")
    repo.write("static/app.js", "function main() {\n  return 2;\n}\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)
    units = {u.file_path: u for u in loaded.units}
    assert units["static/lib.min.js"].new_compact == "L1"
    assert "in_single_function" not in units["static/lib.min.js"].tags
    assert not units["static/lib.min.js"].scopes
    assert "in_single_function" in units["static/app.js"].tags  # readable code still is
    git_repo = open_repository(repo.root)
    change_set = collect_change(git_repo, ChangeSelector(SelectorMode.ALL))
    parsed = analyze_changes(change_set.files, ContentReader(git_repo, change_set, 1 << 20))
    assert set(parsed) == {("static/app.js", "old"), ("static/app.js", "new")}
