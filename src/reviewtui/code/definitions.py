"""Build :class:`Definition` values from the definition nodes a query captured.

The query finds the nodes; this module works out what a reviewer sees as the
definition: its full line range (decorators, annotations and ``export``
included), its header line and text, its decorators, and its dotted name
through the enclosing definitions.  Only the captured nodes and their
immediate neighbours are touched, never the whole tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Node

from reviewtui.code.access import MemberAccess
from reviewtui.code.kinds import CLASS_KINDS
from reviewtui.code.lines import end_row
from reviewtui.code.shapes import shape, wrapped
from reviewtui.code.structure import Definition, new_definition

_DECORATOR_TYPES = frozenset({"decorator", "marker_annotation", "annotation",
                              "attribute_list", "attribute_declaration"})
_COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment"})
# Decorators that are children of the definition node: JS/TS classes and methods, C#/PHP
# attribute lists, C++ ``[[attributes]]``.
_DECORATABLE = frozenset({"class_declaration", "abstract_class_declaration", "method_definition",
                          "method_declaration", "constructor_declaration", "function_definition",
                          "interface_declaration", "record_declaration", "struct_declaration",
                          "enum_declaration", "trait_declaration", "destructor_declaration",
                          "local_function_statement", "class_specifier", "struct_specifier",
                          "property_declaration"})
# Decorators that precede the definition as siblings: TypeScript members, Rust attributes.
_SIBLING_DECORATORS = frozenset({"decorator", "attribute_item"})
_SIBLING_DECORATED = frozenset({
    "method_definition", "function_item", "function_signature_item", "struct_item",
    "union_item", "enum_item", "impl_item", "trait_item", "mod_item", "macro_definition",
    "type_item", "const_item", "static_item"})
_BODY_TYPES = frozenset({"function_body", "class_body", "enum_class_body", "block"})
_HEADER_PUNCTUATION = frozenset({":", "="})
# Definition nodes whose body is not their ``body`` field (or a Kotlin body child).
_BODY_SHAPED = frozenset({"macro_definition", "preproc_function_def", "type_alias_declaration",
                          "property_declaration", "type_spec", "type_alias"})
_MACRO_OPENERS = frozenset({"{", "(", "["})


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
    if not holes:
        return " ".join(source[start:end].decode("utf-8", "replace").split())
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
    if value is not None:  # a bound function: ``const f = () => ...``, ``let f = |x| ...``
        if value.type == "lambda_literal":  # Kotlin ``{ x -> ... }`` is all body
            return value
        return value.child_by_field_name("body") or _body_child(value)
    kind = node.type
    if kind not in _BODY_SHAPED:
        return node.child_by_field_name("body") or _body_child(node)
    if kind == "macro_definition":  # Rust ``macro_rules! name {``
        return next((c for c in node.children if c.type in _MACRO_OPENERS), None)
    if kind == "preproc_function_def":  # C ``#define NAME(a, b) ...``
        return node.child_by_field_name("value")
    if kind == "type_alias_declaration":
        return node.child_by_field_name("value")
    if kind == "property_declaration" and node.child_by_field_name("type") is not None:
        # C# ``int Count { get {...} set {...} }`` or ``string Name => name;``: the accessors
        # are the body, the header is the type and the name
        accessors = node.child_by_field_name("accessors")
        value = node.child_by_field_name("value")
        return accessors or (value if value is not None
                             and value.type == "arrow_expression_clause" else None)
    if kind in ("type_spec", "type_alias"):
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
    return node.child_by_field_name("body") or _body_child(node)


def _body_child(node: Node) -> Node | None:
    """Kotlin: bodies are children without a field name."""
    return next((c for c in node.named_children if c.type in _BODY_TYPES), None)


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


def _decorator_nodes(node: Node, outer: Node, python: bool) -> list[Node]:
    """The decorators, annotations and attributes of a definition. ``python``: the parse is
    Python's, whose grammar gives decorators to ``decorated_definition`` only: its functions
    (a ``function_definition`` like C's and PHP's) need no look at their own children, which
    built a node for each of them (~2.5 us a function, 18,000 of them in Django 4.2 -> 5.2)."""
    found: list[Node] = []
    if outer is not node:  # Python decorated_definition, JS/TS export_statement
        found += [c for c in outer.children if c.type in _DECORATOR_TYPES]
    if python:
        return found
    kind = node.type
    if kind in _DECORATABLE:  # JS/TS: decorators are children of the class/method
        children = node.children
        found += [c for c in children if c.type in _DECORATOR_TYPES]
        first = children[0] if children else None
    else:
        first = node.child(0)
    if first is not None and first.type == "modifiers":  # Java annotations
        found += [c for c in first.children if c.type in _DECORATOR_TYPES]
    if kind in _SIBLING_DECORATED:
        # TypeScript members and Rust items: decorators and attributes are siblings before.
        sib = node.prev_named_sibling
        while sib is not None and (sib.type in _SIBLING_DECORATORS
                                   or sib.type in _COMMENT_TYPES):
            if sib.type in _SIBLING_DECORATORS:
                found.append(sib)
            sib = sib.prev_named_sibling
    if len(found) > 1:
        found.sort(key=lambda d: d.start_byte)
    return found


def _raw(capture: str, node: Node, source: bytes, access: MemberAccess | None,
         python: bool) -> _Raw | None:
    """``access``: the C++ member sections of the parse (None: its grammar has none)."""
    found = shape(capture[4:], node)
    if found is None:
        return None
    found = wrapped(found)
    node, outer = found.node, found.outer
    decorators = _decorator_nodes(node, outer, python)
    holes = (found.holes + [(d.start_byte, d.end_byte) for d in decorators] if decorators
             else found.holes)
    body = _body(node, found.value)
    header_end, sig_row = _header_end(node, body, source)
    start_byte, start_point = outer.start_byte, outer.start_point
    if decorators and decorators[0].start_byte < start_byte:
        start_byte, start_point = decorators[0].start_byte, decorators[0].start_point
    signature = _spans_text(source, found.sig_start, header_end, holes)
    section = access.of(outer) if access is not None else None
    return _Raw(
        kind=found.kind,
        name=found.name,
        prefix=found.prefix,
        start_byte=start_byte,
        end_byte=outer.end_byte,
        node_start=node.start_byte,
        node_end=node.end_byte,
        start_line=start_point[0] + 1,
        end_line=end_row(outer) + 1,
        signature_end_line=sig_row + 1,
        header_line=found.name_row + 1,
        decorators=tuple([_text(source, d).strip() for d in decorators]) if decorators else (),
        signature=f"{section}: {signature}" if section else signature,
    )


def build_definitions(captures: dict[str, list[Node]], source: bytes,
                      rows: Sequence[int] | None = None, *,
                      language: str | None = None) -> tuple[Definition, ...]:
    """Definitions for every ``def.*`` capture, sorted by position, names qualified.

    ``rows``: ``source`` is a skeleton of a file, its line ``n`` the file's 0-based row
    ``rows[n - 1]``; the definitions are numbered as the file's lines (line ``n`` past the
    end as the last row). The numbering is increasing, so clamping before renumbering is
    clamping after it. ``language``: the grammar of the parse, if known.
    """
    raws: dict[tuple[int, int, int], _Raw] = {}
    python = language == "python"
    # Python has no C++ member sections (no ``field_declaration_list``): asking each
    # definition's parent cost ~3% of these definitions
    access = MemberAccess() if not python else None
    for capture, nodes in captures.items():
        if not capture.startswith("def."):
            continue
        for node in nodes:
            key = (node.start_byte, node.end_byte, node.kind_id)
            if key in raws:  # captured under an earlier name: the first reading stands
                continue
            raw = _raw(capture, node, source, access, python)
            if raw is not None:
                raws[key] = raw
    ordered = sorted(raws.values(), key=lambda r: (r.start_byte, -r.end_byte))
    result: list[Definition] = []
    stack: list[tuple[_Raw, Definition]] = []
    for raw in ordered:
        while stack and not stack[-1][0].encloses(raw):
            stack.pop()
        parent = stack[-1][1] if stack else None
        kind = raw.kind
        if kind == "function" and parent is not None and parent.kind in CLASS_KINDS:
            kind = "method"
        outer = parent.qualified_name if parent is not None else ""
        prefix = raw.prefix
        scope = f"{outer}.{prefix}" if outer and prefix else outer or prefix
        start = raw.start_line
        end = raw.end_line
        signature_end = max(raw.signature_end_line, start)
        header = min(max(raw.header_line, start), signature_end)
        if rows is not None:
            count = len(rows)
            start = rows[min(start, count) - 1] + 1
            end = rows[min(end, count) - 1] + 1
            signature_end = rows[min(signature_end, count) - 1] + 1
            header = rows[min(header, count) - 1] + 1
        definition = new_definition(
            kind, raw.name, f"{scope}.{raw.name}" if scope else raw.name, start, end,
            signature_end, header, parent.qualified_name if parent is not None else None,
            raw.decorators, raw.signature)
        result.append(definition)
        stack.append((raw, definition))
    return tuple(result)
