"""Turn comment and import nodes into sets of 1-based line numbers.

Review rules want to know whether a changed line is "only a comment" or "only
an import".  A comment node makes a line a comment line only if nothing else
(apart from whitespace and other comments) is on it, so trailing comments
after code do not count.  Positions are tree-sitter byte columns.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node


def node_text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def end_row(node: Node) -> int:
    """0-based row of the node's last character (a node ending in a newline ends on
    the previous row)."""
    row, col = node.end_point
    if col == 0 and row > node.start_point[0]:
        return row - 1
    return int(row)


def comment_lines(nodes: Iterable[Node], lines: list[bytes]) -> frozenset[int]:
    """1-based lines whose non-whitespace content is covered by ``nodes``."""
    result: set[int] = set()
    partial: dict[int, list[tuple[int, int]]] = {}
    for node in nodes:
        (r0, c0), (r1, c1) = node.start_point, node.end_point
        if r0 == r1:
            partial.setdefault(r0, []).append((c0, c1))
            continue
        partial.setdefault(r0, []).append((c0, 1 << 62))
        result.update(range(r0 + 2, r1 + 1))  # fully covered middle rows, 1-based
        partial.setdefault(r1, []).append((0, c1))
    for row, spans in partial.items():
        if row >= len(lines):
            continue
        text = lines[row]
        if len(spans) == 1:  # the usual: one comment on the row
            a, b = spans[0]
            if not (text[:a].strip() or text[b:].strip()):
                result.add(row + 1)
            continue
        pos = 0
        rest = bytearray()
        for a, b in sorted(spans):
            if a > pos:
                rest += text[pos:a]
            pos = max(pos, b)
        rest += text[pos:]
        if not rest.strip():
            result.add(row + 1)
    return frozenset(result)


def node_lines(nodes: Iterable[Node]) -> frozenset[int]:
    """1-based lines spanned by ``nodes``."""
    result: set[int] = set()
    for node in nodes:
        result.update(range(node.start_point[0] + 1, end_row(node) + 2))
    return frozenset(result)
