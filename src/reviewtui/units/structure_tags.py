"""The structural tags of a unit's changed lines: whole definitions, headers, the enclosing one.

complete_function and complete_class (every line of a definition changed), signature_change
and annotations_only (a header changed, or only its type annotations; a header line that
changed in the body written on it, the signature reading the same, is neither, nor a function
added or removed but for its last line; a function rewritten whole on both sides, as a one-line
declaration is, whose header reads differently, is a signature_change), in_single_function
(the non-blank changed lines all sit in one function), with the symbols a unit defines or sits
in and their scopes. "+" lines are read against the new file's definitions, "-" lines against
the old file's (``units.definition_lookup``). ``units.line_tags`` calls these once it knows the
file was parsed.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from operator import itemgetter

from reviewtui.code import Definition
from reviewtui.code.kinds import CLASS_KINDS, FUNCTION_KINDS
from reviewtui.units.definition_lookup import DefinitionLookup
from reviewtui.units.model import Scope

NUMBER = itemgetter(0)  # of a (number, text) pair: mapped in C, not unpacked in Python
TRAILING_COMMA = re.compile(r",(?=[)\]}])")


def _complete(defs: Sequence[Definition], changed: frozenset[int], kinds: frozenset[str]) -> bool:
    return any(d.kind in kinds and changed.issuperset(range(d.start_line, d.end_line + 1))
               for d in defs)


def _add_scope(scopes: dict[tuple[str, str], Scope], lookup: DefinitionLookup,
               definition: Definition, role: str) -> None:
    key = (definition.qualified_name, definition.kind)
    if key not in scopes:
        scopes[key] = lookup.scope(definition, role)


def strip_annotations(signature: str) -> str:
    """A Python ``def`` header without its type annotations and layout: two headers that differ
    only in annotations (``t.Iterable`` -> ``t.Iterable[t.Any]``, ``-> Self``) call alike."""
    out: list[str] = []
    depth = 0
    skipping = False
    quote = ""
    for char in signature:
        if quote:
            if char == quote:
                quote = ""
            if not skipping:
                out.append(char)
            continue
        if char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:  # the parameter list is closed: the rest is the return annotation
                out.append(char)
                break
        elif depth == 1 and char == ":":
            skipping = True
            continue
        elif depth == 1 and char in ",=":
            skipping = False
        if not skipping:
            out.append(char)
    return TRAILING_COMMA.sub("", "".join("".join(out).split()))


def _re_signed(whole_headers: dict[str, dict[str, set[str]]], language: str | None) -> bool:
    """Whether a function rewritten whole on both sides reads differently in its header (in
    Python, in more than its type annotations)."""
    old, new = whole_headers["old"], whole_headers["new"]
    for name in old.keys() & new.keys():
        before, after = old[name], new[name]
        if language == "python":
            before, after = set(map(strip_annotations, before)), set(map(strip_annotations, after))
        if before != after:
            return True
    return False


def structure_tags(
    plus: list[tuple[int, str]],
    minus: list[tuple[int, str]],
    old: DefinitionLookup | None,
    new: DefinitionLookup | None,
    tags: set[str],
    symbols: list[str],
    scopes: dict[tuple[str, str], Scope],
    language: str | None = None,
) -> None:
    headers: dict[str, dict[str, str]] = {"new": {}, "old": {}}
    header_lines: dict[str, dict[str, range]] = {"new": {}, "old": {}}
    # functions every line of which but the last changed: git often ends the lines added for
    # a new function before the "}" of the one above, which then reads as the new one's last
    added_or_removed: dict[str, set[str]] = {"new": set(), "old": set()}
    changed_lines = {"new": frozenset(map(NUMBER, plus)),
                     "old": frozenset(map(NUMBER, minus))}
    # the signatures of functions every line of which changed, when both sides changed: one
    # of the same name on both sides was re-signed if they differ (a one-line declaration:
    # an interface method, ``fun f(x: Int) = x``, ``int F(int x) => x;``)
    whole_headers: dict[str, dict[str, set[str]]] | None = (
        {"new": {}, "old": {}} if plus and minus else None)
    for key, lookup in (("new", new), ("old", old)):
        numbers = changed_lines[key]
        if lookup is None or not numbers:
            continue
        low, high = min(numbers), max(numbers)
        # Of the definitions the range touches, only those starting in it can be whole in it
        # (one starting before ``low`` has a line that did not change).
        starting = lookup.starting_in(low, high)
        if _complete(starting, numbers, FUNCTION_KINDS):
            tags.add("complete_function")
        if _complete(starting, numbers, CLASS_KINDS):
            tags.add("complete_class")
        for definition in lookup.defined_in(low, high):
            header = range(definition.header_line, definition.signature_end_line + 1)
            if numbers.isdisjoint(header):
                continue
            whole = numbers.issuperset(range(definition.start_line, definition.end_line + 1))
            symbols.append(definition.qualified_name)
            _add_scope(scopes, lookup, definition, "defines")
            if definition.kind not in FUNCTION_KINDS:
                continue
            if not whole:
                if numbers.issuperset(range(definition.start_line, definition.end_line)):
                    added_or_removed[key].add(definition.qualified_name)
                headers[key][definition.qualified_name] = definition.signature
                header_lines[key][definition.qualified_name] = header
            elif whole_headers is not None:
                whole_headers[key].setdefault(definition.qualified_name, set()).add(
                    " ".join(definition.signature.split()))
    if whole_headers is not None and _re_signed(whole_headers, language):
        tags.add("signature_change")
    typed_only: set[str] = set()
    for name in headers["new"].keys() | headers["old"].keys():
        before, after = headers["old"].get(name), headers["new"].get(name)
        if before is not None and before == after:
            continue  # a header line changed in the body written on it, not the signature
        if ((before is None and name in added_or_removed["new"])
                or (after is None and name in added_or_removed["old"])):
            continue  # a definition added (removed) but for its last line: git left a "}"
        if (language == "python" and before is not None and after is not None
                and strip_annotations(before) == strip_annotations(after)):
            typed_only.add(name)  # the call is unchanged: only its types
        else:
            tags.add("signature_change")
    if typed_only and "signature_change" not in tags and all(
            changed_lines[key] <= {n for name in typed_only
                                   for n in header_lines[key].get(name, ())}
            for key in ("new", "old")):
        tags.add("annotations_only")  # nothing but annotations changed in this unit


def enclosing_tags(
    plus_code: list[tuple[int, str]],
    minus_code: list[tuple[int, str]],
    old: DefinitionLookup | None,
    new: DefinitionLookup | None,
    tags: set[str],
    functions: list[str],
    scopes: dict[tuple[str, str], Scope],
) -> None:
    """Innermost definitions around the non-blank changed lines; one function -> tag."""
    enclosing: set[str | None] = set()
    for lookup, changed in ((new, plus_code), (old, minus_code)):
        if lookup is None:
            continue
        seen: set[Definition] = set()
        previous: Definition | None = None
        numbers = list(map(NUMBER, changed))
        # In file order (as a unit's lines are), the lines up to where the answer may change
        # have the answer of the first of them: they are passed over at once.
        ascending = numbers == sorted(numbers)
        index, size = 0, len(numbers)
        while index < size:
            inner, until = lookup.enclosing_run(numbers[index])
            index = bisect.bisect_left(numbers, until, index + 1) if ascending else index + 1
            if inner is not None and inner is previous:
                continue  # the line before's answer: nothing new to note
            previous = inner
            enclosing.add(inner.qualified_name if inner and inner.kind in FUNCTION_KINDS
                          else None)
            if inner is not None:
                functions.append(inner.qualified_name)
                if inner not in seen:
                    seen.add(inner)
                    chain = lookup.containing(inner.header_line)
                    _add_scope(scopes, lookup, inner, "encloses")
                    for outer in chain:
                        if outer is not inner and outer.contains(inner.start_line,
                                                                 inner.end_line):
                            _add_scope(scopes, lookup, outer, "outer")
    if len(enclosing) == 1 and None not in enclosing:
        tags.add("in_single_function")
