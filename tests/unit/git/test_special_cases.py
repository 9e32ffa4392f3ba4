"""The awkward corners of real repositories, collected through the real pipeline."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reviewtui.errors import NoMergeBaseError, RepositoryError
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.units import ReviewUnit
from tests.conftest import GitRepoBuilder

ALL = ChangeSelector(SelectorMode.ALL)


def _load(repo: GitRepoBuilder, selector: ChangeSelector = ALL) -> LoadedChange:
    return load_change(repo.root, selector)


def _by_path(loaded: LoadedChange) -> dict[str, list[ReviewUnit]]:
    out: dict[str, list[ReviewUnit]] = {}
    for unit in loaded.units:
        out.setdefault(unit.file_path, []).append(unit)
    return out


def test_rename_with_edits(repo: GitRepoBuilder) -> None:
    body = "".join(f"line {i}\n" for i in range(30))
    repo.write("old_name.py", body)
    repo.commit("base")
    repo.git("mv", "old_name.py", "new_name.py")
    repo.write("new_name.py", body.replace("line 15\n", "line fifteen\n"))
    unit = _by_path(_load(repo))["new_name.py"][0]
    assert unit.change_type == "rename"
    assert unit.old_path == "old_name.py"
    assert "renamed" in unit.tags
    assert unit.new_compact == "L16" and unit.old_compact == "L16"


def test_pure_rename_is_one_unit_without_hunks(repo: GitRepoBuilder) -> None:
    repo.write("a.txt", "same\n")
    repo.commit("base")
    repo.git("mv", "a.txt", "b.txt")
    [unit] = _by_path(_load(repo))["b.txt"]
    assert unit.hunk_count == 0 and "renamed" in unit.tags


def test_deleted_file_keeps_old_content_as_context(repo: GitRepoBuilder) -> None:
    repo.write("gone.py", "def f():\n    return 1\n")
    repo.commit("base")
    repo.git("rm", "-q", "gone.py")
    loaded = _load(repo)
    [unit] = _by_path(loaded)["gone.py"]
    assert unit.change_type == "delete"
    assert {"deleted_file", "complete_function"} <= set(unit.tags)
    assert unit.old_compact == "L1-2" and unit.new_compact == ""
    change = next(c for c in loaded.change_set.files if c.path == "gone.py")
    assert loaded.reader.old(change) == b"def f():\n    return 1\n"


def test_binary_file_is_a_unit_without_hunks(repo: GitRepoBuilder) -> None:
    repo.write("img.png", b"\x89PNG\x00\x01\x02")
    repo.commit("base")
    repo.write("img.png", b"\x89PNG\x00\x03\x04")
    repo.write("new.bin", b"\x00\x00data")
    units = _by_path(_load(repo))
    assert units["img.png"][0].hunk_count == 0 and "binary" in units["img.png"][0].tags
    assert {"binary", "new_file", "untracked"} <= set(units["new.bin"][0].tags)


def test_mode_change_only(repo: GitRepoBuilder) -> None:
    repo.write("run.sh", "echo hi\n", mode=0o644)
    repo.commit("base")
    (repo.root / "run.sh").chmod(0o755)
    [unit] = _by_path(_load(repo))["run.sh"]
    assert "mode_change" in unit.tags and unit.hunk_count == 0


def test_symlink_change(repo: GitRepoBuilder) -> None:
    repo.write("target_a.txt", "a\n")
    repo.write("target_b.txt", "b\n")
    (repo.root / "link").symlink_to("target_a.txt")
    repo.commit("base")
    (repo.root / "link").unlink()
    (repo.root / "link").symlink_to("target_b.txt")
    (repo.root / "new_link").symlink_to("target_a.txt")
    units = _by_path(_load(repo))
    assert "symlink" in units["link"][0].tags
    assert units["link"][0].new_compact == "L1"
    assert {"symlink", "new_file"} <= set(units["new_link"][0].tags)


def test_submodule_pointer_change(make_repo: type[GitRepoBuilder]) -> None:
    sub = make_repo("sub")
    sub.write("lib.txt", "v1\n")
    sub.commit("v1")
    main = make_repo("main")
    main.write("readme.txt", "x\n")
    main.commit("base")
    main.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.root),
             "vendor/sub")
    main.commit("add submodule")
    sub.write("lib.txt", "v2\n")
    new_sha = sub.commit("v2")
    subprocess.run(["git", "pull", "-q", "origin", "main"], cwd=main.root / "vendor/sub",
                   check=True, capture_output=True)
    units = _by_path(_load(main))
    [unit] = units["vendor/sub"]
    assert "submodule" in unit.tags
    assert any(new_sha in line.text for h in unit.hunks for line in h.lines)


def test_an_untracked_repository_inside_is_listed_as_a_submodule(
        make_repo: type[GitRepoBuilder]) -> None:
    # git lists the folder ("?? vendor/lib/"), not its files: it was dropped, and the change
    # looked as if nothing was there. It is what `git add` would record: a gitlink.
    main = make_repo("main")
    main.write("readme.txt", "x\n")
    main.commit("base")
    inner = make_repo("main/vendor/lib")
    inner.write("lib.py", "VALUE = 1\n")
    first = inner.commit("v1")
    make_repo("main/empty")  # a repository with no commit yet: listed, no line
    units = _by_path(_load(main))
    [unit] = units["vendor/lib"]
    assert {"submodule", "untracked", "new_file"} <= set(unit.tags)
    assert [line.text for h in unit.hunks for line in h.lines] == [f"Subproject commit {first}"]
    [empty] = units["empty"]
    assert "submodule" in empty.tags and not empty.hunks
    assert "vendor/lib/lib.py" not in units
    # its next commit is another content (the cache must not answer with the first)
    inner.write("lib.py", "VALUE = 2\n")
    second = inner.commit("v2")
    [again] = _by_path(_load(main))["vendor/lib"]
    assert [line.text for h in again.hunks for line in h.lines] == [
        f"Subproject commit {second}"]


def test_no_newline_at_end_of_file(repo: GitRepoBuilder) -> None:
    repo.write("n.txt", "a\nb")
    repo.commit("base")
    repo.write("n.txt", "a\nc")
    [unit] = _by_path(_load(repo))["n.txt"]
    assert unit.hunks[0].new_missing_newline and unit.hunks[0].old_missing_newline
    assert [line.text for line in unit.hunks[0].lines] == ["a", "b", "c"]


def test_non_utf8_content_is_flagged_not_fatal(repo: GitRepoBuilder) -> None:
    repo.write("latin.py", "x = 'caf\xe9'\n".encode("latin-1"))
    repo.commit("base")
    repo.write("latin.py", "x = 'na\xefve'\n".encode("latin-1"))
    repo.write("fresh.txt", b"\xff\xfe broken\n")
    units = _by_path(_load(repo))
    assert "non_utf8" in units["latin.py"][0].tags
    assert "\ufffd" in units["latin.py"][0].hunks[0].lines[1].text
    assert "non_utf8" in units["fresh.txt"][0].tags


def test_a_latin1_change_is_not_only_whitespace(repo: GitRepoBuilder) -> None:
    """"rémi" -> "rèmi" in Latin-1: both sides read "r\ufffdmi", yet the bytes differ, so the
    unit is a real change kept for review; a layout change beside a Latin-1 line still is
    only whitespace."""
    head = "# -*- coding: latin-1 -*-\ndef allowed(user):\n"
    repo.write("auth.py", (head + '    return user == "r\xe9mi"\n').encode("latin-1"))
    repo.write("names.py", ("A = 'r\xe9mi'\n" + "\n" * 20 + "B = [1,2]\n").encode("latin-1"))
    repo.commit("base")
    repo.write("auth.py", (head + '    return user == "r\xe8mi"\n').encode("latin-1"))
    repo.write("names.py", ("A = 'r\xe9mi'\n" + "\n" * 20 + "B = [1, 2]\n").encode("latin-1"))
    units = _by_path(_load(repo))
    [unit] = units["auth.py"]
    assert "non_utf8" in unit.tags and "only_whitespace" not in unit.tags
    [layout] = units["names.py"]
    assert "only_whitespace" in layout.tags


def test_an_untracked_file_named_in_latin1_is_listed_like_a_staged_one(
        repo: GitRepoBuilder) -> None:
    """A name that is not UTF-8 (b"caf\\xe9.py") is shown with a replacement character but
    read by its own bytes: listed, with its lines and structure, as staging it would give."""
    repo.write("seed.py", "X = 1\n")
    repo.commit("base")
    name = os.fsdecode(b"caf\xe9.py")
    (repo.root / name).write_text("def a():\n    return 1\n")
    untracked = _by_path(_load(repo))
    [unit] = untracked["caf\ufffd.py"]
    assert {"new_file", "untracked", "complete_function"} <= set(unit.tags)
    assert "non_utf8" not in unit.tags  # the content is ASCII; only the name is odd
    assert unit.new_compact == "L1-2"
    assert [line.text for line in unit.hunks[0].lines] == ["def a():", "    return 1"]
    repo.git("add", "-A")
    [staged] = _by_path(_load(repo))["caf\ufffd.py"]
    assert set(staged.tags) == set(unit.tags) - {"untracked"}
    assert staged.hunks == unit.hunks


def test_non_utf8_is_about_the_content_not_the_name(repo: GitRepoBuilder) -> None:
    """``non_utf8`` says the file's bytes do not decode: a Latin-1 name over ASCII content is
    not tagged (untracked, staged or committed), a Latin-1 name over Latin-1 content is, and
    so is Latin-1 content under an ASCII name; a binary file under such a name never is."""
    repo.write("seed.py", "X = 1\n")
    repo.commit("base")
    ascii_name = os.fsdecode(b"caf\xe9.py")
    latin_name = os.fsdecode(b"na\xefve.py")
    blob_name = os.fsdecode(b"d\xe9j\xe0.bin")
    (repo.root / ascii_name).write_text("def a():\n    return 1\n")
    (repo.root / latin_name).write_bytes("S = 'r\xe9mi'\n".encode("latin-1"))
    (repo.root / blob_name).write_bytes(b"\0\1\2")
    repo.write("plain.py", "S = 'r\xe9mi'\n".encode("latin-1"))

    for stage in ("untracked", "staged", "committed"):
        selector = ALL
        if stage == "staged":
            repo.git("add", "-A")
        elif stage == "committed":
            repo.commit("add them")
            selector = ChangeSelector(SelectorMode.COMMIT, "HEAD")
        found = {path: set(units[0].tags)
                 for path, units in _by_path(_load(repo, selector)).items()}
        assert "non_utf8" not in found["caf\ufffd.py"], stage
        assert "non_utf8" in found["na\ufffdve.py"], stage
        assert "non_utf8" in found["plain.py"], stage
        assert "binary" in found["d\ufffdj\ufffd.bin"], stage
        assert "non_utf8" not in found["d\ufffdj\ufffd.bin"], stage


@pytest.mark.parametrize("name", ["dir with space/file name.py", "ünïcödé/文件.py",
                                  'quo"te.py', "tab\tname.py"])
def test_unusual_paths(repo: GitRepoBuilder, name: str) -> None:
    repo.write(name, "a = 1\n")
    repo.commit("base")
    repo.write(name, "a = 2\n")
    units = _by_path(_load(repo))
    assert list(units) == [name]
    assert units[name][0].new_compact == "L1"


def test_crlf_files(repo: GitRepoBuilder) -> None:
    repo.write("win.py", b"def f():\r\n    return 1\r\n")
    repo.commit("base")
    repo.write("win.py", b"def f():\r\n    return 2\r\n")
    [unit] = _by_path(_load(repo))["win.py"]
    assert [ln.text for ln in unit.hunks[0].lines if ln.kind == "+"] == ["    return 2"]
    assert "in_single_function" in unit.tags


def test_crlf_to_lf_is_whitespace_only(repo: GitRepoBuilder) -> None:
    repo.write("eol.txt", b"a\r\nb\r\n")
    repo.commit("base")
    repo.write("eol.txt", b"a\nb\n")
    [unit] = _by_path(_load(repo))["eol.txt"]
    assert "only_whitespace" in unit.tags


def test_detached_head(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "x = 1\n")
    first = repo.commit("one")
    repo.write("a.py", "x = 2\n")
    repo.commit("two")
    repo.git("checkout", "-q", "--detach", first)
    repo.write("a.py", "x = 3\n")
    assert [u.file_path for u in _load(repo).units] == ["a.py"]
    repo.git("checkout", "-q", "--", "a.py")
    loaded = load_change(repo.root, ChangeSelector())
    assert loaded.change_set.mode == "commit"  # HEAD is on main's history: review HEAD itself


def test_shallow_clone_without_merge_base(make_repo: type[GitRepoBuilder],
                                          tmp_path: Path) -> None:
    origin = make_repo("origin")
    for i in range(3):
        origin.write("a.py", f"x = {i}\n")
        origin.commit(f"c{i}")
    origin.git("checkout", "-q", "-b", "feature")
    origin.write("b.py", "y = 1\n")
    origin.commit("feature")
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature",
                    "--no-single-branch", f"file://{origin.root}", str(clone)], check=True,
                   capture_output=True)
    subprocess.run(["git", "fetch", "-q", "--depth", "1", "origin", "main:main"], cwd=clone,
                   check=True, capture_output=True)
    with pytest.raises(NoMergeBaseError, match="shallow"):
        load_change(clone, ChangeSelector(SelectorMode.BASE, ref="main"))
    with pytest.raises(RepositoryError, match="shallow"):
        load_change(clone, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"))


def test_unrelated_histories_have_no_merge_base(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("main root")
    repo.git("checkout", "-q", "--orphan", "other")
    repo.git("rm", "-q", "-rf", ".")
    repo.write("b.py", "y = 1\n")
    repo.commit("other root")
    with pytest.raises(NoMergeBaseError, match="no merge base between main and HEAD"):
        load_change(repo.root, ChangeSelector(SelectorMode.BASE, ref="main"))
    repo.git("checkout", "-q", "main")  # a range names both of its own ends, not HEAD
    with pytest.raises(NoMergeBaseError, match="no merge base between main and other "):
        load_change(repo.root, ChangeSelector(SelectorMode.RANGE, ref="main...other"))


def test_hostile_user_git_config_does_not_change_the_result(
    repo: GitRepoBuilder, isolated_git: Path
) -> None:
    repo.write("dir/a.py", "".join(f"v{i} = {i}\n" for i in range(40)))
    repo.write("dir/b c.py", "q = 1\n")
    repo.commit("base")
    repo.write("dir/a.py", "".join(f"v{i} = {i * 2 if i in (3, 30) else i}\n" for i in range(40)))
    repo.write("dir/b c.py", "q = 2\n")
    before = [(u.unit_id, u.new_compact) for u in _load(repo).units]
    with isolated_git.open("a") as config:
        config.write(
            "[color]\n\tui = always\n\tdiff = always\n"
            "[diff]\n\tnoprefix = true\n\tmnemonicPrefix = true\n\texternal = /bin/false\n"
            "\trelative = true\n\tcontext = 12\n\tinterHunkContext = 50\n"
            "\tsuppressBlankEmpty = true\n\tsubmodule = log\n\torderFile = /nonexistent\n"
            "[core]\n\tquotePath = true\n"
        )
    after = [(u.unit_id, u.new_compact) for u in _load(repo).units]
    assert after == before
    assert len(before) == 3  # two hunks far apart in a.py, one in "b c.py"
