"""Reach (files that use a changed definition's name): the one-pass scan many names take gives
the files ``git grep`` gives, on the awkward cases of a real tree (words glued to digits or
underscores, a dotted use, one blob at two paths, a binary file, a path with a space and an
accent)."""

from __future__ import annotations

import pytest

from reviewtui.context.search import reach
from reviewtui.context.search.reach import ReachCounter
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder

# Names like a large release's: more than one grep takes, so the scan answers.
MANY = [f"helper_{i:03d}" for i in range(reach._NAMES_PER_GREP + 20)]


def _tree(repo: GitRepoBuilder) -> None:
    repo.write("pkg/core.py", "def dec(x):\n    return helper_001(x) + helper_002(x)\n")
    repo.write("pkg/uses.py", "from pkg.core import dec\n\nvalue = dec(1)  # dec\n")
    repo.write("pkg/copy.py", "from pkg.core import dec\n\nvalue = dec(1)  # dec\n")  # same blob
    repo.write("pkg/glued.py", "x2dec = 1\ndec_x = 2\nhelper_0010 = 3  # 2dec\n")  # no word
    repo.write("pkg/dotted.py", "import pkg.core as c\nc.dec(2)\n")  # a whole word
    repo.write("docs/a file \u00e9.md", "Call `helper_003` first.\n")
    repo.write("pkg/blob.bin", b"\x00\x01dec helper_001\x00")  # binary: not searched
    repo.commit("base")
    repo.write("pkg/core.py", "def dec(x):\n    return helper_001(x) - helper_002(x)\n")
    repo.commit("change")


@pytest.mark.parametrize(("extra", "batch_bytes"), [(0, None), (len(MANY), None),
                                                   (len(MANY), 64)])
def test_the_scan_finds_what_git_grep_finds(repo: GitRepoBuilder, extra: int,
                                           batch_bytes: int | None,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``batch_bytes``: the tree's files read a few at a time (many ``cat-file`` calls)."""
    if batch_bytes is not None:
        monkeypatch.setattr(reach, "_BATCH_BYTES", batch_bytes)
    _tree(repo)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"))
    assert loaded.repo is not None
    names = ["dec", "helper_001", "helper_003", *MANY[:extra]]
    by_scan = ReachCounter(loaded.repo, loaded.change_set, None).counts(names)
    monkeypatch.setattr(reach, "_NAMES_PER_GREP", 10_000)  # every name in one grep
    by_grep = ReachCounter(loaded.repo, loaded.change_set, None).counts(names)
    assert by_scan == by_grep
    assert by_scan["dec"] == {"pkg/core.py", "pkg/uses.py", "pkg/copy.py", "pkg/dotted.py"}
    assert by_scan["helper_003"] == {"docs/a file \u00e9.md"}
    assert by_scan["helper_001"] == {"pkg/core.py"}
