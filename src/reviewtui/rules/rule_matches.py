"""How a unit's text is matched against a handler's rules: regexes, symbols, sizes, keywords.

The matching itself, apart from the handlers (``rules.handlers``) that decide which rules to
ask: a regex rule's first match in the lines it reads (added lines first, so the evidence names
what the change adds), a word rule's words standing as whole identifier words, a size
threshold, and the evidence clipped to a short quote.
"""

from __future__ import annotations

import re

from reviewtui.rules.compiled import MetricThreshold, RegexRule, Rule, WordRule
from reviewtui.rules.needle_gates import set_bits
from reviewtui.rules.suggestion import RuleMatch
from reviewtui.rules.unit_text import UnitText
from reviewtui.units.fast_regex import FastRegex
from reviewtui.units.model import ReviewUnit
from reviewtui.units.path_tags import identifier_tokens

_EVIDENCE = 48


def clip(text: str) -> str:
    """``text`` on one line, cut to a short quote (the evidence a match shows)."""
    text = " ".join(text.split())
    return text if len(text) <= _EVIDENCE else text[: _EVIDENCE - 1] + "…"


def regex_matches(rules: tuple[RegexRule, ...], text: str) -> list[RuleMatch]:
    """Each of ``rules`` whose regex is found in ``text`` (a unit's decorators, annotations)."""
    if not text:
        return []
    out = []
    for item in rules:
        hit = item.regex.search(text)
        if hit:
            out.append(RuleMatch(item.rule, 1.0, clip(hit.group(0))))
    return out


def symbol_matches(rules: tuple[RegexRule, ...],
                   names: tuple[tuple[str, str], ...]) -> list[RuleMatch]:
    """Each of ``rules`` whose regex matches one of the unit's ``(name, kind)`` definitions of a
    kind it asks for (any kind when it names none)."""
    out = []
    for item in rules:
        for name, kind in names:
            if (not item.kinds or kind in item.kinds) and item.regex.search(name):
                out.append(RuleMatch(item.rule, 1.0, name))
                break
    return out


def metric_match(rules: tuple[MetricThreshold, ...], unit: ReviewUnit) -> list[RuleMatch]:
    """The first of ``rules`` (largest threshold first) that the unit's size reaches."""
    size = unit.added_lines + unit.removed_lines
    for item in rules:
        if size >= item.min_lines:
            return [RuleMatch(item.rule, 0.5, f"{size} lines >= {item.min_lines}")]
    return []


def search_lines(regex: FastRegex, text: UnitText, rule: Rule) -> re.Match[str] | None:
    """The first match in the lines ``rule`` reads, looked for in the added lines first: the
    evidence names what the change adds, not a line it removes. Where the rule reads both,
    the needles of ``regex`` are looked for once in all the changed lines first: the added and
    the removed lines are some of them."""
    if rule.on == "changed" and not regex.may_match(text.lines("changed", rule.reads),
                                                    text.found("changed", rule.reads)):
        return None
    for on in ("added", "removed") if rule.on == "changed" else (rule.on,):
        lines = text.lines(on, rule.reads)
        hit = regex.search(lines, text.found(on, rule.reads)) if lines else None
        if hit is not None:
            return hit
    return None


def _library_type(text: str, start: int) -> bool:
    """Is the capitalised word at ``start`` a class of a module (``contextvars.Token``,
    ``requests.Session``)? Then it names that library's type, not the project's credential."""
    if start < 2 or text[start - 1] != "." or not text[start].isupper():
        return False
    head = start - 1
    while head > 0 and (text[head - 1].isalnum() or text[head - 1] == "_"):
        head -= 1
    return head < start - 1 and text[head].islower()


def _in_sense(text: str, start: int, end: int, senses: frozenset[str]) -> bool:
    """Does the line around ``text[start:end]`` hold one of the word's sense words?"""
    head = text.rfind("\n", 0, start) + 1
    tail = text.find("\n", end)
    line = text[head:tail if tail >= 0 else len(text)]
    return not senses.isdisjoint(identifier_tokens(line))


def _words_in(rule: WordRule, text: str, limit: int = 3) -> set[str]:
    """The rule's words standing as whole identifier words (snake_case/camelCase parts) in
    ``text``: ``auth`` in ``auth_token``, not in ``author``; ``token`` in ``csrf_token``, not in
    ``_cv_tokens``, ``tokenize`` or a library's ``contextvars.Token``."""
    found: set[str] = set()
    size = len(text)
    for hit in rule.prefilter.finditer(text):
        start, end = hit.span()
        before = text[start - 1] if start else " "
        after = text[end] if end < size else " "
        left = not before.isalnum() or (before.islower() and text[start].isupper())
        right = not after.isalnum() or (after.isupper() and text[end - 1].islower())
        word = hit.group(0).lower()
        if left and right and not _library_type(text, start) and (
                word not in rule.senses or _in_sense(text, start, end, rule.senses[word])):
            found.add(word)
            if len(found) >= limit:
                break
    return found


def keyword_matches(rules: tuple[RegexRule | WordRule, ...], text: UnitText,
                    opened: int = -1) -> list[RuleMatch]:
    """The keyword rules that match; ``opened``: those that may (bits, ``NeedleGates``)."""
    out = []
    for index in set_bits(opened & ((1 << len(rules)) - 1)):  # the open ones only
        item = rules[index]
        if isinstance(item, WordRule):
            prose = item.rule.reads == "all"
            if not item.anywhere(text.lines(item.rule.on, item.rule.reads)):
                continue  # cheap: no word anywhere, no need for the words view
            common = _words_in(item, text.lines(item.rule.on, "all" if prose else "words"))
            if common:
                out.append(RuleMatch(item.rule, 0.5, ",".join(sorted(common)[:3])))
        else:
            hit = search_lines(item.regex, text, item.rule)
            if hit:
                out.append(RuleMatch(item.rule, 0.5, clip(hit.group(0))))
    return out
