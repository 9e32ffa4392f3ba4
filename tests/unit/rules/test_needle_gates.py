"""``NeedleGates`` leaves closed only rules that ``search_lines`` would find nothing for."""

from __future__ import annotations

import itertools

from reviewtui.models import ContextLevel
from reviewtui.rules.compiled import Rule, Stage
from reviewtui.rules.confidence import RiskLevel
from reviewtui.rules.needle_gates import NeedleGates
from reviewtui.rules.rule_matches import search_lines
from reviewtui.rules.unit_text import UnitText
from reviewtui.units.fast_regex import FastRegex, needle_scan


def _rule(on: str, reads: str) -> Rule:
    return Rule(stage=Stage.KEYWORD, rule_id=f"k.{on}.{reads}", label="k", risk=RiskLevel.HIGH,
                level=ContextLevel.FILE_CONTEXT, requests=(), unless=frozenset(),
                language_specific=False, on=on, reads=reads)


PATTERNS = [r"\beval\(", r"(?i)\bpassword\b", r"a\nb", r"\w+_KEY", r"os\.system|subprocess"]
ROWS = [
    [("+", "x = eval(y)", False, False)],
    [("-", "x = eval(y)", False, False), ("+", "x = 1", False, False)],
    [("+", "# PASSWORD here", True, False), ("+", "y = 2", False, False)],
    [("+", "a", False, False), ("+", "b", False, False)],  # a needle across lines
    [("-", "SECRET_KEY = 1", False, False)],
    [("+", "os.system(cmd)", False, False), ("-", "subprocess.run()", False, False)],
    [],
]


def test_a_closed_rule_is_one_that_finds_nothing() -> None:
    regexes = [FastRegex([pattern]) for pattern in PATTERNS]
    for regex in regexes:
        regex.prefilter_now()
    outsider = FastRegex([r"\beval\("])  # not in the scan: always asked
    scan = needle_scan(regexes)
    assert scan is not None
    rules = [(regex, _rule(on, reads)) for regex, on, reads in itertools.product(
        regexes, ("changed", "added", "removed"), ("code", "all"))]
    rules += [(outsider, _rule("changed", "code")), (None, _rule("changed", "code"))]
    gates = NeedleGates(rules, scan)
    closed = 0
    for rows in ROWS:
        text = UnitText(rows, "", (), scan)
        opened = gates.open(text)
        for index, (regex, rule) in enumerate(rules):
            if regex is None or opened >> index & 1:
                continue
            closed += 1
            assert search_lines(regex, text, rule) is None, (rows, regex.parts[0][0], rule)
        assert opened >> (len(rules) - 1) & 1 and opened >> (len(rules) - 2) & 1
        assert UnitText(rows, "", ()).found("changed") is None  # no scan: every rule asked
    assert gates.open(UnitText(ROWS[0], "", ())) == gates.every
    assert closed > len(rules) * len(ROWS) // 2


def test_set_bits_name_the_open_rules_in_order() -> None:
    """``set_bits`` gives the rules a gate left open as asking each rule's bit in turn did."""
    import random

    from reviewtui.rules.needle_gates import set_bits

    rng = random.Random(24)
    for size in [0, 1, 2, 63, 64, 65, 200]:
        for _ in range(50):
            bits = rng.getrandbits(size) if size else 0
            assert list(set_bits(bits)) == [i for i in range(size) if bits >> i & 1]
            every = -1 & ((1 << size) - 1)  # an ungated ask: all of them
            assert list(set_bits(every)) == list(range(size))
