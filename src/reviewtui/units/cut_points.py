"""Where an oversized hunk is best cut: before whole definitions, with their doc comments.

A hunk larger than a unit (a new 2,000-line file) is split (``units.grouping``). Cutting where a
top-level definition starts keeps functions whole, but in Java, C#, Kotlin, and in many PHP and
TypeScript files, the class is the only top-level definition: its start is the first line of the
file's code and its body has no top-level starts, so the pieces fell at blank lines, halfway
through methods. The members of a container too large to be one unit (methods, constructors,
nested types) are cut points as well, at every depth. A definition's doc comment (a Javadoc, a
``///`` block, ``#`` lines above a function) belongs to it: the cut is made above the comment.

A JavaScript/TypeScript spec file is ``describe`` and ``it`` calls, no definitions: there the
statements of the file and of its long test callbacks are the cut points
(``code.spec_calls``), and definitions inside a test call's callback are none.

Only asked about when a hunk is oversized, so the common path never pays for it.
"""

from __future__ import annotations

import bisect

from reviewtui.code import FileStructure
from reviewtui.code.kinds import CONTAINER_KINDS
from reviewtui.code.languages import SPEC_LANGUAGES


def cut_points(structure: FileStructure | None, max_lines: int) -> frozenset[int]:
    """Lines of ``structure``'s version (the new one; the old one for a hunk that only removes
    lines, a deleted file) before which an oversized hunk is best cut.

    The starts of top-level definitions (a definition directly in a namespace counting as
    top-level: C++, C#, PHP, Rust modules) and of the definitions directly in a container
    (class, interface, namespace...) spanning more than ``max_lines`` lines, each moved up over
    the comment lines right above it.
    """
    if structure is None:
        return frozenset()
    # the containers whose direct members are cut points (a qualified name shared by two
    # containers, e.g. a partial class, opens both)
    opened = {d.qualified_name for d in structure.definitions if d.kind in CONTAINER_KINDS
              and (d.kind == "namespace" or d.end_line - d.start_line >= max_lines)}
    comments = structure.comment_lines
    points: set[int] = set()
    for definition in structure.definitions:
        if definition.parent is not None and definition.parent not in opened:
            continue
        start = definition.start_line
        while start - 1 in comments:
            start -= 1
        points.add(start)
    return frozenset(points)


def spec_cut_points(language: str | None, source: bytes | None,
                    structure: FileStructure | None, max_lines: int) -> frozenset[int]:
    """``cut_points`` of a test file's version ``source``: if it is a JavaScript/TypeScript
    spec, the starts of its test blocks (``code.spec_calls``) and those of its definitions
    outside its top-level test calls."""
    defined = cut_points(structure, max_lines)
    if language not in SPEC_LANGUAGES or source is None:
        return defined
    from reviewtui.code.spec_calls import spec_blocks  # a parser: loaded when asked for

    blocks = spec_blocks(language, source, max_lines)
    if blocks is None:
        return defined
    firsts = [first for first, _ in blocks.spans]
    outside: set[int] = set()
    for point in defined:
        i = bisect.bisect_left(firsts, point) - 1  # the last test call starting before it
        if i < 0 or blocks.spans[i][1] < point:
            outside.add(point)
    return blocks.starts | outside
