"""Hunk merging and splitting, unit ids and compact line numbers."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from reviewtui.config import UnitsSettings
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.units import compact_ranges
from tests.conftest import GitRepoBuilder

ALL = ChangeSelector(SelectorMode.ALL)


def test_compact_ranges() -> None:
    assert compact_ranges([1, 2, 3, 5, 6, 7, 15]) == "L1-3,L5-7,L15"
    assert compact_ranges([]) == ""
    assert compact_ranges([4, 4, 3]) == "L3-4"


def _numbered(count: int, changed: set[int]) -> str:
    return "".join(f"line {i}{' changed' if i in changed else ''}\n" for i in range(1, count + 1))


def test_close_hunks_merge_far_hunks_do_not(repo: GitRepoBuilder) -> None:
    repo.write("f.txt", _numbered(200, set()))
    repo.commit("base")
    repo.write("f.txt", _numbered(200, {10, 20, 150}))  # 10/20: gap 3 lines of context apart
    units = load_change(repo.root, ALL).units
    assert [u.new_compact for u in units] == ["L10,L20", "L150"]
    assert [u.hunk_count for u in units] == [1, 1] or [u.hunk_count for u in units] == [2, 1]


def test_merge_gap_is_configurable(repo: GitRepoBuilder) -> None:
    repo.write("f.txt", _numbered(200, set()))
    repo.commit("base")
    repo.write("f.txt", _numbered(200, {10, 30}))
    assert len(load_change(repo.root, ALL).units) == 2
    (repo.root / ".reviewtui.toml").write_text("[units]\nmerge_gap = 20\n")
    repo.git("add", ".reviewtui.toml")
    units = [u for u in load_change(repo.root, ALL).units if u.file_path == "f.txt"]
    assert [u.new_compact for u in units] == ["L10,L30"]
    assert units[0].hunk_count == 2


def test_merged_units_are_capped_by_hunks(repo: GitRepoBuilder) -> None:
    repo.write("f.txt", _numbered(400, set()))
    repo.commit("base")
    changed = set(range(10, 400, 10))  # 39 hunks 10 lines apart
    repo.write("f.txt", _numbered(400, changed))
    (repo.root / ".reviewtui.toml").write_text("[units]\nmerge_gap = 50\nmax_hunks = 4\n")
    units = [u for u in load_change(repo.root, ALL).units if u.file_path == "f.txt"]
    assert all(u.hunk_count <= 4 for u in units)
    assert sum(u.added_lines for u in units) == len(changed)
    assert len(units) == 10


def test_a_new_large_file_is_split_at_definitions(repo: GitRepoBuilder) -> None:
    repo.write("README.md", "x\n")
    repo.commit("base")
    body = "".join(
        f"def func_{i}(x):\n" + "".join(f"    x += {j}\n" for j in range(10)) + "    return x\n\n\n"
        for i in range(40)
    )
    repo.write("big.py", body)
    units = [u for u in load_change(repo.root, ALL).units if u.file_path == "big.py"]
    assert len(units) > 1
    assert all(u.added_lines <= UnitsSettings().max_lines for u in units)
    assert sum(u.added_lines for u in units) == body.count("\n")
    # every piece but the first starts exactly at a function definition
    for unit in units[1:]:
        first_added = next(ln for h in unit.hunks for ln in h.lines if ln.kind == "+")
        assert first_added.text.startswith("def func_")
    assert all("complete_function" in u.tags for u in units)


def _functions(indent: str, count: int = 40) -> list[str]:
    return [f"{indent}int Func{i}(int x) {{\n" + "".join(f"{indent}    x += {j};\n"
                                                        for j in range(10))
            + f"{indent}    return x;\n{indent}}}\n" for i in range(count)]


@pytest.mark.parametrize(("path", "text", "starts"), [
    # C#: a class per function, the classes directly in the namespace
    ("Big.cs", "namespace App\n{\n" + "\n".join(
        f"    static class Funcs{i}\n    {{\n{f}    }}\n"
        for i, f in enumerate(_functions("        "))) + "}\n", "static class Funcs"),
    # C++: functions directly in an unindented namespace
    ("big.cpp", "namespace app {\n\n" + "\n".join(_functions("")) + "}  // namespace app\n",
     "int Func"),
])
def test_a_new_large_file_in_a_namespace_is_split_at_its_definitions(
        repo: GitRepoBuilder, path: str, text: str, starts: str) -> None:
    repo.write("README.md", "x\n")
    repo.commit("base")
    repo.write(path, text)
    units = [u for u in load_change(repo.root, ALL).units if u.file_path == path]
    assert len(units) > 1
    for unit in units[1:]:  # every piece but the first starts where a definition starts
        first_added = next(ln for h in unit.hunks for ln in h.lines if ln.kind == "+")
        assert first_added.text.strip().startswith(starts), first_added.text


def test_unit_ids_are_stable_across_runs_and_clones(repo: GitRepoBuilder, tmp_path: Path) -> None:
    repo.write("a.py", "x = 1\n" * 30)
    repo.commit("base")
    repo.write("a.py", "x = 1\n" * 10 + "y = 2\n" + "x = 1\n" * 19)
    sha = repo.commit("change")
    first = [u.unit_id for u in load_change(repo.root, ALL).units]
    by_commit = [u.unit_id for u in
                 load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref=sha)).units]
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo.root), str(clone)], check=True)
    cloned = [u.unit_id for u in
              load_change(clone, ChangeSelector(SelectorMode.COMMIT, ref=sha)).units]
    assert first == [] and by_commit == cloned and len(set(by_commit)) == 1
    again = [u.unit_id for u in
             load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref=sha)).units]
    assert again == by_commit and by_commit[0].startswith("u_")


def test_diff_text_carries_line_numbers(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "a = 1\nb = 2\nc = 3\n")
    repo.commit("base")
    repo.write("a.py", "a = 1\nb = 20\nc = 3\n")
    [unit] = load_change(repo.root, ALL).units
    lines = unit.diff_text().splitlines()
    assert lines[0].startswith("@@ -1,3 +1,3 @@")
    assert "    2       -b = 2" in lines
    assert "          2 +b = 20" in lines


def _members(indent: str, opener: str, count: int = 30) -> str:
    """``count`` methods of 4 to 24 lines, each with a doc comment and blank lines inside."""
    return "\n".join(
        f"{indent}/**\n{indent} * Method {i}.\n{indent} */\n"
        f"{indent}{opener.format(i=i)} {{\n"
        + "".join(f"{indent}    x += {j};\n" + ("\n" if j % 3 == 2 else "")
                  for j in range(2 + (i * 7) % 15))
        + f"{indent}    return x;\n{indent}}}\n"
        for i in range(count))


@pytest.mark.parametrize(("path", "text", "opener"), [
    ("src/Big.java", "package app;\n\n/** A big class. */\npublic final class Big {\n"
     "  private int x;\n\n" + _members("  ", "public int m{i}(int x)") + "}\n",
     "public int m"),
    ("Big.cs", "namespace App\n{\n    public class Big\n    {\n"
     + _members("        ", "public int M{i}(int x)") + "    }\n}\n", "public int M"),
    ("Big.kt", "package app\n\nclass Big {\n" + _members("    ", "fun m{i}(x: Int): Int")
     + "}\n", "fun m"),
    ("big.ts", "export class Big {\n" + _members("  ", "m{i}(x: number): number") + "}\n", "m"),
])
def test_a_new_large_class_is_split_between_its_methods(
        repo: GitRepoBuilder, path: str, text: str, opener: str) -> None:
    repo.write("README.md", "x\n")
    repo.commit("base")
    repo.write(path, text)
    units = [u for u in load_change(repo.root, ALL).units if u.file_path == path]
    assert len(units) > 3
    assert all(u.added_lines <= UnitsSettings().max_lines for u in units)
    assert sum(u.added_lines for u in units) == text.count("\n")
    for unit in units[1:]:  # every piece but the first starts at a method's doc comment
        added = [ln.text for h in unit.hunks for ln in h.lines if ln.kind == "+"]
        assert added[0].strip() == "/**", added[:4]
        assert added[3].strip().startswith(opener), added[:4]
    # and every piece but the last ends with a method's closing brace
    for unit in units[:-1]:
        added = [ln.text for h in unit.hunks for ln in h.lines if ln.kind == "+"]
        assert added[-1].strip() in ("}", ""), added[-3:]
        assert [t for t in added if t.strip()][-1].strip() == "}", added[-3:]


def _removed(unit: object) -> list[str]:
    return [ln.text for h in unit.hunks for ln in h.lines if ln.kind == "-"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("path", "text", "opener"), [
    ("big.py", "".join(
        f"def func_{i}(x):\n" + "".join(f"    x += {j}\n" + ("\n" if j % 4 == 3 else "")
                                        for j in range(3 + (i * 5) % 13))
        + "    return x\n\n\n" for i in range(40)), "def func_"),
    ("src/Big.java", "package app;\n\npublic final class Big {\n  private int x;\n\n"
     + _members("  ", "public int m{i}(int x)") + "}\n", "/**"),
], ids=["python", "java"])
def test_a_deleted_large_file_is_split_at_its_old_definitions(
        repo: GitRepoBuilder, path: str, text: str, opener: str) -> None:
    repo.write("README.md", "x\n")
    repo.write(path, text)
    repo.commit("base")
    repo.git("rm", "-q", path)
    sha = repo.commit("delete")
    units = [u for u in load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref=sha)).units
             if u.file_path == path]
    assert len(units) > 3
    assert all(u.removed_lines <= UnitsSettings().max_lines for u in units)
    assert sum(u.removed_lines for u in units) == text.count("\n")
    for unit in units[1:]:  # every piece but the first starts where a definition starts
        assert _removed(unit)[0].strip().startswith(opener), _removed(unit)[:3]


def test_lines_removed_from_a_large_file_are_split_at_its_old_definitions(
        repo: GitRepoBuilder) -> None:
    kept = "".join(f"def kept_{i}():\n    return {i}\n\n\n" for i in range(5))
    gone = "".join(f"def gone_{i}(x):\n" + "".join(f"    x += {j}\n\n" for j in range(2 + i % 9))
                   + "    return x\n\n\n" for i in range(40))
    repo.write("mod.py", kept + gone + kept.replace("kept_", "tail_"))
    repo.commit("base")
    repo.write("mod.py", kept + kept.replace("kept_", "tail_"))
    units = [u for u in load_change(repo.root, ALL).units if u.file_path == "mod.py"]
    assert len(units) > 3 and all(u.added_lines == 0 for u in units)
    for unit in units[1:]:
        assert _removed(unit)[0].startswith("def gone_"), _removed(unit)[:3]



def _first_changed(unit: object) -> str:
    return next(ln.kind + ln.text for h in unit.hunks for ln in h.lines  # type: ignore[attr-defined]
                if ln.kind != " ")


def test_a_large_block_replaced_by_a_small_one_is_split_at_its_old_definitions(
        repo: GitRepoBuilder) -> None:
    """An oversized hunk that removes a lot and adds a little (40 functions replaced by one
    table) is cut where the old version's definitions start, as a removal alone is: its new
    side has no definition there to cut at."""
    kept = "".join(f"def kept_{i}():\n    return {i}\n\n\n" for i in range(5))
    gone = "".join(f"def gone_{i}(x):\n" + "".join(f"    x += {j}\n\n" for j in range(2 + i % 9))
                   + "    return x\n\n\n" for i in range(40))
    table = "STEPS = {\n    'gone': 0,\n}\n\n\n"
    repo.write("mod.py", kept + gone + kept.replace("kept_", "tail_"))
    repo.commit("base")
    repo.write("mod.py", kept + table + kept.replace("kept_", "tail_"))
    units = [u for u in load_change(repo.root, ALL).units if u.file_path == "mod.py"]
    assert len(units) > 3 and sum(u.added_lines for u in units) == table.count("\n") - 2
    assert all(u.added_lines + u.removed_lines <= UnitsSettings().max_lines for u in units)
    for unit in units[1:]:
        assert _first_changed(unit).startswith(("-def gone_", "+")), _removed(unit)[:3]
