"""What a unit's changed lines do, and where the unit stands in its change: the features of
the learned priority model (``rules.triage_model``).

The hand-set priority (``rules.priority``) sees tags, risk, size and reach. Real bug-introducing
commits say more is needed to order the units *of one change*: whether the changed lines steer
control flow, compare or compute, handle or drop errors, remove a check, change what a call is
given -- or only reword a message, a comment or an import. How the unit stands among its
change's units is ``rules.change_standing``'s, its tokens ``rules.unit_tokens``'. Each feature
is a number in about [0, 1]; the model's weights say how much each one moves the order, and
``rules explain`` shows each with its evidence.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from operator import itemgetter

from reviewtui.code.languages import is_code
from reviewtui.git.model import DiffLine
from reviewtui.rules.line_counts import BOUNDARY_LINES, lines_with_match
from reviewtui.units.fast_regex import FastRegex
from reviewtui.units.model import ReviewUnit


def _searched(pattern: str, flags: int = 0) -> FastRegex:
    """A pattern searched in every changed code line of a large change: most lines hold none
    of the literals a match needs, which a substring test says faster than the regex
    (``_BOUNDARY``: 2.8x faster on Django's 135,000 changed lines; same lines found)."""
    return FastRegex([pattern], flags)


_STRING_ONLY = re.compile(r"""^\s*[rbfu]*(['"]).*\1\s*[,)+]?\s*$""")
_CONTROL = _searched(r"\b(if|elif|else|for|while|switch|case|match|when|unless|until|"
                     r"foreach|do|goto)\b|\?\s*[^:]+:")
_COMPARE = _searched(r"(==|!=|<=|>=|===|!==|(?<![<-])<(?![<=-])|(?<![-=>])>(?![>=])|"
                     r"\bis not\b|\bnot in\b|\bin\b)")
_BOUNDARY = _searched(r"(<=|>=|[+-]\s*1\b|\[\s*-?1\s*\]|\[\s*0\s*\]|\blen\(|\.length\b|"
                      r"\.size\(\)|\bmin\(|\bmax\(|\brange\()")
_ARITH = re.compile(r"[\w)\]]\s*(\*\*|[-+*/%]|<<|>>)\s*[\w(]")
_ERROR = _searched(r"\b(try|except|catch|raise|throw|throws|panic|recover|rescue|ensure|"
                   r"finally|Err|Error|Exception)\b|\berr\s*!=\s*nil\b")
_CHECK = _searched(r"^\s*(if|elif|unless|assert|guard|require|ensure|check)\b|"
                   r"\braise\b|\bthrow\b|\breturn\s+(err|None|null|nil|false|False)\b")
_NULL = _searched(r"\b(None|null|nil|undefined|NULL|nullptr)\b")
_RETURN = _searched(r"\breturn\b")
_LOG = _searched(r"\b(log|logger|logging|console|print|println|printf|fmt\.Print|warn|"
                 r"debug|info)\w*\s*[.(]", re.IGNORECASE)
_IMPORT = re.compile(r"^\s*(import|from\s+\S+\s+import|require|using|#include|use)\b")
_KEYWORDS = frozenset({"if", "for", "while", "switch", "return", "catch", "elif", "and", "or",
                       "not", "in", "is", "new", "typeof", "sizeof", "function", "def"})

LINE_FEATURES: tuple[str, ...] = (
    "control_flow", "condition_changed", "boundary", "arithmetic", "error_added",
    "error_removed", "check_removed", "call_args_changed", "null_handling", "return_changed",
    "new_code", "only_messages", "comment_share", "imports_only", "pure_removal",
    "added_code_log", "removed_code_log",
)
FEATURES: tuple[str, ...] = (
    "control_flow", "condition_changed", "boundary", "arithmetic", "error_added",
    "error_removed", "check_removed", "call_args_changed", "null_handling", "return_changed",
    "new_code", "only_messages", "comment_share", "imports_only", "pure_removal",
    "one_function", "signature_change", "share_of_change", "largest_in_change",
    "file_share", "alone_in_file", "test_or_doc", "security_tag", "size_log",
    "added_code_log", "removed_code_log", "unknown_language", "entropy_share",
)


# What a line that opens like a comment opens with, after its whitespace: asked of the
# stripped line with ``str.startswith`` (the regex ``^\s*(#|//|...)`` it replaces cost a call
# per changed line; ``\s`` and ``str.strip`` skip the same characters).
COMMENT_HEADS = ("#", "//", "/*", "*", "--", "<!--", '"""', "'''")


def _is_code(unit: ReviewUnit, line: DiffLine) -> bool:
    """A changed line that is code: not blank, not opening like a comment and, where the
    parse saw the file, none of its comments or docstrings (``prose_lines``) -- a docstring's
    "if the value is None" steers nothing."""
    stripped = line.text.strip()
    if line.kind == " " or not stripped or stripped.startswith(COMMENT_HEADS):
        return False
    return not unit.parsed or (
        line.kind, line.new_no if line.kind == "+" else line.old_no) not in unit.prose_lines


class _ChangedLines:
    """A unit's changed lines sorted once for both ``line_features`` and ``unit_tokens``: the
    code lines in diff order with their kind, how many lines changed and how many are blank.
    """

    __slots__ = ("blank", "changed", "code")

    def __init__(self, unit: ReviewUnit) -> None:
        # ``_is_code`` inlined: each line stripped once, and the prose looked up only when
        # the unit has some (135,000 changed lines on Django 4.2 -> 5.2)
        code: list[tuple[str, str]] = []
        changed = blank = 0
        prose = unit.prose_lines if unit.parsed else None
        heads = COMMENT_HEADS
        for hunk in unit.hunks:
            for line in hunk.lines:
                kind = line.kind
                if kind == " ":
                    continue
                changed += 1
                text = line.text
                stripped = text.strip()
                if not stripped:
                    blank += 1
                elif not stripped.startswith(heads) and not (
                        prose and (kind, line.new_no if kind == "+" else line.old_no) in prose):
                    code.append((kind, text))
        self.code = code
        self.changed = changed
        self.blank = blank


_last: tuple[ReviewUnit | None, _ChangedLines | None] = (None, None)


def _changed_lines(unit: ReviewUnit) -> _ChangedLines:
    """The unit's ``_ChangedLines``, kept for the last unit asked about: the rules ask for its
    line features and then its tokens."""
    global _last
    kept = _last  # one read: another thread may put its own unit in the slot meanwhile
    if kept[0] is not unit or kept[1] is None:
        kept = _last = (unit, _ChangedLines(unit))
    assert kept[1] is not None
    return kept[1]


def changed_code_lines(unit: ReviewUnit) -> list[tuple[str, str]]:
    """The unit's changed code lines in diff order, each with its kind ("+" or "-"): shared
    with ``rules.unit_tokens`` (the rules ask for a unit's line features, then its tokens)."""
    return _changed_lines(unit).code


def _share(count: int, total: int) -> float:
    return min(1.0, count / total) if total else 0.0


def _hits(pattern: re.Pattern[str] | FastRegex, lines: Sequence[str]) -> int:
    return len(list(filter(pattern.search, lines)))  # the lines it is found in


# A call's name, searched in the lines joined by line breaks: blanks but a line break, so that
# no match spans two lines and the joined text finds what the lines one by one find; the name
# taken whole (``*+``: a shorter one is never followed by a space or a parenthesis either).
_CALL = re.compile(r"\b([A-Za-z_][\w.]*+)[^\S\n]*\(")


def _calls(lines: Sequence[str]) -> set[str]:
    names = set(_CALL.findall("\n".join(lines)))
    names.difference_update(_KEYWORDS)
    return {name.rpartition(".")[2] for name in names}


def _calls_in_both(added: Sequence[str], removed: Sequence[str]) -> set[str]:
    """The names called in both the added and the removed lines. The second side is not
    searched when the first has none (a unit that only adds code, half of them on Django
    4.2 -> 5.2: the call search took 0.16 s there, 0.08 s so)."""
    if not added or not removed:
        return set()
    called = _calls(added)
    return called & _calls(removed) if called else called


def line_features(unit: ReviewUnit) -> dict[str, float]:
    """What the added and removed lines do (language-agnostic patterns on code lines); for a
    data, documentation or settings file (YAML, Markdown, JSON...) nothing: its lines do not
    run."""
    if not is_code(unit.language):
        return dict.fromkeys(LINE_FEATURES, 0.0)
    rows = _changed_lines(unit)
    code_added = [text for kind, text in rows.code if kind == "+"]
    code_removed = [text for kind, text in rows.code if kind == "-"]
    code = code_added + code_removed
    changed = rows.changed
    n = len(code)

    def squash(count: int) -> float:  # 1 line: 0.5, 3 lines: 0.75, many: -> 1
        return 1.0 - 1.0 / (1.0 + count) if count else 0.0

    string_only = _STRING_ONLY.match
    if _LOG.may_match("\n".join(code)):
        log = _LOG.search
        messages = sum(1 for line in code if string_only(line) or log(line))
    else:  # no line holds what a log call needs
        messages = sum(1 for line in code if string_only(line))
    both_calls = _calls_in_both(code_added, code_removed)
    does = _parsed_counts(unit) if unit.line_kinds is not None else _pattern_counts(
        code_added, code_removed)
    return {
        "control_flow": squash(does["control"]),
        "condition_changed": squash(min(does["compare+"], does["compare-"])),
        "boundary": squash(lines_with_match(BOUNDARY_LINES, code)),
        "arithmetic": squash(does["arith"]),
        "error_added": squash(does["error+"]),
        "error_removed": squash(does["error-"]),
        "check_removed": squash(does["check-"]),
        "call_args_changed": squash(len(both_calls)),
        "null_handling": squash(does["null"]),
        "return_changed": squash(does["return"]),
        "new_code": _share(len(code_added), n) if not code_removed else 0.0,
        "only_messages": 1.0 if n and messages == n else _share(messages, n) * 0.5,
        "comment_share": _share(changed - n - rows.blank, changed),
        "imports_only": 1.0 if n and all(_IMPORT.match(line) for line in code) else 0.0,
        "pure_removal": 1.0 if code_removed and not code_added else 0.0,
        "added_code_log": min(1.0, math.log2(1 + len(code_added)) / 8),
        "removed_code_log": min(1.0, math.log2(1 + len(code_removed)) / 8),
    }


def _pattern_counts(added: Sequence[str], removed: Sequence[str]) -> dict[str, int]:
    """Changed code lines per thing they do, by patterns on the text (no parse)."""
    code = [*added, *removed]
    return {"control": _hits(_CONTROL, code), "compare+": _hits(_COMPARE, added),
            "compare-": _hits(_COMPARE, removed), "arith": _hits(_ARITH, code),
            "error+": _hits(_ERROR, added), "error-": _hits(_ERROR, removed),
            "check-": _hits(_CHECK, removed), "null": _hits(_NULL, code),
            "return": _hits(_RETURN, code)}


# A removed check, by the parse: a condition, an assertion, a raise/throw or a handler.
_CHECKS = frozenset({"control", "check", "error"})
_REMOVED_CHECKS = frozenset((category, "-") for category in _CHECKS)
_CATEGORY_KIND = itemgetter(0, 1)


def _parsed_counts(unit: ReviewUnit) -> dict[str, int]:
    """Changed code lines per thing they do, by the parse's node kinds (``unit.line_kinds``)."""
    # ``line_kinds`` is a set of (category, kind, number): the lines of a category (and
    # kind) are as many as its triples, counted at once; only a removed check may be
    # several categories of one line (a condition that compares), so its lines are a set.
    kinds = unit.line_kinds or frozenset()
    pairs = Counter(map(_CATEGORY_KIND, kinds))
    checks = {number for category, kind, number in kinds
              if kind == "-" and category in _CHECKS} if pairs.keys() & _REMOVED_CHECKS else ()
    return {"control": pairs["control", "+"] + pairs["control", "-"],
            "compare+": pairs["compare", "+"], "compare-": pairs["compare", "-"],
            "arith": pairs["arith", "+"] + pairs["arith", "-"],
            "error+": pairs["error", "+"], "error-": pairs["error", "-"],
            "check-": len(checks),
            "null": pairs["null", "+"] + pairs["null", "-"],
            "return": pairs["return", "+"] + pairs["return", "-"]}


_QUIET = frozenset({"test_file", "doc_file", "translation_file", "asset_file",
                    "generated_or_vendored", "lockfile", "type_stub", "tooling_file"})


def unit_features(unit: ReviewUnit, standing: Mapping[str, float],
                  lines: Mapping[str, float] | None = None) -> dict[str, float]:
    """Every feature of one unit, given its ``standing`` in the change (``change_features``)
    and, when the rules computed them already (cached with the file), its ``lines``."""
    tags = set(unit.tags)
    features = dict(lines) if lines else line_features(unit)
    features.update(standing)
    features.update({
        "one_function": 1.0 if len(unit.functions) == 1 or "in_single_function" in tags
        else 0.0,
        "signature_change": 1.0 if "signature_change" in tags else 0.0,
        "test_or_doc": 1.0 if tags & _QUIET else 0.0,
        "security_tag": 1.0 if tags & {"security_sensitive", "security_area"} else 0.0,
        "size_log": min(1.0, math.log2(1 + unit.added_lines + unit.removed_lines) / 10),
        "unknown_language": 1.0 if unit.language is None else 0.0,
    })
    return {name: features.get(name, 0.0) for name in FEATURES}


_EVIDENCE: dict[str, tuple[re.Pattern[str] | FastRegex, str]] = {
    "control_flow": (_CONTROL, "+-"), "condition_changed": (_COMPARE, "+-"),
    "boundary": (_BOUNDARY, "+-"), "arithmetic": (_ARITH, "+-"), "error_added": (_ERROR, "+"),
    "error_removed": (_ERROR, "-"), "check_removed": (_CHECK, "-"), "null_handling": (_NULL, "+-"),
    "return_changed": (_RETURN, "+-"), "imports_only": (_IMPORT, "+-"),
}


# the parse's categories behind a line feature (``unit.line_kinds``)
_PARSED_EVIDENCE: dict[str, frozenset[str]] = {
    "control_flow": frozenset({"control"}), "condition_changed": frozenset({"compare"}),
    "arithmetic": frozenset({"arith"}), "error_added": frozenset({"error"}),
    "error_removed": frozenset({"error"}), "check_removed": _CHECKS,
    "null_handling": frozenset({"null"}), "return_changed": frozenset({"return"}),
}


def feature_evidence(unit: ReviewUnit, name: str) -> str | None:
    """The first changed code line that gave ``unit`` the line feature ``name`` (for
    ``rules explain`` and the detail pane), as ``+L12 text`` / ``-L9 text``: by the parse's
    node kinds where the unit has them, else by the feature's pattern."""
    found = _EVIDENCE.get(name)
    if found is None:
        return None
    pattern, kinds = found
    categories = _PARSED_EVIDENCE.get(name) if unit.line_kinds is not None else None
    marked = ({(k, n) for c, k, n in unit.line_kinds or () if c in categories}
              if categories is not None else set())
    for hunk in unit.hunks:
        for line in hunk.lines:
            if line.kind not in kinds or not _is_code(unit, line):
                continue
            number = line.new_no if line.kind == "+" else line.old_no
            if (categories is not None and (line.kind, number) in marked) or (
                    categories is None and pattern.search(line.text)):
                return f"{line.kind}L{number} {line.text.strip()[:80]}"
    return None
