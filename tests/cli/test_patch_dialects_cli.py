"""``index --patch`` reads the patches git writes in its other dialects as it reads the change."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder


def _changes(result: Any) -> dict[str, tuple[str, str | None]]:
    return {u["file_path"]: (u["change_type"], u["old_path"]) for u in result["units"]}


def test_a_no_prefix_patch_with_spaces_in_paths(repo: GitRepoBuilder, cli: CliRunner) -> None:
    """``git diff --no-prefix`` (or ``diff.noprefix``) of paths with spaces: refused as "not a
    valid diff" (its ``diff --git`` header was split at the last space)."""
    repo.write("my dir/a b.py", "a = 1\nb = 2\n")
    repo.write("run me.sh", "echo hi\n")
    repo.write("gone file.py", "x = 1\n")
    repo.write("old name.py", "def f():\n    return 1\n\n\nvalue = 2\n")
    repo.write("plain.py", "p = 1\n")
    repo.commit("base")
    repo.write("my dir/a b.py", "a = 1\nb = 3\n")
    (repo.root / "run me.sh").chmod(0o755)
    (repo.root / "gone file.py").unlink()
    repo.git("mv", "old name.py", "new name.py")
    repo.write("new name.py", "def f():\n    return 1\n\n\nvalue = 3\n")
    repo.write("new file é.py", "n = 1\n")
    repo.write("plain.py", "p = 2\n")
    repo.git("add", "-A")
    expected = _changes(cli("index", "--staged", "--json", repo.root).json())
    for dialect in (("diff", "--no-prefix"), ("-c", "diff.noprefix=true", "diff")):
        patch_file = repo.root.parent / "change.patch"
        patch_file.write_text(repo.git(*dialect, "--cached", "-M"))
        result = cli("index", "--patch", patch_file, "--json", repo.root)
        assert result.code == 0, result.err
        assert _changes(result.json()) == expected
    assert expected["new name.py"] == ("rename", "old name.py")
    assert expected["run me.sh"][0] == "modify"


def test_a_file_that_became_a_symlink_reads_as_with_commit(repo: GitRepoBuilder,
                                                           cli: CliRunner) -> None:
    """git patches a type change as a deletion and an addition of the path: read from the
    patch, the file was two units (deleted, then a new file) where --commit shows one."""
    repo.write("config.txt", "mode = fast\n")
    repo.write("real.txt", "mode = safe\n")
    repo.commit("base")
    (repo.root / "config.txt").unlink()
    (repo.root / "config.txt").symlink_to("real.txt")
    repo.commit("link")
    patch_file = repo.root.parent / "change.patch"
    patch_file.write_text(repo.git("diff", "HEAD^", "HEAD"))
    by_commit = cli("index", "--commit", "HEAD", "--json", repo.root).json()["units"]
    by_patch = cli("index", "--patch", patch_file, "--json", repo.root).json()["units"]
    assert [(u["file_path"], u["change_type"], u["tags"], u["metrics"]) for u in by_patch] == [
        (u["file_path"], u["change_type"], u["tags"], u["metrics"]) for u in by_commit]
    assert [u["change_type"] for u in by_patch] == ["modify"]


def test_git_diff_of_two_folders_or_with_other_prefixes_is_no_rename(
        repo: GitRepoBuilder, cli: CliRunner, tmp_path: Path) -> None:
    """'git diff --no-index v1 v2' names the copies a/v1/x and b/v2/x, '--src-prefix=old/'
    old/x and new/x, with no 'rename from' line: each file read as a rename of v1/x to v2/x
    (old/x to new/x); a file only in v2 stayed v2/n.py."""
    repo.write("pkg/f.py", "a = 1\nb = 2\n")
    repo.write("gone.py", "g = 1\n")
    repo.commit("base")
    repo.write("pkg/f.py", "a = 1\nb = 3\n")
    repo.write("pkg/n.py", "n = 1\n")
    (repo.root / "gone.py").unlink()
    repo.git("add", "-A")
    expected = _changes(cli("index", "--json", repo.root).json())
    assert expected == {"pkg/f.py": ("modify", None), "pkg/n.py": ("add", None),
                        "gone.py": ("delete", None)}
    prefixed = repo.git("diff", "--cached", "--src-prefix=old/", "--dst-prefix=new/")
    for tree, files in (("v1", {"pkg/f.py": "a = 1\nb = 2\n", "gone.py": "g = 1\n"}),
                        ("v2", {"pkg/f.py": "a = 1\nb = 3\n", "pkg/n.py": "n = 1\n"})):
        for name, content in files.items():
            (tmp_path / tree / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / tree / name).write_text(content)
    no_index = subprocess.run(["git", "diff", "--no-index", "v1", "v2"], cwd=tmp_path,
                              capture_output=True, text=True, check=False).stdout
    for patch in (prefixed, no_index):
        patch_file = tmp_path / "change.patch"
        patch_file.write_text(patch)
        result = cli("index", "--patch", patch_file, "--json", repo.root)
        assert result.code == 0, result.err
        assert _changes(result.json()) == expected, patch


def test_a_recursive_diff_without_n_is_refused_not_read_short(cli: CliRunner,
                                                               tmp_path: Path) -> None:
    """``diff -ru old new`` writes a file on one side only as "Only in new: b.py", not as a
    diff: read as it was, the patch silently left b.py out of the review."""
    for side, text in (("old", "a = 1\n"), ("new", "a = 2\n")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "a.py").write_text(text)
    (tmp_path / "new" / "b.py").write_text("b = 1\n")
    for flags, name in (("-ru", "r.patch"), ("-ruN", "rn.patch")):
        made = subprocess.run(["diff", flags, "old", "new"], cwd=tmp_path, capture_output=True)
        (tmp_path / name).write_bytes(made.stdout)
    short = cli("index", "--patch", tmp_path / "r.patch")
    assert short.code == 2
    assert "leaves out 1 file(s) that are on one side only ('Only in new: b.py'" in short.err
    assert "diff -ruN" in short.err and "Traceback" not in short.err
    whole = cli("index", "--json", "--patch", tmp_path / "rn.patch")
    assert whole.code == 0, whole.err
    assert _changes(whole.json()) == {"a.py": ("modify", None), "b.py": ("add", None)}
