"""A file git calls binary because of a ``-diff`` / ``binary`` gitattribute is marked so (on
real repositories): one ``git check-attr`` call for all of git's binary files, none when git
called none binary, and never for a file binary by its content."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from reviewtui.git import ChangeSelector, SelectorMode, collect_change, open_repository
from reviewtui.git.attributes import parse_check_attr
from reviewtui.git.runner import GitRepo
from tests.conftest import GitRepoBuilder


def _count_check_attr(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    calls: list[tuple[str, ...]] = []
    real = GitRepo.run_status

    def counting(self: GitRepo, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        if args[:1] == ("check-attr",):
            calls.append(args)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(GitRepo, "run_status", counting)
    return calls


def test_binary_by_attribute_in_one_call(repo: GitRepoBuilder,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write(".gitattributes", "*.py -diff\ngen/** binary\n")
    for name in ("a.py", "b.py", "gen/c.txt", "old.py"):
        repo.write(name, "x = 1\n")
    repo.write("blob.bin", b"\0\1")
    repo.write("plain.txt", "x\n")
    repo.commit("base")
    for name in ("a.py", "b.py", "gen/c.txt", "plain.txt"):
        repo.write(name, "x = 2\n")
    repo.write("blob.bin", b"\0\2")
    (repo.root / "old.py").unlink()  # a deletion: its old path's attribute counts
    calls = _count_check_attr(monkeypatch)
    change = collect_change(open_repository(repo.root), ChangeSelector(SelectorMode.ALL))
    files = {f.path: f for f in change.files}
    assert len(calls) == 1
    marked = {path for path, f in files.items() if f.binary_by_attribute}
    assert marked == {"a.py", "b.py", "gen/c.txt", "old.py"}
    assert files["blob.bin"].is_binary and not files["blob.bin"].binary_by_attribute
    assert not files["plain.txt"].is_binary


def test_no_call_without_a_binary_file(repo: GitRepoBuilder,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write(".gitattributes", "*.txt -diff\n")
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    repo.write("a.py", "x = 2\n")
    calls = _count_check_attr(monkeypatch)
    change = collect_change(open_repository(repo.root), ChangeSelector(SelectorMode.ALL))
    assert calls == []
    assert not any(f.is_binary or f.binary_by_attribute for f in change.files)


def test_parse_check_attr_output() -> None:
    out = b"a.py\0diff\0unset\0dir/b c.txt\0diff\0unspecified\0d.bin\0diff\0set\0"
    assert parse_check_attr(out) == {"a.py": "unset", "dir/b c.txt": "unspecified",
                                     "d.bin": "set"}
    assert parse_check_attr(b"") == {}


def test_a_diff_driver_configured_binary_marks_its_files(repo: GitRepoBuilder) -> None:
    """``*.py diff=gen`` with ``diff.gen.binary = true``: git shows the file as binary as with
    ``-diff``, but it was tagged binary alone, as if its content were not text."""
    repo.write(".gitattributes", "*.py diff=gen\n*.txt diff=prose\n")
    repo.write("a.py", "x = 1\n")
    repo.write("b.txt", "x\n")
    repo.commit("base")
    repo.git("config", "diff.gen.binary", "true")
    repo.git("config", "diff.prose.binary", "false")
    repo.write("a.py", "x = 2\n")
    repo.write("b.txt", "y\n")
    change = collect_change(open_repository(repo.root), ChangeSelector(SelectorMode.ALL))
    files = {f.path: f for f in change.files}
    assert files["a.py"].is_binary and files["a.py"].binary_by_attribute
    assert not files["b.txt"].is_binary and not files["b.txt"].binary_by_attribute
