"""C++ member access: which ``public:`` / ``protected:`` / ``private:`` section a member is in.

Other languages write a member's visibility on the member (``public void run()``), so it is in
the member's signature; C++ writes it once for a section. ``MemberAccess`` finds the section of
a member and ``definitions`` puts it in front of the member's signature (``public: void
draw()``), so the rules read C++ visibility like any other. The labels of one class body are
collected once, however many of its members ask.
"""

from __future__ import annotations

import bisect

from tree_sitter import Node

from reviewtui.code.lines import node_text

_DEFAULT_ACCESS = {"class_specifier": "private", "struct_specifier": "public",
                   "union_specifier": "public"}
_MEMBER_WRAPPERS = frozenset({"field_declaration", "declaration"})


class MemberAccess:
    """Access sections of the C++ class bodies of one parse (a cache of one build)."""

    def __init__(self) -> None:
        self._labels: dict[int, tuple[list[int], list[str], str]] = {}

    def _sections(self, body: Node, default: str) -> tuple[list[int], list[str], str]:
        known = self._labels.get(body.id)
        if known is None:
            starts: list[int] = []
            names: list[str] = []
            for child in body.named_children:
                if child.type == "access_specifier":
                    starts.append(child.start_byte)
                    names.append(node_text(child).strip())
            known = self._labels[body.id] = (starts, names, default)
        return known

    def of(self, member: Node) -> str | None:
        """``public``/``protected``/``private`` for a member of a C++ class body, else None."""
        node = member
        parent = node.parent
        if parent is not None and parent.type in _MEMBER_WRAPPERS:
            node, parent = parent, parent.parent  # a nested class: ``class Inner {...};``
        if parent is None or parent.type != "field_declaration_list":
            return None
        owner = parent.parent
        default = _DEFAULT_ACCESS.get(owner.type) if owner is not None else None
        if default is None:
            return None
        starts, names, default = self._sections(parent, default)
        if not starts:
            return default if owner is not None and owner.type == "class_specifier" else None
        i = bisect.bisect_right(starts, node.start_byte) - 1
        return names[i] if i >= 0 else default
