"""What each changed line does, read off the parse: conditions, comparisons, arithmetic, error
handling, returns, null literals, assertions.

The learned priority (``rules.triage_features``) asks of a unit's changed lines whether they
steer control flow, compare, compute, raise or catch, return or handle null. Patterns on the
text answer that wrongly where the text misleads (an ``if`` in a string, ``x - y`` inside a
slice header, a keyword inside a comment the parse knows about); the parse answers it by node
kind. One table of candidate tree-sitter patterns serves every grammar: each pattern is
compiled alone against a language and kept only if the language has its node kinds and fields
(``if_statement condition:`` in most grammars, ``if condition:`` in Ruby,
``comparison_operator`` in Python, ``equality_expression`` in Kotlin), so a grammar gets the
categories its node kinds can say and adding a language needs no new table.

A capture counts either every line its node spans (a condition written over three lines) or
only its first line (``try``, ``catch``, ``switch``: their bodies are not error handling or
control themselves). Only lines inside the given ranges are reported: the query cursor is
limited to them, which keeps the cost proportional to the change, not to the file.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from tree_sitter import Language, Node, Query, QueryCursor, QueryError

CATEGORIES: tuple[str, ...] = ("control", "compare", "arith", "error", "return", "null", "check")
_COMPARE_OPS = ("==", "!=", "<", ">", "<=", ">=", "===", "!==", "<=>", "&&", "||", "and", "or")
_ARITH_OPS = ("+", "-", "*", "/", "%", "//", "**", "<<", ">>")
_CONDITIONED = ("if_statement", "if_expression", "while_statement", "while_expression",
                "do_statement", "do_while_statement", "elif_clause",
                "else_if_clause", "if", "unless", "while", "until", "if_modifier",
                "unless_modifier", "while_modifier", "until_modifier", "elsif", "if_guard",
                "unless_guard")
_HEADS_CONTROL = ("switch_statement", "expression_switch_statement", "type_switch_statement",
                  "switch_expression", "match_statement", "match_expression", "case_clause",
                  "switch_case", "switch_label", "case_statement", "switch_section",
                  "expression_case", "type_case", "match_arm", "when_expression", "when_entry",
                  "when", "case", "for_in_statement", "enhanced_for_statement",
                  "foreach_statement", "for_expression", "for_range_loop", "for", "for_in_clause",
                  "for_statement", "if_clause",
                  "conditional_expression", "ternary_expression", "conditional")
_HEADS_ERROR = ("try_statement", "try_expression", "try_with_resources_statement",
                "seh_try_statement", "try_block", "catch_clause", "except_clause",
                "except_group_clause", "finally_clause", "catch_block", "finally_block",
                "rescue", "ensure", "seh_except_clause", "seh_finally_clause")
_ALL_ERROR = ("raise_statement", "throw_statement", "throw_expression", "rescue_modifier")
_ALL_ARITH = ("augmented_assignment", "augmented_assignment_expression", "update_expression",
              "inc_statement", "dec_statement", "compound_assignment_expr", "additive_expression",
              "multiplicative_expression")
_ALL_RETURN = ("return_statement", "return_expression", "return", "co_return_statement")
_ALL_NULL = ("none", "null", "nil", "null_literal", "undefined", "nullptr")
_ALL_COMPARE = ("comparison_operator", "boolean_operator", "equality_expression",
                "comparison_expression", "conjunction_expression", "disjunction_expression")
_BINARY = ("binary_expression", "binary_operator", "binary")
_ALL_CHECK = ("assert_statement", "static_assert_declaration")


def _named(language: Language, kinds: Iterable[str]) -> list[str]:
    return [k for k in kinds if language.id_for_node_kind(k, True) is not None]


def _tokens(language: Language, tokens: Iterable[str]) -> list[str]:
    return [t for t in tokens if language.id_for_node_kind(t, False) is not None]


def _alternatives(language: Language) -> list[tuple[str, str, list[str]]]:
    """(category, "all" | "head", alternatives): one alternation per category and mode, of the
    node kinds, fields and operator tokens ``language`` has."""
    out: list[tuple[str, str, list[str]]] = []

    def add(category: str, mode: str, parts: list[str]) -> None:
        if parts:
            out.append((category, mode, parts))

    has_condition = language.field_id_for_name("condition") is not None
    has_operator = language.field_id_for_name("operator") is not None
    if has_condition:
        add("control", "all", [f"({k} condition: (_) @x)" for k in _named(language, _CONDITIONED)])
    add("control", "head", [f"({k}) @x" for k in _named(language, _HEADS_CONTROL)])
    add("compare", "all", [f"({k}) @x" for k in _named(language, _ALL_COMPARE)])
    binaries = _named(language, _BINARY)
    for category, ops in (("compare", _COMPARE_OPS), ("arith", _ARITH_OPS)):
        known = " ".join(f'"{t}"' for t in _tokens(language, ops))
        if has_operator and known:  # Python's binary_operator is arithmetic only
            add(category, "all", [f"({k} operator: [{known}]) @x" for k in binaries
                                  if category == "arith" or k != "binary_operator"])
    add("arith", "all", [f"({k}) @x" for k in _named(language, _ALL_ARITH)])
    add("error", "head", [f"({k}) @x" for k in _named(language, _HEADS_ERROR)])
    add("error", "all", [f"({k}) @x" for k in _named(language, _ALL_ERROR)])
    add("return", "all", [f"({k}) @x" for k in _named(language, _ALL_RETURN)])
    add("null", "all", [f"({k}) @x" for k in _named(language, _ALL_NULL)])
    add("check", "all", [f"({k}) @x" for k in _named(language, _ALL_CHECK)])
    return out


# C has no exceptions: its error handling is a jump to the cleanup label, a negative return
# (``-1``, ``-ENOMEM``) and the calls that end the process. Without these a C unit never had
# error handling added or removed (none of curl's 4,700 benchmark units did).
_C_ERRORS = (
    "(goto_statement) @x",
    '((return_statement (number_literal) @_n) @x (#match? @_n "^-"))',
    '(return_statement (unary_expression operator: "-")) @x',
    '((call_expression function: (identifier) @_f) @x (#any-of? @_f "abort" "exit" "perror"))',
)
_CALLED_ERRORS = (
    *(("c", pattern) for pattern in _C_ERRORS),
    *(("cpp", pattern) for pattern in _C_ERRORS),
    ("go", '((call_expression function: (identifier) @_f) @x (#any-of? @_f "panic" "recover"))'),
    ("go", '((binary_expression left: (identifier) @_e right: (nil)) @x (#eq? @_e "err"))'),
    ("ruby", '((call method: (identifier) @_m) @x (#any-of? @_m "raise" "fail"))'),
    ("rust", '((macro_invocation macro: (identifier) @_m) @x '
             '(#any-of? @_m "panic" "unreachable" "bail"))'),
)


def _compiles(language: Language, pattern: str) -> bool:
    try:
        Query(language, pattern)
    except (QueryError, ValueError, NameError, SyntaxError):
        return False
    return True


@cache
def kinds_source(name: str, language: Language) -> str | None:
    """The source of the line kinds query of ``language`` (the grammar ``name``): every
    category it can express, one alternation per (category, mode), each pattern capturing its
    node as ``@<category>.<mode>`` so that one ``captures`` call reads them all (a dict per
    match from ``matches`` cost as much as the query); None when it expresses none. A field a
    grammar has but not on one of the node kinds makes the alternation impossible: then each
    alternative is tried alone and only the ones that compile are kept (slower, and so only
    then)."""
    kept = _alternatives(language)
    kept += [("error", "all", [pattern]) for grammar_name, pattern in _CALLED_ERRORS
             if grammar_name == name]

    def source(items: list[tuple[str, str, list[str]]]) -> str:
        return "\n".join("[" + " ".join(_CAPTURE.sub(f"@{category}.{mode}", part)
                                         for part in parts) + "]"
                         for category, mode, parts in items)

    if not kept:
        return None
    if _compiles(language, source(kept)):
        return source(kept)
    kept = [(category, mode, [p for p in parts if _compiles(language, p)])
            for category, mode, parts in kept]
    kept = [item for item in kept if item[2]]
    return source(kept) if kept else None


@cache
def kinds_query(name: str, language: Language) -> tuple[Query, tuple[tuple[str, str], ...]] | None:
    """The line kinds query of ``language`` (``kinds_source``) and the (category, mode) its
    captures stand for; None when it expresses none."""
    source = kinds_source(name, language)
    if source is None:
        return None
    query = Query(language, source)
    names = (query.capture_name(i) for i in range(query.capture_count))
    return query, tuple((category, mode) for category, _, mode in
                        (n.partition(".") for n in names if not n.startswith("_")))


_CAPTURE = re.compile(r"@x\b")


def _spans(ranges: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """1-based inclusive ``ranges`` as sorted, merged 0-based rows: (first rows, last rows)."""
    lows: list[int] = []
    highs: list[int] = []
    for low, high in sorted(ranges):
        if high < low:
            continue
        if highs and low - 1 <= highs[-1] + 1:
            highs[-1] = max(highs[-1], high - 1)
        else:
            lows.append(low - 1)
            highs.append(high - 1)
    return lows, highs


def _cursor_spans(lows: list[int], highs: list[int], gap: int) -> list[tuple[int, int]]:
    """The cursor's ranges (1-based inclusive) over the 0-based spans ``lows``/``highs``: spans
    at most ``gap`` rows apart share one. A cursor set to a range still steps over every
    sibling before it, from the root down (~0.2 ms a range in a 9,000-line test module, 1,600
    ranges in all on Django 4.2 -> 5.2); reading the few lines between two close ranges costs
    less, and their nodes are cut to the wanted rows all the same."""
    out: list[tuple[int, int]] = []
    for low, high in zip(lows, highs, strict=True):
        if out and low - out[-1][1] <= gap:
            out[-1] = (out[-1][0], high + 1)
        else:
            out.append((low + 1, high + 1))
    return out


def line_kinds(name: str, language: Language, root: Node,
               ranges: Sequence[tuple[int, int]] | None) -> dict[str, frozenset[int]]:
    """1-based lines of each category found in ``ranges`` (1-based inclusive line ranges;
    None: the whole tree). The cursor reads the ranges (close ones together), so the cost
    follows the change, not the file."""
    found = kinds_query(name, language)
    if found is None:
        return {}
    lows: list[int] = []
    highs: list[int] = []
    spans: Sequence[tuple[int, int] | None] = [None]
    if ranges is not None:
        lows, highs = _spans(ranges)
        spans = _cursor_spans(lows, highs, max(1, root.end_point[0] // 100))
    out: dict[str, set[int]] = {}
    cursor = QueryCursor(found[0])
    for span in spans:
        if span is not None:
            cursor.set_point_range((span[0] - 1, 0), (span[1], 0))
        _add_rows(out, cursor.captures(root), lows, highs, ranges is None)
    return {category: frozenset(rows) for category, rows in out.items() if rows}


def kinds_in(captures: Mapping[str, list[Node]],
             ranges: Sequence[tuple[int, int]] | None) -> dict[str, frozenset[int]]:
    """``line_kinds`` from the captures of a query holding the line kinds query's patterns,
    run over the whole tree (``analyze`` reads a parse mostly changed in one walk)."""
    lows: list[int] = []
    highs: list[int] = []
    if ranges is not None:
        lows, highs = _spans(ranges)
    out: dict[str, set[int]] = {}
    _add_rows(out, captures, lows, highs, ranges is None)
    return {category: frozenset(rows) for category, rows in out.items() if rows}


def _add_rows(out: dict[str, set[int]], captures: Mapping[str, list[Node]],
              lows: list[int], highs: list[int], whole: bool) -> None:
    """Add to ``out`` the rows (1-based) of the line kinds ``captures`` within the spans
    ``lows``/``highs`` (0-based; every row if ``whole``): a node's rows are cut to the spans
    by arithmetic on them, not by intersecting sets of rows. Captures of other names (the
    structure query's, predicates' helpers) are passed over."""
    count = len(lows)
    for capture, nodes in captures.items():
        category, _, mode = capture.partition(".")
        if category not in CATEGORIES:
            continue
        rows = out.setdefault(category, set())
        head = mode == "head"
        for node in nodes:
            start = node.start_point[0]
            end = start
            if not head:
                end, end_col = node.end_point
                if end_col == 0 and end > start:
                    end -= 1
            if whole:
                rows.update(range(start + 1, end + 2))
                continue
            j = bisect.bisect_left(highs, start)
            while j < count and lows[j] <= end:
                rows.update(range(max(lows[j], start) + 1, min(highs[j], end) + 2))
                j += 1


def mapped_kinds(kinds: Mapping[str, frozenset[int]], rows: Sequence[int]
           ) -> dict[str, frozenset[int]]:
    """``kinds`` of a piece parsed alone, numbered as the file's lines (``rows[i]``: the
    file's 0-based row of the piece's row ``i``)."""
    return {category: frozenset(rows[n - 1] + 1 for n in lines if n <= len(rows))
            for category, lines in kinds.items()}
