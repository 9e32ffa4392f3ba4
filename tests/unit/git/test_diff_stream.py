"""Parsing git's output while it is written gives the whole-output answer, however it arrives."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reviewtui.errors import GitCommandError
from reviewtui.git.diff_parse import parse_raw_patch, parse_raw_patch_stream
from reviewtui.git.runner import DIFF_OPTIONS, open_repository
from tests.conftest import GitRepoBuilder


def _varied_change(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "".join(f"def f{i}():\n    return {i}\n\n" for i in range(50)))
    repo.write("moved.txt", "".join(f"line {i}\n" for i in range(40)))
    repo.write("bin.dat", b"\x00\x01\x02\x03")
    repo.write("run.sh", "echo hi\n", mode=0o644)
    repo.write("gone.md", "# bye\n")
    repo.commit("base")
    repo.write("a.py", "".join(f"def f{i}():\n    return {i + (i % 10 == 0)}\n\n"
                               for i in range(50)))
    repo.git("mv", "moved.txt", "diff --git a weird name.txt")
    repo.write("diff --git a weird name.txt", "".join(f"line {i}\n" for i in range(41)))
    repo.write("bin.dat", b"\x00\x09\x09")
    (repo.root / "run.sh").chmod(0o755)
    repo.git("rm", "-q", "gone.md")
    repo.write("new file.py", "+x = '--- a/b'\n-y = 1\n")
    repo.git("add", "-A")


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start:start + size]


def test_any_chunking_parses_like_the_whole_output(repo: GitRepoBuilder) -> None:
    _varied_change(repo)
    git_repo = open_repository(repo.root)
    data = git_repo.run("diff", *DIFF_OPTIONS, "--raw", "-z", "-p", "--full-index",
                        "--no-abbrev", "--cached", "HEAD", "--")
    whole = parse_raw_patch(data)
    assert len(whole) == 6 and sum(len(c.hunks) for c in whole) >= 8
    for size in (1, 7, 64, 1000, len(data)):
        assert parse_raw_patch_stream(_chunks(data, size)) == whole
    streamed = parse_raw_patch_stream(git_repo.stream(
        "diff", *DIFF_OPTIONS, "--raw", "-z", "-p", "--full-index", "--no-abbrev", "--cached",
        "HEAD", "--"))
    assert streamed == whole
    assert parse_raw_patch_stream(iter(())) == []


def test_output_that_does_not_add_up_is_an_error(repo: GitRepoBuilder) -> None:
    _varied_change(repo)
    git_repo = open_repository(repo.root)
    data = git_repo.run("diff", *DIFF_OPTIONS, "--raw", "-z", "-p", "--full-index",
                        "--no-abbrev", "--cached", "HEAD", "--")
    last = data.rindex(b"\ndiff --git ")
    with pytest.raises(GitCommandError, match="inconsistent"):
        parse_raw_patch_stream(_chunks(data[:last + 1], 50))


def test_a_failing_stream_raises_one_line(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    git_repo = open_repository(repo.root)
    with pytest.raises(GitCommandError) as caught:
        list(git_repo.stream("diff", "no-such-ref", "--"))
    assert str(caught.value).startswith("git diff failed:") and "\n" not in str(caught.value)
