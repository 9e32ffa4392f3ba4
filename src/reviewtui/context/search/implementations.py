"""Which types implement or extend an interface / base class: the syntax side of the search.

A changed interface or base class affects every type that implements it, so the review needs
them. Explicit inheritance is read from the syntax tree at a hit of the base name (Python class
bases, Java/TypeScript ``extends``/``implements``, Ruby ``< Base`` and ``include``/``extend``/
``prepend``, Rust ``impl Trait for Type``, C++ base classes, C# base lists, PHP ``extends``/
``implements``/``use Trait``, Kotlin supertypes); other languages get a one-line regex. Go
interfaces are satisfied implicitly, so for Go the interface's method names are read from its
declaration and a type implements it when it declares every one of them (methods are matched by
name, not by signature).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from tree_sitter import Node

from reviewtui.code.lines import node_text
from reviewtui.code.shapes import go_receiver_type, rust_impl_type
from reviewtui.context.search.references import (
    SourceFile,
    ancestors,
    boundary_columns,
    in_field,
)
from reviewtui.context.search.side import GrepLine
from reviewtui.context.search.syntax import IDENTIFIER_TYPES

_HERITAGE = frozenset({
    "superclass", "super_interfaces", "extends_interfaces",  # Java (superclass: Ruby too)
    "class_heritage", "extends_clause", "implements_clause", "extends_type_clause",  # JS/TS
    "base_class_clause",  # C++
    "base_list",  # C#
    "base_clause", "class_interface_clause", "use_declaration",  # PHP (``use`` in a class)
    "delegation_specifiers",  # Kotlin
})
_OWNERS = frozenset({
    "class_definition", "class_declaration", "abstract_class_declaration",
    "interface_declaration", "enum_declaration", "record_declaration", "class", "module",
    "class_specifier", "struct_specifier", "struct_declaration", "object_declaration",
})
_STOP = frozenset({
    "block", "class_body", "body_statement", "statement_block", "interface_body", "enum_body",
    "type_arguments", "type_parameters", "keyword_argument", "lambda", "call_expression",
    "arguments",
})
_MIXINS = frozenset({b"include", b"extend", b"prepend"})
_FALLBACK = re.compile(
    r"\b(?:class|struct|object|record|enum|interface|trait|protocol|extension)\s+(\w+)"
    r"[^{]*?(?::|\bextends\b|\bimplements\b|\bwith\b|<)"
)


def _name_of(node: Node | None) -> str | None:
    if node is None:
        return None
    name = node.child_by_field_name("name")
    return (name.text or b"").decode("utf-8", "replace") if name is not None else None


def _owner_above(node: Node) -> str | None:
    return next((_name_of(a) for a in ancestors(node) if a.type in _OWNERS), None)


def _qualifier_part(line: bytes, end: int) -> bool:
    """True if the name at ``[..end)`` is followed by ``.`` / ``::`` (a qualifier, not a base)."""
    rest = line[end:].lstrip()
    return rest.startswith((b".", b"::"))


def _heritage_owner(node: Node) -> str | None:
    child = node
    for parent in ancestors(node):
        kind = parent.type
        if kind in _STOP:
            return None
        if kind == "subscript" and in_field(parent, child, ("subscript",)):
            return None  # Python ``Generic[Base]``: a type argument, not the base
        if kind == "argument_list" and parent.parent is not None:
            owner = parent.parent
            if owner.type == "class_definition" and in_field(owner, parent, ("superclasses",)):
                return _name_of(owner)
            method = owner.child_by_field_name("method")
            if (owner.type == "call" and owner.child_by_field_name("receiver") is None
                    and method is not None and method.text in _MIXINS):
                return _owner_above(owner)  # Ruby ``include Base`` inside a class/module
            return None
        if kind in _HERITAGE:
            return _owner_above(parent)
        if kind == "impl_item":  # Rust ``impl Trait for Type``: Type implements Trait
            implementor = rust_impl_type(parent)
            return node_text(implementor) if implementor is not None and in_field(
                parent, child, ("trait",)) else None
        if kind in _OWNERS:
            return None
        child = parent
    return None


def heritage_owner(source: SourceFile | None, number: int, grep_text: str,
                   name: str) -> str | None:
    """The type on line ``number`` that extends/implements/includes ``name``, if any."""
    raw = name.encode("utf-8")
    if source is not None and source.tree is not None:
        line = source.line(number)
        for col in boundary_columns(line, raw):
            if _qualifier_part(line, col + len(raw)):
                continue
            node = source.node_at(number, col, len(raw))
            if node is None or node.type not in IDENTIFIER_TYPES or node.text != raw:
                continue
            owner = _heritage_owner(node)
            if owner is not None and owner != name:
                return owner
        return None
    text = source.line(number).decode("utf-8", "replace") if source is not None else grep_text
    found = _FALLBACK.search(text)
    if found is None or found.group(1) == name:
        return None
    tail = text[found.end() - 1 :].encode("utf-8")
    if any(not _qualifier_part(tail, c + len(raw)) for c in boundary_columns(tail, raw)):
        return found.group(1)
    return None


# --- Go ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class GoMethod:
    receiver: str
    name: str
    line: int


def go_interface_methods(source: SourceFile, name: str) -> tuple[str, ...] | None:
    """Method names of ``type <name> interface {...}`` in this file; None if not declared here."""
    tree = source.tree
    if tree is None:
        return None
    for decl in tree.root_node.named_children:
        if decl.type != "type_declaration":
            continue
        for spec in decl.named_children:
            inner = spec.child_by_field_name("type")
            if spec.type != "type_spec" or _name_of(spec) != name or inner is None:
                continue
            if inner.type != "interface_type":
                return None
            return tuple(
                n for n in (_name_of(m) for m in inner.named_children
                            if m.type in ("method_elem", "method_spec")) if n)
    return None


def go_methods(source: SourceFile) -> list[GoMethod]:
    """Every method declaration (with a receiver) in a Go file."""
    tree = source.tree
    if tree is None:
        return []
    found: list[GoMethod] = []
    for node in tree.root_node.named_children:
        if node.type != "method_declaration":
            continue
        receiver, name = go_receiver_type(node), _name_of(node)
        if receiver and name:
            found.append(GoMethod(receiver, name, node.start_point[0] + 1))
    return found


def go_type_line(source: SourceFile, name: str) -> int | None:
    """The line of ``type <name> ...`` in this file, if declared here."""
    tree = source.tree
    if tree is None:
        return None
    for decl in tree.root_node.named_children:
        if decl.type == "type_declaration":
            for spec in decl.named_children:
                if spec.type in ("type_spec", "type_alias") and _name_of(spec) == name:
                    return int(spec.start_point[0]) + 1
    return None


Grep = Callable[[Sequence[str], Sequence[str]], list[GrepLine]]
Read = Callable[[str], SourceFile | None]
_GO_FILES = (":(glob)**/*.go",)


def _type_anchor(read: Read, name: str, paths: Iterable[str]) -> tuple[str, int] | None:
    """(path, line) of ``type <name>`` in the first of ``paths`` declaring it."""
    for path in dict.fromkeys(paths):
        source = read(path)
        line = go_type_line(source, name) if source is not None else None
        if line is not None:
            return path, line
    return None


def go_implementations(methods: Sequence[str], grep: Grep, read: Read) -> list[tuple[str, int]]:
    """(path, line) of each Go type (per package directory) declaring every one of ``methods``.

    One grep finds the receivers (``) Name(``); the anchor is the type's declaration when it is
    in one of the method files, else one more grep looks for it in the package, else the first
    method.
    """
    wanted = set(methods)
    if not wanted:
        return []
    by_type: dict[tuple[str, str], dict[str, tuple[str, int]]] = {}
    for path in dict.fromkeys(g.path for g in grep([f") {m}(" for m in methods], _GO_FILES)):
        source = read(path)
        package = str(PurePosixPath(path).parent)
        for method in go_methods(source) if source is not None else []:
            if method.name in wanted:
                by_type.setdefault((package, method.receiver), {}).setdefault(
                    method.name, (path, method.line))
    types = {key: sorted(declared.values()) for key, declared in by_type.items()
             if wanted <= declared.keys()}
    anchors = {key: _type_anchor(read, key[1], [p for p, _ in declared])
               for key, declared in types.items()}
    missing = sorted(key for key, anchor in anchors.items() if anchor is None)
    if missing:
        patterns = [f"type {r} " for _, r in missing] + [f"\t{r} " for _, r in missing]
        by_dir: dict[str, set[str]] = {}
        for hit in grep(patterns, _GO_FILES):
            by_dir.setdefault(str(PurePosixPath(hit.path).parent), set()).add(hit.path)
        for key in missing:
            anchors[key] = _type_anchor(read, key[1], sorted(by_dir.get(key[0], ())))
    return [anchors[key] or declared[0] for key, declared in types.items()]
