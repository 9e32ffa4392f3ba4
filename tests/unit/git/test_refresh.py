"""Refreshing a working-tree change diffs only what changed, and gives what a whole collection
gives: edits, new and removed untracked files, reverts, deletions, renames, and the cases that
must fall back to collecting everything (HEAD moved, the index changed under --working, the
settings changed)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from reviewtui.git import ChangeSelector, SelectorMode, collect_change, open_repository
from reviewtui.git.refresh import RACY_NS, WorktreeStamps, recollect, stamp, stamp_change
from reviewtui.pipeline import LoadedChange, load_change
from tests.conftest import GitRepoBuilder

AUTO = ChangeSelector(SelectorMode.AUTO)
BODY = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(12))


def _age(root: Path) -> None:
    """Put every file's mtime well before now, so no stamp is racy."""
    past = time.time_ns() - 10 * RACY_NS
    for path in root.rglob("*"):
        if ".git" not in path.parts and path.is_file():
            os.utime(path, ns=(past, past))


def _base(repo: GitRepoBuilder) -> GitRepoBuilder:
    for name in ("a.py", "b.py", "c.py", "d.py"):
        repo.write(f"pkg/{name}", BODY)
    repo.commit("base")
    repo.write("pkg/a.py", BODY.replace("x + 3", "x * 3"))
    repo.write("pkg/b.py", BODY.replace("x + 7", "x - 7"))
    repo.write("notes.txt", "untracked\n")
    _age(repo.root)
    return repo


def _loaded(repo: GitRepoBuilder, selector: ChangeSelector = AUTO) -> LoadedChange:
    loaded = load_change(repo.root, selector)
    assert loaded.stamps is not None
    return loaded


def _same_as_whole(loaded: LoadedChange, selector: ChangeSelector = AUTO) -> None:
    whole = load_change(loaded.root, selector, use_cache=False)
    assert loaded.change_set.files == whole.change_set.files
    assert [u.unit_id for u in loaded.units] == [u.unit_id for u in whole.units]
    assert loaded.suggestions == whole.suggestions


def _changed(loaded: LoadedChange) -> frozenset[str]:
    repo = open_repository(loaded.root)
    assert loaded.stamps is not None
    again = recollect(repo, loaded.change_set, loaded.stamps, include_untracked=True,
                      max_file_bytes=1 << 20)
    assert again is not None
    return again.changed


def test_nothing_edited_diffs_nothing(repo: GitRepoBuilder) -> None:
    loaded = _loaded(_base(repo))
    assert _changed(loaded) == frozenset()
    assert loaded.refresh().change_set is loaded.change_set


def test_an_edit_diffs_only_that_file(repo: GitRepoBuilder) -> None:
    loaded = _loaded(_base(repo))
    repo.write("pkg/b.py", BODY.replace("x + 7", "x - 7").replace("x + 9", "x // 9"))
    assert _changed(loaded) == {"pkg/b.py"}
    fresh = loaded.refresh()
    _same_as_whole(fresh)
    b_units = [u for u in fresh.units if u.file_path == "pkg/b.py"]
    assert "x // 9" in "".join(u.diff_text() for u in b_units)
    a_before = [u.unit_id for u in loaded.units if u.file_path == "pkg/a.py"]
    assert [u.unit_id for u in fresh.units if u.file_path == "pkg/a.py"] == a_before


def test_files_joining_and_leaving_the_change(repo: GitRepoBuilder) -> None:
    loaded = _loaded(_base(repo))
    repo.write("pkg/c.py", BODY.replace("x + 1", "x + 100"))  # tracked, now changed
    repo.write("pkg/a.py", BODY)  # reverted: leaves the change
    (repo.root / "notes.txt").unlink()  # untracked file gone
    repo.write("new/dir/extra.py", "VALUE = 1\n")  # inside an untracked folder
    (repo.root / "pkg/d.py").unlink()  # a deletion
    assert _changed(loaded) == {"pkg/a.py", "pkg/c.py", "pkg/d.py", "notes.txt",
                                "new/dir/extra.py"}
    fresh = loaded.refresh()
    _same_as_whole(fresh)
    kinds = {u.file_path: u.change_type for u in fresh.units}
    assert kinds["pkg/d.py"] == "delete" and kinds["new/dir/extra.py"] == "add"
    assert "pkg/a.py" not in kinds and "notes.txt" not in kinds


def test_an_untracked_file_named_in_latin1_joins_on_refresh(repo: GitRepoBuilder) -> None:
    loaded = _loaded(_base(repo))
    (repo.root / os.fsdecode(b"caf\xe9.py")).write_text("VALUE = 1\n")
    assert "caf\ufffd.py" in _changed(loaded)
    fresh = loaded.refresh()
    _same_as_whole(fresh)
    [unit] = [u for u in fresh.units if u.file_path == "caf\ufffd.py"]
    assert unit.change_type == "add" and unit.new_compact == "L1"


def test_an_untracked_repository_inside_joins_and_moves_on_refresh(
        repo: GitRepoBuilder) -> None:
    loaded = _loaded(_base(repo))
    inner = GitRepoBuilder(repo.root / "vendor" / "lib")
    inner.write("lib.py", "VALUE = 1\n")
    inner.commit("v1")
    fresh = loaded.refresh()
    _same_as_whole(fresh)
    assert [u.file_path for u in fresh.units if "submodule" in u.tags] == ["vendor/lib"]
    inner.write("lib.py", "VALUE = 2\n")
    second = inner.commit("v2")
    again = fresh.refresh()
    _same_as_whole(again)
    [unit] = [u for u in again.units if u.file_path == "vendor/lib"]
    assert unit.hunks[0].lines[0].text == f"Subproject commit {second}"


def test_a_staged_rename_is_diffed_with_both_paths(repo: GitRepoBuilder) -> None:
    _base(repo)
    repo.git("mv", "pkg/c.py", "pkg/renamed.py")
    _age(repo.root)
    loaded = _loaded(repo)
    assert any(u.change_type == "rename" for u in loaded.units)
    repo.write("pkg/renamed.py", BODY.replace("x + 2", "x ** 2"))
    assert _changed(loaded) == {"pkg/c.py", "pkg/renamed.py"}
    fresh = loaded.refresh()
    _same_as_whole(fresh)
    renamed = [u for u in fresh.units if u.file_path == "pkg/renamed.py"]
    assert renamed and all(u.old_path == "pkg/c.py" for u in renamed)


def test_a_new_commit_collects_everything_again(repo: GitRepoBuilder) -> None:
    loaded = _loaded(_base(repo))
    repo.commit("the work")
    repo.write("pkg/c.py", BODY.replace("x + 5", "x + 55"))
    repo_handle = open_repository(repo.root)
    assert loaded.stamps is not None
    assert recollect(repo_handle, loaded.change_set, loaded.stamps, include_untracked=True,
                     max_file_bytes=1 << 20) is None
    fresh = loaded.refresh()
    assert {u.file_path for u in fresh.units} == {"pkg/c.py"}


def test_working_mode_falls_back_when_the_index_changes(repo: GitRepoBuilder) -> None:
    working = ChangeSelector(SelectorMode.WORKING)
    loaded = _loaded(_base(repo), working)
    repo.write("pkg/c.py", BODY.replace("x + 4", "x + 44"))
    assert _changed(loaded) == {"pkg/c.py"}
    _same_as_whole(loaded.refresh(), working)
    repo.git("add", "pkg/a.py")  # the base of --working moved
    repo_handle = open_repository(repo.root)
    assert loaded.stamps is not None
    assert recollect(repo_handle, loaded.change_set, loaded.stamps, include_untracked=True,
                     max_file_bytes=1 << 20) is None
    _same_as_whole(loaded.refresh(), working)


def test_a_settings_change_scores_everything_again(repo: GitRepoBuilder) -> None:
    loaded = _loaded(_base(repo))
    repo.write(".reviewtui.toml", "[units]\nmerge_gap = 0\n")
    fresh = loaded.refresh()
    assert fresh.settings.units.merge_gap == 0
    assert fresh.stamps is not None


def test_a_clean_tree_is_collected_whole(repo: GitRepoBuilder) -> None:
    loaded = _loaded(_base(repo))
    repo.commit("everything")
    repo.write("pkg/a.py", BODY.replace("x + 3", "x * 3"))
    repo.git("checkout", "--", "pkg/a.py")  # back to clean: auto picks the last commit
    fresh = loaded.refresh()
    assert fresh.change_set.mode != "all"


def test_an_edit_within_the_racy_window_is_diffed_again(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    path.write_text("x = 1\n")
    now = time.time_ns()
    fresh = WorktreeStamps(now, {"f.py": stamp(path)})
    assert fresh.dirty(tmp_path, "f.py")  # stamped as it was being written: not trusted
    past = now - 10 * RACY_NS
    os.utime(path, ns=(past, past))
    settled = WorktreeStamps(now, {"f.py": stamp(path)})
    assert not settled.dirty(tmp_path, "f.py")
    assert settled.dirty(tmp_path, "other.py")  # never stamped


def test_a_commit_is_never_stamped(repo: GitRepoBuilder) -> None:
    _base(repo)
    repo.commit("work")
    handle = open_repository(repo.root)
    change = collect_change(handle, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"))
    assert stamp_change(handle, change, time.time_ns()) is None


@pytest.mark.parametrize("edits", [1, 3])
def test_repeated_refreshes_match_a_whole_collection(repo: GitRepoBuilder, edits: int) -> None:
    loaded = _loaded(_base(repo))
    for round_ in range(edits):
        repo.write("pkg/a.py", BODY.replace("x + 3", f"x * {round_ + 3}"))
        repo.write(f"extra_{round_}.py", f"VALUE = {round_}\n")
        loaded = loaded.refresh()
        _same_as_whole(loaded)


def test_a_change_in_priority_order_comes_back_counted_as_a_whole_one(
        repo: GitRepoBuilder) -> None:
    """After an edit, every unit's priority counts its reach and learned part again -- the
    edited unit's own, and the others' with their new shares of the change -- exactly as
    loading the edited change whole and counting it would."""
    loaded = _loaded(_base(repo)).with_reach(keep=False)
    assert all(s.reach_counted for s in loaded.suggestions.values())
    repo.write("pkg/b.py", BODY.replace("x + 7", "x - 7").replace("x + 9", "x // 9 if x else 0"))
    fresh = loaded.refresh()
    whole = load_change(repo.root, AUTO, use_cache=False).with_reach(keep=False)
    assert {u.unit_id for u in fresh.units} == {u.unit_id for u in whole.units}
    assert all(s.reach_counted for s in fresh.suggestions.values())
    for unit in whole.units:
        mine, theirs = fresh.suggestions[unit.unit_id], whole.suggestions[unit.unit_id]
        assert mine.priority_parts == theirs.priority_parts, unit.location
        assert fresh.learned_features[unit.unit_id] == whole.learned_features[unit.unit_id]
    edited = next(u for u in fresh.units if "x // 9" in u.diff_text())
    assert dict(fresh.suggestions[edited.unit_id].priority_parts).keys() >= {"reach", "learned"}


def test_a_commit_gathers_the_stated_purpose_again_and_keeps_the_description(
        repo: GitRepoBuilder) -> None:
    """Collected whole after a commit, the change is another one (its commits, its branch):
    its stated purpose is gathered again, not the working tree's carried over; the
    description given keeps its place and its source."""
    _base(repo)
    loaded = _loaded(repo).with_intent("Make the maths odd")
    assert loaded.intent is not None and loaded.intent.commits == ()
    repo.git("checkout", "-q", "-b", "odd")
    repo.commit("odd maths")
    fresh = loaded.refresh()
    assert fresh.change_set.key != loaded.change_set.key
    assert fresh.intent is not None
    assert [c.subject for c in fresh.intent.commits] == ["odd maths"]
    assert fresh.intent.branch == "odd"
    assert (fresh.intent.description, fresh.intent.description_source) == (
        "Make the maths odd", "--description")
