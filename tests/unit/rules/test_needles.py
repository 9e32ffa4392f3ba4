"""The literal prefilter of rule regexes (``fast_regex``) only ever skips hopeless searches.

A ``FastRegex`` whose prefilter is on must find exactly what each of its patterns, searched one
by one with ``re``, finds: the same first pattern, the same match. The inputs are the ones a
prefilter could get wrong: overlapping patterns, case flags (inline, global, scoped), Unicode
case folding (the Kelvin sign, the long s, dotted capital I), multi-line anchors, alternations
with optional branches, repeats that may be empty, and the leading word boundary ``FastRegex``
checks by hand.
"""

from __future__ import annotations

import re
import string

import pytest

from reviewtui.rules.compiled import WordRule
from reviewtui.units.fast_regex import (
    ASCII_FOLDS,
    PREFILTER_AFTER,
    FastRegex,
    lowered,
    needle_scan,
    needles,
)

PATTERNS = [
    r"\bDoS\b",
    r"(?i)(\bdenial[ -]of[ -]service\b|\bDoS\b|\bCVE-\d{4}-\d+|\bGHSA-|\bvulnerab\w*)",
    r"(?i)kelvin|strasse",
    r"^\s*(try\s*[:{]|except\b|raise\b)",
    r"\b(cursor|conn)\.(execute|executemany)\s*\(",
    r"\b\w*sql\w*\s*%\s*[(\w]",
    r"(?i:secret)_key",
    r"ab?c",
    r"x(?:yz)*w",
    r"(?:foo)+bar",
    r"(a|)bc",
    r"colou?r",
    r"ab(cdef)?g",
    r"\bpickle\.(loads?|Unpickler)\b",
    r"[A-Z][A-Z0-9_]*_(MAX|LIMIT)\b",
    r"end$",
    r"(?m)^import\s+os$",
    r"(?s)begin.*end",
    r"(?i)İstanbul",
    # a leading word boundary of the first alternative only (rule packs hold such patterns)
    r"\bGson\s*\(\s*\)\.fromJson|\.fromJson\s*\(",
    r"\bcsrf_(token|field)\s*\(|@csrf\b",
    r"\bYaml\s*\(|\bnew\s+Yaml\b",  # a boundary every alternative asks for
    r"\b(\.x|y)",  # a boundary before a character that is not a word's
    r"\b(a\.b|b)",  # a match inside one that does not start at a boundary
    # alternations searched alternative by alternative: the leftmost match, the earlier
    # alternative at one position
    r"ab|a", r"a|ab", r"(?:bc|abc)", r"(?i)(xa|\bbc)", r"foo|bar(?=x)|(?<=z)baz",
    r"(fo|\bo)o|oo", r"(?m)^ab|b$", r"(x|y)z",
]
TEXTS = [
    "",
    "a DoS in the parser",
    "ReDoS and dos",
    "fix: Denial of Service in the URL validator (CVE-2024-12345)",
    "ghsa-xxxx",
    "the \u212aelvin scale",  # KELVIN SIGN matches (?i)k
    "STRA\u017fSE",  # LONG S matches (?i)s
    "\u0130STANBUL and istanbul",  # capital I with dot: lowercases to two characters
    "    try:\n        x = 1\n    except ValueError:\n        raise",
    "cursor.execute(sql)",
    "mycursor.execute(sql)",
    "raw_sql % (a, b)",
    "SECRET_key and secret_KEY",
    "ac abc abbc",
    "xw xyzyzw xyw",
    "only xw",
    "abg",
    "foofoobar",
    "bc abc",
    "color colour",
    "pickle.loads(data) pickle.Unpickler",
    "FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_LIMIT",
    "the end\nnot the end here",
    "import os\nimport  os  \nimport os",
    "begin\nmiddle\nend",
    "caf\u00e9 DoS",
    "gson.fromJson(text) Gson().fromJson",
    "{{ csrf_field() }} @csrf x@csrf",
    "new Yaml() xYaml(",
    "a.x .x y",
    "xa.b",
    "abc ab a", "xbcd abc", "XA BC xbc", "zbaz barx foo", "fooo oo", "ab\nb\nxb", "yz xz",
]


def _span(found: re.Match[str] | None) -> tuple[int, int, str] | None:
    return None if found is None else (found.start(), found.end(), found.group(0))


def _reference(patterns: list[str], text: str) -> tuple[int, int, str] | None:
    """What ``FastRegex`` finds before its prefilter is on (each pattern searched)."""
    return _span(FastRegex(patterns).search(text))


def _prefiltered(patterns: list[str]) -> FastRegex:
    regex = FastRegex(patterns)
    for _ in range(PREFILTER_AFTER):  # past the searches made before the prefilter is on
        regex.search("")
    return regex


@pytest.mark.parametrize("text", TEXTS)
def test_each_pattern_finds_what_re_finds(text: str) -> None:
    for pattern in PATTERNS:
        assert _span(_prefiltered([pattern]).search(text)) == _reference([pattern], text), (
            pattern, text)
        plain = re.compile(pattern, re.MULTILINE).search(text)
        assert _reference([pattern], text) == _span(plain), (pattern, text)


@pytest.mark.parametrize("text", TEXTS)
def test_overlapping_patterns_keep_their_order(text: str) -> None:
    regex = _prefiltered(PATTERNS)
    assert sum(literals is not None for _, _, literals, _, _ in regex.parts) >= 14
    assert _span(regex.search(text)) == _reference(PATTERNS, text)
    assert _span(regex.search(text.upper())) == _reference(PATTERNS, text.upper())


@pytest.mark.parametrize(("pattern", "size"), [
    (r"ab|a", 2), (r"(?i)(\bdenial[ -]of\b|\bDoS\b|\bCVE-\d+)", 3), (r"(?:bc|abc)", 2),
    (r"(x|y)z", None), (r"a|\w", None), (r"(a)|\1", None), (r"(?x)a | b", None),
    (r"(?i:a|b)", None), (r"(ab|cd)|(ef)", 2),
])
def test_one_alternation_is_split(pattern: str, size: int | None) -> None:
    parts = _prefiltered([pattern]).parts
    alternatives = parts[0][4]
    assert (None if alternatives is None else len(alternatives)) == size


def test_the_needles_are_what_every_match_holds() -> None:
    assert needles(r"\b(cursor|conn)\.(execute|executemany)\s*\(", re.M) == (
        ("conn.execute", "cursor.execute"), False)  # "executemany" holds "execute"
    assert needles(r"(?i)CVE-\d+|GHSA-", re.M) == (("cve-", "ghsa-"), True)
    assert needles(r"colou?r", 0) == (("colo",), False)
    assert needles(r"(a|)bc", 0) == (("bc",), False)


# Runs of literals, small classes and groups of them, spelled out as needles; each with texts
# where it matches in every spelling, or misses by one character.
SPELLED = [
    (r"[+*]\)[+*{]", ("*)*", "*)+", "*){", "+)*", "+)+", "+){")),
    (r"[\u202a-\u202e\u2066-\u2069]", tuple(chr(c) for c in [*range(0x202a, 0x202f),
                                                             *range(0x2066, 0x206a)])),
    (r"(cursor|db)\.(get|set)_", ("cursor.get_", "cursor.set_", "db.get_", "db.set_")),
    (r"(?i)[A-C]x", ("ax", "bx", "cx")),
    (r"(a|)b[cd]", ("bc", "bd")),
    (r"x(ab|cd)?y", ("x",)),  # an optional group ends the run: x, then y, both required
    (r"(ab|cd)+e", ("ab", "cd")),  # a repeat is not spelled: its body's needles
    # 27 spellings, more than a run may hold: the first two classes make one
    (r"[abc][abc][abc]", tuple(a + b for a in "abc" for b in "abc")),
    (r"q[a-j]z", ("qaz", "qbz", "qcz", "qdz", "qez", "qfz", "qgz", "qhz", "qiz", "qjz")),
    (r"q[a-k]z", ("q",)),  # a class of 11 characters is not spelled out
]
SPELLED_TEXTS = ["", "a+)+b a*){", "x\u202ey", "cursor.get_ db.set_ db.got_", "AX bX Cx dx",
                 "bc bd ac be", "xy xaby xcdy xady", "abcde cdabe abe", "abc cab xyz",
                 "qaz qjz qkz", "QAZ q-z"]


@pytest.mark.parametrize(("pattern", "expected"), SPELLED)
def test_spelled_runs_are_needles_every_match_holds(pattern: str,
                                                    expected: tuple[str, ...]) -> None:
    found = needles(pattern, re.M)
    assert found is not None and found[0] == tuple(sorted(expected)), pattern
    literals, ignore_case = found
    for text in SPELLED_TEXTS:
        hay = lowered(text) if ignore_case else text
        for match in re.finditer(pattern, text, re.M):
            folded = lowered(match.group(0)) if ignore_case else match.group(0)
            assert any(literal in folded for literal in literals), (pattern, match)
        if not any(literal in hay for literal in literals):
            assert re.search(pattern, text, re.M) is None, (pattern, text)
        prefiltered = _prefiltered([pattern])
        assert _span(prefiltered.search(text)) == _span(re.search(pattern, text, re.M))


@pytest.mark.parametrize("pattern", [
    r"a?", r"\w+", r"(a|\d)", r"(?i:abc)", r"(?P<q>a)?(?(q)b|c)", r"[a-z]+", r"[^abc]+",
    r"(?i)\u212a", r"(?i)[k\u212a]",
])
def test_no_needles_when_none_is_certain(pattern: str) -> None:
    assert needles(pattern, re.M) is None


def test_case_insensitive_needles_see_what_re_folds() -> None:
    assert lowered("ABC") == "abc"
    assert lowered("\u212a\u017f\u0130\u0131 \u00c9") == "ksii \u00e9"
    outside = "".join(map(chr, range(0x80, 0x110000)))
    folds = {c: lowered(c) for c in re.findall("(?i)[a-z]", outside)}
    assert folds == {chr(code): letter for code, letter in ASCII_FOLDS.items() if code >= 0x80}
    for letter in string.ascii_letters:  # and nothing else takes an ASCII letter's place
        matched = re.findall(f"(?i){letter}", outside)
        assert all(lowered(c) == letter.lower() for c in matched), letter
    others = re.sub("[" + "".join(folds) + "]", "", outside)
    assert not re.search("[\x00-\x7f]", lowered(others))  # no other becomes ASCII
    regex = _prefiltered([r"(?i)kelvin"])
    assert regex.search("\u212aELVIN") is not None
    assert regex.search("celsius") is None


def test_word_rules_see_words_as_their_regex_does() -> None:
    from reviewtui.rules.compiled import KeywordRule, Stage, _keyword, _rule

    body = KeywordRule.model_validate(dict(words=["Token", "auth", "stra\u00dfe"], risk="high",
                                           context_level="file"))
    ascii_body = KeywordRule.model_validate(dict(words=["Token", "auth"], risk="high",
                                                 context_level="file"))
    rules = [item for b in (body, ascii_body)
             for item in _keyword(_rule(Stage.KEYWORD, "k", b, False), b)
             if isinstance(item, WordRule)]
    assert [rule.ascii_words for rule in rules] == [False, True]
    for rule in rules:
        for text in ["", "AUTH_token", "author", "csrf_TOKEN", "\u212aEY", "no match here",
                     "STRASSE", "stra\u00dfe", "T\u00f6ken auth"]:
            assert rule.anywhere(text) == (rule.prefilter.search(text) is not None), text


def test_may_match_says_no_only_when_no_line_can_match() -> None:
    regex = _prefiltered([r"eval\(", r"(?i)\bpickle\b"])
    assert regex.may_match("x = eval(y)") and regex.may_match("PICKLE")
    assert regex.may_match("\u017fickle".replace("\u017f", "p"))
    assert not regex.may_match("x = evaluate\nimport json")
    for text in ["x = evaluate", "import json", "a\nb"]:
        if not regex.may_match("x = evaluate\nimport json\na\nb"):
            assert regex.search(text) is None
    assert FastRegex([r"eval\("]).may_match("nothing")  # needles not worked out yet
    assert _prefiltered([r"a\nb"]).may_match("nothing")  # a needle holding a line break
    assert _prefiltered([r"\w+"]).may_match("")  # no needles


@pytest.mark.parametrize("text", TEXTS)
def test_a_needle_scan_finds_what_each_regex_finds(text: str) -> None:
    regexes = [_prefiltered([pattern]) for pattern in PATTERNS] + [_prefiltered(PATTERNS)]
    scan = needle_scan(regexes)
    assert scan is not None
    found = scan.found(text)
    for regex in regexes:
        assert _span(regex.search(text, found)) == _span(regex.search(text)), text
        assert regex.may_match(text, found) == regex.may_match(text), text
    outsider = _prefiltered([r"DoS"])  # not in the scan: looks for its own needles
    assert _span(outsider.search(text, found)) == _span(outsider.search(text))


def test_a_needle_scan_finds_overlapping_needles() -> None:
    regexes = [_prefiltered([r"\bexecute\("]), _prefiltered([r"cute"]), _prefiltered([r"exec"])]
    scan = needle_scan(regexes)
    assert scan is not None
    found = scan.found("x.execute(q)")
    assert {"execute(", "cute", "exec"} <= found.plain
    assert all(regex.search("x.execute(q)", found) is not None for regex in regexes)
