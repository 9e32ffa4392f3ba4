"""Build :class:`Definition` values from the definition nodes a query captured.

The query finds the nodes; this module works out what a reviewer sees as the
definition: its full line range (decorators, annotations and ``export``
included), its header line and text, its decorators, and its dotted name
through the enclosing definitions.  Only the captured nodes and their
immediate neighbours are touched, never the whole tree.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from reviewtui.code.lines import end_row
from reviewtui.code.structure import Definition

_DECORATOR_TYPES = frozenset({"decorator", "marker_annotation", "annotation"})
_COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment"})
_CLASS_LIKE = frozenset({"class", "interface", "struct", "enum", "module"})
_DECORATABLE = frozenset({"class_declaration", "abstract_class_declaration", "method_definition"})
_WRAPPERS = frozenset({"decorated_definition", "export_statement"})
_VAR_STATEMENTS = frozenset({"lexical_declaration", "variable_declaration"})
_HEADER_PUNCTUATION = frozenset({":", "="})


@dataclass(slots=True)
class _Raw:
    kind: str
    name: str
    prefix: str  # Go receiver type, prepended to the qualified name
    start_byte: int  # whole definition, decorators and export included
    end_byte: int
    node_start: int  # the definition node itself; nested definitions lie inside it
    node_end: int
    start_line: int
    end_line: int
    signature_end_line: int
    header_line: int
    decorators: tuple[str, ...]
    signature: str

    def encloses(self, other: _Raw) -> bool:
        return self.node_start <= other.start_byte and other.end_byte <= self.node_end


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _spans_text(source: bytes, start: int, end: int, holes: list[tuple[int, int]]) -> str:
    """Text of ``source[start:end]`` without ``holes``, whitespace collapsed."""
    parts: list[bytes] = []
    pos = start
    for h0, h1 in sorted(holes):
        if h1 <= pos or h0 >= end:
            continue
        parts.append(source[pos:h0])
        pos = max(pos, h1)
    parts.append(source[pos:end])
    return " ".join(b" ".join(parts).decode("utf-8", "replace").split())


def _body(node: Node, value: Node | None) -> Node | None:
    """The node where the definition's body starts, if it has one."""
    if value is not None:  # JS/TS ``const f = () => ...``
        return value.child_by_field_name("body")
    if node.type == "type_alias_declaration":
        return node.child_by_field_name("value")
    if node.type in ("type_spec", "type_alias"):
        inner = node.child_by_field_name("type")
        if inner is None:
            return None
        if inner.type == "struct_type":
            return next(
                (c for c in inner.named_children if c.type == "field_declaration_list"), None
            )
        if inner.type == "interface_type":
            return next((c for c in inner.children if c.type == "{"), None)
        return None
    return node.child_by_field_name("body")


def _header_end(node: Node, body: Node | None, source: bytes) -> tuple[int, int]:
    """(byte where the header text ends, 0-based row of the last header line)."""
    if body is None:
        last = next(
            (c for c in reversed(node.named_children) if c.type not in _COMMENT_TYPES), None
        )
        if last is None:
            return node.end_byte, end_row(node)
        return last.end_byte, end_row(last)
    prev = body.prev_sibling
    while prev is not None and prev.type in _COMMENT_TYPES:
        prev = prev.prev_sibling
    if source[body.start_byte : body.start_byte + 1] == b"{" or prev is None:
        row = int(body.start_point[0])
    else:
        row = end_row(prev)
    while prev is not None and (
        prev.type in _COMMENT_TYPES or (not prev.is_named and prev.type in _HEADER_PUNCTUATION)
    ):
        prev = prev.prev_sibling
    return (prev.end_byte if prev is not None else body.start_byte), row


def _decorator_nodes(node: Node, outer: Node) -> list[Node]:
    found: list[Node] = []
    if outer is not node:  # Python decorated_definition, JS/TS export_statement
        found += [c for c in outer.children if c.type in _DECORATOR_TYPES]
    if node.type in _DECORATABLE:  # JS/TS: decorators are children of the class/method
        found += [c for c in node.children if c.type in _DECORATOR_TYPES]
    first = node.child(0)
    if first is not None and first.type == "modifiers":  # Java annotations
        found += [c for c in first.children if c.type in _DECORATOR_TYPES]
    if node.type == "method_definition":
        # TypeScript puts member decorators before the member, as siblings.
        sib = node.prev_named_sibling
        while sib is not None and (sib.type == "decorator" or sib.type in _COMMENT_TYPES):
            if sib.type == "decorator":
                found.append(sib)
            sib = sib.prev_named_sibling
    if len(found) > 1:
        found.sort(key=lambda d: d.start_byte)
    return found


def _receiver_type(node: Node, source: bytes) -> str:
    """Go receiver type name without pointer or type arguments: ``(f *Foo[T])`` -> Foo."""
    recv = node.child_by_field_name("receiver")
    params = recv.named_children if recv is not None else []
    param = next((c for c in params if c.type == "parameter_declaration"), None)
    t = param.child_by_field_name("type") if param is not None else None
    while t is not None and t.type in ("pointer_type", "generic_type", "parenthesized_type"):
        if t.type == "generic_type":
            t = t.child_by_field_name("type")
        else:
            t = t.named_children[-1] if t.named_children else None
    return _text(source, t) if t is not None else ""


def _go_type_kind(node: Node) -> str:
    inner = node.child_by_field_name("type")
    if node.type == "type_spec" and inner is not None:
        if inner.type == "struct_type":
            return "struct"
        if inner.type == "interface_type":
            return "interface"
    return "type"


def _raw(capture: str, node: Node, source: bytes) -> _Raw | None:
    kind = capture[4:]
    name_node = node.child_by_field_name("name")
    if name_node is None:
        return None
    outer, sig_start, value, prefix = node, node.start_byte, None, ""
    holes: list[tuple[int, int]] = []
    parent = node.parent
    if kind == "var":
        kind, value = "function", node.child_by_field_name("value")
        if parent is not None and parent.type in _VAR_STATEMENTS:
            outer, sig_start = parent, parent.start_byte
            keyword = parent.children[0]
            holes.append((keyword.end_byte, node.start_byte))
            parent = parent.parent
    elif kind == "gotype":
        kind = _go_type_kind(node)
        if parent is not None and parent.type == "type_declaration":
            specs = [c for c in parent.named_children if c.type not in _COMMENT_TYPES]
            if len(specs) == 1:
                outer, sig_start = parent, parent.start_byte
    elif node.type == "method_declaration" and node.child_by_field_name("receiver"):
        prefix = _receiver_type(node, source)
    if parent is not None and parent.type in _WRAPPERS:
        outer = parent
    decorators = _decorator_nodes(node, outer)
    holes.extend((d.start_byte, d.end_byte) for d in decorators)
    body = _body(node, value)
    header_end, sig_row = _header_end(node, body, source)
    start_byte, start_point = outer.start_byte, outer.start_point
    if decorators and decorators[0].start_byte < start_byte:
        start_byte, start_point = decorators[0].start_byte, decorators[0].start_point
    return _Raw(
        kind=kind,
        name=_text(source, name_node),
        prefix=prefix,
        start_byte=start_byte,
        end_byte=outer.end_byte,
        node_start=node.start_byte,
        node_end=node.end_byte,
        start_line=start_point[0] + 1,
        end_line=end_row(outer) + 1,
        signature_end_line=sig_row + 1,
        header_line=name_node.start_point[0] + 1,
        decorators=tuple(_text(source, d).strip() for d in decorators),
        signature=_spans_text(source, sig_start, header_end, holes),
    )


def build_definitions(captures: dict[str, list[Node]], source: bytes) -> tuple[Definition, ...]:
    """Definitions for every ``def.*`` capture, sorted by position, names qualified."""
    raws: dict[tuple[int, int, int], _Raw] = {}
    for capture, nodes in captures.items():
        if not capture.startswith("def."):
            continue
        for node in nodes:
            raw = _raw(capture, node, source)
            if raw is not None:
                raws.setdefault((node.start_byte, node.end_byte, node.kind_id), raw)
    ordered = sorted(raws.values(), key=lambda r: (r.start_byte, -r.end_byte))
    result: list[Definition] = []
    stack: list[tuple[_Raw, Definition]] = []
    for raw in ordered:
        while stack and not stack[-1][0].encloses(raw):
            stack.pop()
        parent = stack[-1][1] if stack else None
        kind = raw.kind
        if kind == "function" and parent is not None and parent.kind in _CLASS_LIKE:
            kind = "method"
        scope = parent.qualified_name if parent is not None else raw.prefix
        definition = Definition(
            kind=kind,
            name=raw.name,
            qualified_name=f"{scope}.{raw.name}" if scope else raw.name,
            start_line=raw.start_line,
            end_line=raw.end_line,
            signature_end_line=max(raw.signature_end_line, raw.start_line),
            header_line=min(max(raw.header_line, raw.start_line),
                            max(raw.signature_end_line, raw.start_line)),
            parent=parent.qualified_name if parent is not None else None,
            decorators=raw.decorators,
            signature=raw.signature,
        )
        result.append(definition)
        stack.append((raw, definition))
    return tuple(result)
