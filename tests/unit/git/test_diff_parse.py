"""The diff parser reads hunks by their counts, not by guessing from line prefixes."""

from __future__ import annotations

import pytest

from reviewtui.errors import PatchError
from reviewtui.git.diff_parse import parse_hunks
from reviewtui.git.patch_file import parse_patch, unquote_path


def test_lines_that_look_like_headers_inside_a_hunk() -> None:
    lines = [
        "@@ -1,3 +1,3 @@ def f():",
        "--- not a header",
        "+++ not a header either",
        " diff --git a/x b/x",
        "-",
        "+",
    ]
    [hunk], binary = parse_hunks(lines, 0, where="x")
    assert not binary
    assert [(ln.kind, ln.text) for ln in hunk.lines] == [
        ("-", "-- not a header"), ("+", "++ not a header either"), (" ", "diff --git a/x b/x"),
        ("-", ""), ("+", ""),
    ]
    assert hunk.section == "def f():"


def test_truncated_hunk_is_an_error() -> None:
    with pytest.raises(PatchError, match="truncated"):
        parse_hunks(["@@ -1,3 +1,3 @@", " a"], 0, where="f.py")


def test_blank_context_lines_from_suppress_blank_empty() -> None:
    [hunk], _ = parse_hunks(["@@ -1,3 +1,3 @@", " a", "", "-b", "+c"], 0, where="f")
    assert [(ln.kind, ln.old_no, ln.new_no) for ln in hunk.lines] == [
        (" ", 1, 1), (" ", 2, 2), ("-", 3, None), ("+", None, 3)]


def test_unquote_git_paths() -> None:
    assert unquote_path('"a/\\303\\251t\\303\\251.txt"') == "a/été.txt"
    assert unquote_path('"tab\\there"') == "tab\there"
    assert unquote_path("plain/path.py") == "plain/path.py"


def test_plain_unified_diff_without_git_headers() -> None:
    patch = (b"--- old/app.py\t2024-01-01 00:00:00\n+++ new/app.py\t2024-01-02 00:00:00\n"
             b"@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n")
    [change] = parse_patch(patch)
    assert change.path == "app.py" or change.path == "new/app.py"
    assert change.hunks[0].new_start == 1 and change.hunks[0].added == 1


def test_git_patch_with_rename_and_blob_ids() -> None:
    patch = (b"diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\n"
             b"rename to new.py\nindex 1111111..2222222 100644\n--- a/old.py\n+++ b/new.py\n"
             b"@@ -1 +1 @@\n-x = 1\n+x = 2\n")
    [change] = parse_patch(patch)
    assert (change.old_path, change.new_path) == ("old.py", "new.py")
    assert change.status.value == "rename"
    assert (change.old_blob, change.new_blob) == ("1111111", "2222222")


def test_a_diff_line_built_by_its_slots_is_the_dataclass_itself() -> None:
    import dataclasses

    from reviewtui.git.model import DiffLine, diff_line

    for args in (("+", "x = 1", None, 3), ("-", "", 7, None), (" ", "\tcontext", 2, 2)):
        fast, slow = diff_line(*args), DiffLine(*args)
        assert type(fast) is DiffLine
        assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
        assert dataclasses.astuple(fast) == args
        with pytest.raises(dataclasses.FrozenInstanceError):
            fast.text = "changed"  # type: ignore[misc]
