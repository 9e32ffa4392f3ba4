"""``open_repository`` finds the repository as git does, from anywhere in it, without GitPython."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reviewtui.errors import NotARepositoryError, PathNotFoundError
from reviewtui.git.runner import open_repository
from tests.conftest import GitRepoBuilder


def _where(path: Path) -> tuple[Path, Path, Path, bool]:
    repo = open_repository(path)
    return repo.root, repo.git_dir, repo.common_dir, repo.is_bare


def test_from_the_tree_a_folder_a_file_and_the_git_directory(repo: GitRepoBuilder) -> None:
    repo.write("pkg/mod.py", "x = 1\n")
    repo.commit("base")
    root = repo.root.resolve()
    expected = (root, root / ".git", root / ".git", False)
    for start in (repo.root, repo.root / "pkg", repo.root / "pkg" / "mod.py",
                  repo.root / ".git", repo.root / ".git" / "refs"):
        assert _where(start) == expected, start


def test_a_linked_worktree_and_a_bare_repository(repo: GitRepoBuilder, tmp_path: Path) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    root = repo.root.resolve()
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", "--detach", str(linked))
    found = _where(linked)
    assert found[0] == linked.resolve() and found[2] == root / ".git" and not found[3]
    assert found[1].parent == root / ".git" / "worktrees"
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(bare)], check=True)
    assert _where(bare) == (bare.resolve(), bare.resolve(), bare.resolve(), True)


def test_outside_a_repository(tmp_path: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    with pytest.raises(NotARepositoryError, match="not a git repository"):
        open_repository(outside)
    with pytest.raises(PathNotFoundError):
        open_repository(tmp_path / "missing")


def test_finding_it_does_not_import_gitpython(repo: GitRepoBuilder) -> None:
    """GitPython took a fifth of a second to import on the way to every change's first row."""
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    code = ("import sys; from reviewtui.git.runner import open_repository; "
            f"open_repository({str(repo.root)!r}); print('git' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert proc.stdout.strip() == "False"
