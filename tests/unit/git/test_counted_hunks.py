"""The hunk-by-hunk reading of the usual patch gives what the line-by-line parser gives, and
leaves every other text to it."""

from __future__ import annotations

import random

import pytest

from reviewtui.errors import PatchError
from reviewtui.git.counted_hunks import counted_hunks
from reviewtui.git.diff_parse import HUNK_HEADER, parse_hunks
from reviewtui.git.model import Hunk

HEAD = "diff --git a/f.py b/f.py\nindex 1111111..2222222 100644\n--- a/f.py\n+++ b/f.py\n"


def _line_parser(text: str) -> tuple[list[Hunk], bool]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return parse_hunks(lines, 1, where="f.py")


def _plain(hunks: list[Hunk]) -> list[tuple[object, ...]]:
    """Hunks with their lines as plain tuples (and the lines' types), to compare."""
    return [(h.old_start, h.old_count, h.new_start, h.new_count, h.section,
             h.old_missing_newline, h.new_missing_newline, type(h.lines),
             [(type(ln), ln.kind, ln.text, ln.old_no, ln.new_no) for ln in h.lines])
            for h in hunks]


def _agrees(text: str) -> bool:
    """Whether the counted reading took ``text`` (else it left it to the line parser); either
    way, what it gives is the line parser's (and it never takes a text that parser rejects)."""
    counted = counted_hunks(text, HUNK_HEADER)
    try:
        expected = _line_parser(text)
    except PatchError:
        assert counted is None
        return False
    if counted is None:
        return False
    assert _plain(counted[0]) == _plain(expected[0])
    assert counted[1] == expected[1]
    return True


USUAL = [
    HEAD + "@@ -1,3 +1,4 @@ def f():\n a\n-b\n+B\n+C\n c\n",
    HEAD + "@@ -1 +1 @@\n-a\n+b\n@@ -10,2 +10,0 @@ class X:\n-x\n-y\n",
    HEAD + "@@ -0,0 +1,2 @@\n+new\n+file\n",
    HEAD + "@@ -1,2 +1,2 @@\n-a\r\n+a\n \r\n",  # carriage returns are not text
    HEAD + "@@ -1 +1 @@\n-a\n+b",  # no line break at the end of the output
    HEAD + "@@ -3,0 +4,0 @@\n@@ -5 +5 @@\n-a\n+b\n",  # a hunk of no lines
    "diff --git a/x b/x\nnew file mode 100644\nindex 0000000..e69de29\n",  # no hunks
    "diff --git a/x.png b/x.png\nindex 1..2 100644\nBinary files a/x.png and b/x.png differ\n",
    HEAD + "@@ -1 +1 @@ ünïcödé @@ ?\n-ä\n+\U0001f600 @@ -2 +2 @@\n",
]

UNUSUAL = [
    HEAD + "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
    HEAD + "@@ -1,2 +1,2 @@\n-a\n+a\n\\ No newline at end of file\n",
    HEAD + "@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n",  # a blank line for an empty context line
    HEAD + "@@ -1,2 +1,2 @@\n-a\n+b\n",  # fewer lines than counted: truncated
    HEAD + "@@ -1 +1 @@\n-a\n+b\n+c\n",  # more than counted: the last is outside the hunk
    HEAD + "@@ -1 +1 @@\n-a\n+b\nBinary files a and b differ\n",
    HEAD + "@@ -1 +1 @@\n-a\n+b\n@@x\n",  # a "@@" line that is no header
    HEAD + "@@ -1 +1 @@\n-a\n?b\n",
    HEAD + "@@ -1 +x @@\n-a\n+b\n",  # a malformed header
    HEAD + "@@broken\n@@ -1 +1 @@\n-a\n+b\n",
    HEAD + "@@ -1 +1 @@\n-a\n+b\n\n",  # a blank line at the end
    # a type change: two parts, the second's header inside the first's last hunk
    HEAD + "@@ -1 +0,0 @@\n-a\ndiff --git a/f.py b/f.py\nnew file mode 120000\n"
           "--- /dev/null\n+++ b/f.py\n@@ -0,0 +1 @@\n+target\n",
]


@pytest.mark.parametrize("text", USUAL)
def test_the_usual_patch_is_read_by_hunks(text: str) -> None:
    assert _agrees(text)


@pytest.mark.parametrize("text", UNUSUAL)
def test_any_other_text_is_left_to_the_line_parser(text: str) -> None:
    assert not _agrees(text)


def test_random_hunks_read_alike() -> None:
    rng = random.Random(7)
    pieces = ["+a", "-b", " c", "", "\\ No newline at end of file", "+@@ x", " \r", "-d\r",
              "@@ -1 +1 @@", "Binary files a and b differ", "+", "-", " "]
    taken = 0
    for _ in range(3000):
        parts = [HEAD.rstrip("\n")]
        for _ in range(rng.randint(0, 3)):
            body = [rng.choice(pieces[:3] if rng.random() < 0.8 else pieces)
                    for _ in range(rng.randint(0, 6))]
            old = sum(1 for line in body if line[:1] in ("-", " "))
            new = sum(1 for line in body if line[:1] in ("+", " "))
            old += rng.choice((0, 0, 0, 1, -1)) if old else 0
            parts.append(f"@@ -{rng.randint(0, 9)},{old} +{rng.randint(0, 9)},{new} @@ s")
            parts.extend(body)
        text = "\n".join(parts) + rng.choice(("\n", "", "\n\n"))
        taken += _agrees(text)
    assert taken > 1000  # the usual text was read by hunks, not always left to the parser
