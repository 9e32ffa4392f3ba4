"""Where C and C++ put a function's name: deep in its declarator, or nowhere at all.

``int *Widget::make(...)`` is named ``make`` of ``Widget``, three declarators down; a prototype
is a declaration whose declarator is a function's, and only outside bodies (``Foo x(a);`` in a
body is a variable); a conversion operator (``operator bool()``) has no function declarator; a
specialisation's ``Widget<int>`` is ``Widget``. Split from ``shapes`` because these grammars
need a walk of their own that no other language does; ``shapes`` turns what is found here into
a :class:`~reviewtui.code.shapes.Shape`. ``dotted`` (``a::B``, PHP's ``a\\B`` -> ``a.B``) also
names namespaces there. Only the node and its immediate surroundings are read.
"""

from __future__ import annotations

from tree_sitter import Node

from reviewtui.code.lines import node_text

__all__ = ["c_name", "dotted", "function_declarator", "operator_cast", "plain_name",
           "prototype_owner"]

# C/C++ declarators around the one that names a function: ``*f(...)``, ``&f(...)``.
_DECLARATOR_WRAPPERS = frozenset({"pointer_declarator", "reference_declarator",
                                  "attributed_declarator"})
_FUNCTION_NAMES = frozenset({"identifier", "field_identifier", "qualified_identifier",
                             "destructor_name", "operator_name", "template_function",
                             "operator_cast"})
_PROTOTYPE_OWNERS = frozenset({"declaration", "field_declaration"})
_NAMESPACE_SEPARATORS = ("::", "\\")


def dotted(text: str) -> str:
    for separator in _NAMESPACE_SEPARATORS:
        text = text.replace(separator, ".")
    return text.strip(".")


def function_declarator(node: Node) -> Node | None:
    """The ``function_declarator`` of a C/C++ function definition or declaration."""
    current = node.child_by_field_name("declarator")
    while current is not None and current.type in _DECLARATOR_WRAPPERS:
        current = current.child_by_field_name("declarator") or next(
            (c for c in current.named_children if c.type.endswith("declarator")), None)
    return current if current is not None and current.type == "function_declarator" else None


def c_name(declarator: Node) -> tuple[str, str, Node] | None:
    """(qualifier, name, name node) of a function declarator: ``a::B::f`` -> (a.B, f)."""
    target = declarator.child_by_field_name("declarator")
    if target is None or target.type not in _FUNCTION_NAMES:
        return None
    scopes: list[str] = []
    while target.type == "qualified_identifier":
        scope, inner = target.child_by_field_name("scope"), target.child_by_field_name("name")
        if inner is None:
            return None
        if scope is not None:  # ``Widget<T>::draw``: a method of ``Widget``
            scopes.append(node_text(plain_name(scope)))
        target = inner
    if target.type == "template_function":
        name = target.child_by_field_name("name")
        target = name if name is not None else target
    return dotted(".".join(scopes)), node_text(target), target


def prototype_owner(declarator: Node) -> Node | None:
    """The declaration a function declarator declares, if it is a prototype outside bodies."""
    owner = declarator.parent
    while owner is not None and owner.type in _DECLARATOR_WRAPPERS:
        owner = owner.parent
    if owner is None or owner.type not in _PROTOTYPE_OWNERS:
        return None
    if owner.parent is None or owner.parent.type == "compound_statement":
        return None  # ``Foo x(a);`` in a body is far more often a variable than a prototype
    found = function_declarator(owner)
    if found is None or found.id != declarator.id:
        return None
    if owner.child_by_field_name("type") is None and not _constructor_like(owner, declarator):
        return None  # ``PYBIND11_TYPE_CASTER(T, ...);``: a macro call, not a declaration
    return owner


def _constructor_like(owner: Node, declarator: Node) -> bool:
    """A declaration without a type declares a constructor or destructor of its class."""
    target = declarator.child_by_field_name("declarator")
    if target is None:
        return False
    if target.type == "destructor_name":
        return True
    body = owner.parent
    owning = body.parent if body is not None and body.type == "field_declaration_list" else None
    name = owning.child_by_field_name("name") if owning is not None else None
    return name is not None and node_text(plain_name(name)) == node_text(target)


def operator_cast(node: Node) -> tuple[str, str, Node] | None:
    """(qualifier, name, name node) of a C++ conversion operator, which has no function
    declarator: ``explicit operator bool() const`` in its class, ``A::operator int()`` out of
    it. Named ``operator bool`` (its type is its name)."""
    target = node.child_by_field_name("declarator")
    scopes: list[str] = []
    while target is not None and target.type == "qualified_identifier":
        scope = target.child_by_field_name("scope")
        if scope is not None:
            scopes.append(node_text(plain_name(scope)))
        target = target.child_by_field_name("name")
    if target is None or target.type != "operator_cast":
        return None
    cast = target.child_by_field_name("type")
    if cast is None:
        return None
    return dotted(".".join(scopes)), f"operator {' '.join(node_text(cast).split())}", target


def plain_name(name: Node) -> Node:
    """``Widget`` of a C++ specialisation's ``Widget<int>``."""
    if name.type == "template_type":
        return name.child_by_field_name("name") or name
    return name
