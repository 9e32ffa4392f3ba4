"""Where an oversized hunk is best cut: before whole definitions, with their doc comments.

A hunk larger than a unit (a new 2,000-line file) is split (``units.grouping``). Cutting where a
top-level definition starts keeps functions whole, but in Java, C#, Kotlin, and in many PHP and
TypeScript files, the class is the only top-level definition: its start is the first line of the
file's code and its body has no top-level starts, so the pieces fell at blank lines, halfway
through methods. The members of a container too large to be one unit (methods, constructors,
nested types) are cut points as well, at every depth. A definition's doc comment (a Javadoc, a
``///`` block, ``#`` lines above a function) belongs to it: the cut is made above the comment.

Only asked about when a hunk is oversized, so the common path never pays for it.
"""

from __future__ import annotations

from reviewtui.code import FileStructure
from reviewtui.code.kinds import CONTAINER_KINDS


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
