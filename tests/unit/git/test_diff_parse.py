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
    assert (change.old_path, change.new_path) == ("app.py", "app.py")
    assert change.status.value == "modify"
    assert change.hunks[0].new_start == 1 and change.hunks[0].added == 1


def test_a_plain_diff_of_two_copies_is_no_rename() -> None:
    """``diff -u app.py.orig app.py`` compares two copies of one file: a plain diff has no
    renames, the file is the new name (it read as a rename of ``app.py.orig``)."""
    patch = (b"--- app.py.orig\t2024-01-01 00:00:00\n+++ app.py\t2024-01-02 00:00:00\n"
             b"@@ -1 +1 @@\n-b = 2\n+b = 3\n")
    [change] = parse_patch(patch)
    assert (change.old_path, change.new_path, change.status.value) == ("app.py", "app.py",
                                                                       "modify")


def test_git_patch_with_rename_and_blob_ids() -> None:
    patch = (b"diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\n"
             b"rename to new.py\nindex 1111111..2222222 100644\n--- a/old.py\n+++ b/new.py\n"
             b"@@ -1 +1 @@\n-x = 1\n+x = 2\n")
    [change] = parse_patch(patch)
    assert (change.old_path, change.new_path) == ("old.py", "new.py")
    assert change.status.value == "rename"
    assert (change.old_blob, change.new_blob) == ("1111111", "2222222")


def test_git_patch_with_a_copy_is_a_copy_not_a_rename() -> None:
    """``git diff -C``: the source stays where it is; the patch read it as renamed away."""
    patch = (b"diff --git a/src.py b/dup.py\nsimilarity index 100%\ncopy from src.py\n"
             b"copy to dup.py\n")
    [change] = parse_patch(patch)
    assert (change.old_path, change.new_path) == ("src.py", "dup.py")
    assert change.status.value == "copy"


def test_a_patch_saved_with_crlf_reads_as_the_lf_patch() -> None:
    """A patch whose lines end in CRLF: a quoted path (a space and a tab before the line end)
    was refused ("Target without source"), a CRLF file's lines kept a carriage return."""
    lf = ('diff --git "a/un dir/\\303\\251.py" "b/un dir/\\303\\274.py"\n'
          "similarity index 60%\nrename from \"un dir/\\303\\251.py\"\n"
          "rename to \"un dir/\\303\\274.py\"\nindex 1111111..2222222 100644\n"
          '--- "a/un dir/\\303\\251.py"\t\n+++ "b/un dir/\\303\\274.py"\t\n'
          "@@ -1,2 +1,2 @@ def f():\n a = 1\n-b = 2\n+b = 3\n"
          "diff --git a/win.txt b/win.txt\nindex 3333333..4444444 100644\n--- a/win.txt\n"
          "+++ b/win.txt\n@@ -1,2 +1,2 @@\n x\r\n-y\r\n+z\r\n")
    crlf = lf.replace("\n", "\r\n")  # the CRLF file's lines end in CR CR LF
    assert parse_patch(crlf.encode()) == parse_patch(lf.encode())
    renamed, win = parse_patch(crlf.encode())
    assert (renamed.old_path, renamed.new_path) == ("un dir/é.py", "un dir/ü.py")
    assert [line.text for line in win.hunks[0].lines] == ["x", "y", "z"]


def test_a_git_patch_filling_or_emptying_a_file_changes_it() -> None:
    """A file emptied ("+0,0") read as deleted, an empty file filled ("-0,0") as added: git
    says so only with /dev/null and "new/deleted file mode"."""
    patch = (b"diff --git a/filled.txt b/filled.txt\nindex e69de29..d95f3ad 100644\n"
             b"--- a/filled.txt\n+++ b/filled.txt\n@@ -0,0 +1 @@\n+content\n"
             b"diff --git a/emptied.txt b/emptied.txt\nindex d95f3ad..e69de29 100644\n"
             b"--- a/emptied.txt\n+++ b/emptied.txt\n@@ -1 +0,0 @@\n-content\n"
             b"diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..d95f3ad\n"
             b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+content\n")
    filled, emptied, new = parse_patch(patch)
    assert (filled.status.value, filled.old_path, filled.new_path) == (
        "modify", "filled.txt", "filled.txt")
    assert (emptied.status.value, emptied.old_path, emptied.new_path) == (
        "modify", "emptied.txt", "emptied.txt")
    assert (new.status.value, new.old_path) == ("add", None)


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


def test_a_patch_tags_non_utf8_only_the_file_whose_lines_are_not_utf8() -> None:
    """One Latin-1 file in a patch is that file's matter: the other files keep their text and
    are not tagged, and the Latin-1 bytes read as replacement characters."""
    patch = (b"diff --git a/latin.py b/latin.py\n--- a/latin.py\n+++ b/latin.py\n"
             b"@@ -1 +1 @@\n-x = 'caf\xe9'\n+x = 'na\xefve'\n"
             b"diff --git a/ascii.py b/ascii.py\n--- a/ascii.py\n+++ b/ascii.py\n"
             b"@@ -1 +1 @@\n-y = 1\n+y = 2\n"
             b"diff --git a/utf8.py b/utf8.py\n--- a/utf8.py\n+++ b/utf8.py\n"
             b"@@ -1 +1 @@ def caf\xc3\xa9():\n-z = '\xc3\xa9'\n+z = '\xc3\xa8'\n")
    latin, ascii_file, utf8 = parse_patch(patch)
    assert (latin.path, latin.non_utf8) == ("latin.py", True)
    assert [line.text for line in latin.hunks[0].lines] == ["x = 'caf\ufffd'", "x = 'na\ufffdve'"]
    assert (ascii_file.path, ascii_file.non_utf8) == ("ascii.py", False)
    assert (utf8.path, utf8.non_utf8) == ("utf8.py", False)
    assert [line.text for line in utf8.hunks[0].lines] == ["z = '\xe9'", "z = '\xe8'"]
    assert utf8.hunks[0].section == "def caf\xe9():"


@pytest.mark.parametrize("patch", [
    b"\x1b[1mdiff --git a/a.py b/a.py\x1b[m\n\x1b[1mindex 1111111..2222222 100644\x1b[m\n"
    b"\x1b[1m--- a/a.py\x1b[m\n\x1b[1m+++ b/a.py\x1b[m\n\x1b[36m@@ -1 +1 @@\x1b[m\n"
    b"\x1b[31m-x = 1\x1b[m\n\x1b[32m+x = 2\x1b[m\n",
    b"diff --git a/a.py b/a.py\x1b[m\nindex 1111111..2222222 100644\x1b[m\n--- a/a.py\x1b[m\n"
    b"+++ b/a.py\x1b[m\n\x1b[36m@@ -1 +1 @@\x1b[m\n\x1b[31m-x = 1\x1b[m\n\x1b[32m+x\x1b[m\n"
    b"\\ No newline at end of file\x1b[m\n",
])
def test_a_coloured_diff_is_named_as_such(patch: bytes) -> None:
    """'git diff --color' saved to a file: 'contains no diff (expected ...)' or 'Unexpected
    marker', though the diff's lines were there, in colour."""
    with pytest.raises(PatchError, match="coloured diff") as caught:
        parse_patch(patch, name="x.patch")
    assert "--no-color" in (caught.value.hint or "")
