"""``DefinitionLookup`` answers as its ``FileStructure`` does, for every line and range.

It keeps one answer per stretch of lines between places where a definition starts or ends;
random nests of definitions (overlapping ones, one ending where another starts, one object
twice) check that no line of a stretch would have had another answer.
"""

from __future__ import annotations

import random

from reviewtui.code import Definition, FileStructure
from reviewtui.units.definition_lookup import DefinitionLookup, lookup_for


def _structure(rng: random.Random, count: int, *, twice: bool = False) -> FileStructure:
    definitions: list[Definition] = []
    for number in range(count):
        start = rng.randrange(1, 40)
        end = start + rng.randrange(-1, 15)
        definitions.append(Definition(rng.choice(["function", "class", "method"]),
                                      f"d{number}", f"q.d{number}", start, end,
                                      min(end, start + rng.randrange(3)), start, None, (),
                                      f"def d{number}()"))
    if twice and definitions:
        definitions.append(definitions[0])
    return FileStructure("python", 60, tuple(definitions), frozenset(), frozenset(), False)


def test_answers_as_the_structure_does() -> None:
    rng = random.Random(19)
    for trial in range(300):
        structure = _structure(rng, rng.randrange(0, 9), twice=trial % 7 == 0)
        lookup = DefinitionLookup(structure)
        lines = list(range(0, 62))
        rng.shuffle(lines)
        for line in lines:
            assert lookup.containing(line) == structure.containing(line)
            assert lookup.enclosing(line) == structure.enclosing(line)
            inner, until = lookup.enclosing_run(line)
            assert until > line
            assert all(structure.enclosing(later) is inner
                       for later in range(line, min(until, 70)))
        for _ in range(40):
            start, end = rng.randrange(0, 62), rng.randrange(0, 62)
            assert lookup.defined_in(start, end) == structure.defined_in(start, end)
            low, high = min(start, end), max(start, end)
            assert lookup.starting_in(low, high) == tuple(
                d for d in structure.definitions if low <= d.start_line <= high)


def test_a_file_versions_lookup_is_kept() -> None:
    rng = random.Random(5)
    old, new, other = (_structure(rng, 4) for _ in range(3))
    assert lookup_for(old) is lookup_for(old)
    kept = lookup_for(new)
    assert lookup_for(old).structure is old and lookup_for(new) is kept
    assert lookup_for(other).structure is other


def test_a_definitions_scope_is_made_once_per_role() -> None:
    structure = _structure(random.Random(3), 3)
    lookup = DefinitionLookup(structure)
    first = structure.definitions[0]
    scope = lookup.scope(first, "encloses")
    assert lookup.scope(first, "encloses") is scope
    assert (scope.kind, scope.name, scope.qualified_name, scope.role, scope.signature,
            scope.start_line, scope.end_line) == (first.kind, first.name, first.qualified_name,
                                                  "encloses", first.signature,
                                                  first.start_line, first.end_line)
    assert lookup.scope(first, "outer").role == "outer"
