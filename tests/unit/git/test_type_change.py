"""A tracked file that becomes a symlink (a type change) is one changed file, whatever the
selector: git patches it as a deletion and an addition, and both halves belong to it."""

from __future__ import annotations

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder


def _symlinked(repo: GitRepoBuilder) -> None:
    repo.write("config.txt", "mode = fast\n")
    repo.write("real.txt", "mode = safe\n")
    repo.write("app.py", "x = 1\n")
    repo.commit("base")
    (repo.root / "config.txt").unlink()
    (repo.root / "config.txt").symlink_to("real.txt")
    repo.write("app.py", "x = 2\n")  # another file after it: the halves must not shift it


@pytest.mark.parametrize("mode", [SelectorMode.WORKING, SelectorMode.STAGED,
                                  SelectorMode.COMMIT])
def test_a_file_that_became_a_symlink_is_one_changed_file(repo: GitRepoBuilder,
                                                          mode: SelectorMode) -> None:
    _symlinked(repo)
    if mode is not SelectorMode.WORKING:
        repo.git("add", "-A")
    if mode is SelectorMode.COMMIT:
        repo.commit("config is a link now")
    loaded = load_change(repo.root, ChangeSelector(mode, ref="HEAD" if mode is
                                                   SelectorMode.COMMIT else None),
                         use_cache=False)
    by_path = {u.file_path: u for u in loaded.units}
    assert set(by_path) == {"config.txt", "app.py"}
    link = by_path["config.txt"]
    assert "symlink" in link.tags and (link.added_lines, link.removed_lines) == (1, 1)
    assert [ln.text for h in link.hunks for ln in h.lines if ln.kind != " "] == [
        "mode = fast", "real.txt"]
    assert by_path["app.py"].changed_lines() == ["x = 1", "x = 2"]


def test_the_halves_of_a_type_change_may_arrive_in_different_chunks(
        repo: GitRepoBuilder) -> None:
    from reviewtui.git.diff_parse import parse_raw_patch, parse_raw_patch_stream
    from reviewtui.git.runner import DIFF_OPTIONS

    _symlinked(repo)
    raw = repo.git("diff", "--raw", "-z", "-p", *DIFF_OPTIONS, "HEAD").encode()
    whole = parse_raw_patch(raw)
    assert [c.path for c in whole] == ["app.py", "config.txt"]
    cut = raw.index(b"diff --git a/config.txt", raw.index(b"diff --git a/config.txt") + 1)
    for size in (1, 7, cut, len(raw)):
        chunks = [raw[i:i + size] for i in range(0, len(raw), size)]
        assert parse_raw_patch_stream(chunks) == whole
