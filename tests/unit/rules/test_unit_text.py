"""``UnitText`` shares one text (and one needle scan) between views that pick the same rows.

Each view must read exactly what it would read built on its own: the rows of its kinds, without
prose unless it reads ``all``, masked and without imports when it reads ``words``.
"""

from __future__ import annotations

import itertools

import pytest

from reviewtui.rules.unit_text import UnitText
from reviewtui.units.fast_regex import FastRegex, needle_scan

Row = tuple[str, str, bool, bool]
ROWS: dict[str, list[Row]] = {
    "added only": [("+", "x = 'token'", False, False), ("+", "# why", True, False)],
    "removed only": [("-", "import os", False, True), ("-", "y = 1", False, False)],
    "both, no prose": [("+", "a = f('s')", False, False), ("-", "a = 1", False, False)],
    "both, prose removed": [("+", "b = 2", False, False), ("-", "# old", True, False)],
    "prose only": [("+", '"""doc"""', True, False)],
    "nothing": [],
}


def _built_alone(rows: list[Row], on: str, reads: str) -> str:
    """The view as one built for itself alone (the first view asked of a fresh text)."""
    return UnitText(rows, "", ()).lines(on, reads)


@pytest.mark.parametrize("name", ROWS)
def test_every_view_reads_what_it_reads_alone(name: str) -> None:
    rows = ROWS[name]
    views = list(itertools.product(("changed", "added", "removed"), ("code", "all", "words")))
    for order in (views, views[::-1]):
        text = UnitText(rows, "", ())
        for on, reads in order:
            assert text.lines(on, reads) == _built_alone(rows, on, reads), (name, on, reads)


@pytest.mark.parametrize("name", ROWS)
def test_views_of_one_text_share_what_the_scan_found(name: str) -> None:
    regex = FastRegex([r"token|os|doc|old"])
    scan = needle_scan([regex])
    assert scan is not None
    text = UnitText(ROWS[name], "", (), scan)
    for on, reads in itertools.product(("changed", "added", "removed"), ("code", "all")):
        found = text.found(on, reads)
        assert found is not None
        alone = scan.found(_built_alone(ROWS[name], on, reads))
        assert (found.plain, found.folded) == (alone.plain, alone.folded), (name, on, reads)
