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


def test_a_handlers_unit_text_is_what_reading_every_line_gives() -> None:
    """``RuleHandler.unit_text`` builds the rows without keys when the unit has no prose and
    no import line, and gives the scopes' decorators alone when no changed line holds the
    annotation prefix: random units of every handler read the rows (prose and import flags
    looked up line by line) and the annotations (``annotation_lines``) of the long way."""
    import random

    from reviewtui.git.model import DiffLine, Hunk
    from reviewtui.rules import RuleEngine
    from reviewtui.rules.packs import load_rule_pack
    from reviewtui.units.model import Scope, review_unit

    engine = RuleEngine(load_rule_pack(None).pack)
    texts = ["x = 1", "@app.route('/')", "  @decorated", "a @ b", "//go:generate x",
             "#[test]", "  #![allow(x)]", "[[nodiscard]] int f();", "[Obsolete]", "[1, 2]",
             "/** @IsGranted('x') */", "# comment", "", "import os", "   \t", "\u00e9@"]
    rng = random.Random(24)
    for _ in range(1500):
        language = rng.choice(["python", "go", "c", "rust", "csharp", "php", "kotlin",
                               "javascript", None])
        handler = engine.handler(language)
        lines = []
        for number in range(1, rng.randint(1, 7)):
            kind = rng.choice("+- ")
            lines.append(DiffLine(kind, rng.choice(texts), number if kind != "+" else None,
                                  number if kind != "-" else None))
        keys = [(ln.kind, (ln.new_no if ln.kind == "+" else ln.old_no) or 0)
                for ln in lines if ln.kind != " "]
        prose = frozenset(k for k in keys if rng.random() < 0.2)
        imports = frozenset(k for k in keys if rng.random() < 0.2)
        scopes = tuple(Scope("function", "f", "f", rng.choice(["defines", "outer"]),
                             tuple(rng.sample(["@cached", "#[inline]"], rng.randint(0, 2))),
                             "def f()") for _ in range(rng.randint(0, 2)))
        unit = review_unit("u", "f.x", None, language, "modify", (),
                           (Hunk(1, 9, 1, 9, "", tuple(lines)),), 0, 0, "", "", "", (), (),
                           scopes, True, prose, imports, None)
        text = handler.unit_text(unit)
        rows = [(ln.kind, ln.text, key in prose, key in imports)
                for ln, key in zip([ln for ln in lines if ln.kind != " "], keys, strict=True)]
        assert text._rows == rows, (language, lines)
        assert text.annotations == "\n".join(handler.annotation_lines(unit)), (language, lines)


def test_the_changed_lines_hold_what_the_added_and_the_removed_hold() -> None:
    """With no needle holding a line break, the needles of the changed lines are put together
    from those of the added and the removed lines: random rows (case folds outside ASCII,
    prose, imports, strings) find what a scan of the changed lines' own text finds; with a
    needle across a line break the changed lines are scanned themselves."""
    import random

    words = ["token", "Token", "TOKEN", "os", "doc", "old", "\u0130d", "\u212aey", "key",
             "'x'", "# c", "a", "b", "\u017fecret", "secret", " ", "\u03a3", "\u00e9"]
    rng = random.Random(24)
    for patterns in ([r"token|os|doc", r"(?i)key|secret|id\b", r"(?i)\u03c3"],
                     [r"a\nb", r"(?i)token"]):
        regexes = [FastRegex([pattern]) for pattern in patterns]
        for regex in regexes:
            regex.prefilter_now()
        scan = needle_scan(regexes)
        assert scan is not None
        assert scan.by_line == (r"a\nb" not in patterns)
        for _ in range(400):
            rows = [(rng.choice("+-"), " ".join(rng.choice(words)
                                                for _ in range(rng.randint(0, 3))),
                     rng.random() < 0.2, rng.random() < 0.2) for _ in range(rng.randint(0, 5))]
            for reads in ("code", "all", "words"):
                text = UnitText(rows, "", (), scan)
                order = [("added", reads), ("changed", reads)] if rng.random() < 0.5 else [
                    ("changed", reads)]
                for on, view in order:
                    found = text.found(on, view)
                    assert found is not None
                    alone = scan.found(_built_alone(rows, on, view))
                    assert (found.plain, found.folded) == (alone.plain, alone.folded), (
                        rows, on, view)
