"""How each grammar shapes a definition: its name, the statement around it, its kind.

The structure query captures definition nodes; grammars disagree on where the name sits and
what surrounds the definition. A C function's name is deep in its declarator (``int
*Widget::make(...)``), a Rust impl block is named by its type, a closure is named by the
variable it is bound to, a C ``typedef struct {...} name;`` by the typedef, a Kotlin companion
object may have no name at all. ``shape`` turns a captured node into a :class:`Shape` that
``definitions`` builds on; only the node and its immediate surroundings are read. Where a C or
C++ declarator hides a function's name is ``c_declarators``'.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from reviewtui.code.c_declarators import (
    c_name,
    dotted,
    function_declarator,
    operator_cast,
    plain_name,
    prototype_owner,
)
from reviewtui.code.lines import node_text

_COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment"})
# Statements that wrap one definition and belong to its range (Python decorators, JS/TS
# ``export``, C++ ``template <...>``).
_WRAPPERS = frozenset({"decorated_definition", "export_statement", "template_declaration"})
_VAR_STATEMENTS = frozenset({"lexical_declaration", "variable_declaration"})
# Values that make a binding a definition: closures, lambdas, anonymous functions.
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "generator_function",
                              "closure_expression", "lambda_expression", "anonymous_function",
                              "lambda_literal"})
# A "function" named like a statement keyword is the parser recovering from code it could not
# read (``else if (x) {`` after an unknown macro), not a definition.
_C_KEYWORDS = frozenset({"if", "else", "for", "while", "do", "switch", "case", "return",
                         "sizeof", "goto", "catch", "defined"})


@dataclass(slots=True)
class Shape:
    """A definition as the grammar lays it out."""

    kind: str
    node: Node  # the definition node: nested definitions lie inside it
    name: str
    name_row: int  # 0-based row of the name
    outer: Node  # the whole statement: wrappers, ``typedef``, ``let``... included
    sig_start: int  # where the signature text starts
    value: Node | None = None  # a bound function: its body is the definition's body
    prefix: str = ""  # a qualifier written before the name (Go receiver, C++ ``Class::``)
    holes: list[tuple[int, int]] = field(default_factory=list)  # left out of the signature


def go_receiver_type(node: Node) -> str:
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
    return node_text(t) if t is not None else ""


def _go_type_kind(node: Node) -> str:
    inner = node.child_by_field_name("type")
    if node.type == "type_spec" and inner is not None:
        if inner.type == "struct_type":
            return "struct"
        if inner.type == "interface_type":
            return "interface"
    return "type"


def _c_function(kind: str, node: Node) -> Shape | None:
    declarator = function_declarator(node)
    named = c_name(declarator) if declarator is not None else operator_cast(node)
    if named is None:
        return None
    prefix, name, name_node = named
    if name in _C_KEYWORDS:
        return None
    if prefix and kind == "function":
        kind = "method"  # ``void Widget::draw() {...}``: defined outside its class
    return Shape(kind, node, name, name_node.start_point[0], node, node.start_byte,
                 prefix=prefix)


def _binding(node: Node) -> tuple[Node | None, Node | None, Node]:
    """(name node, function value, whole statement) of a variable bound to a function."""
    kind = node.type
    if kind == "let_declaration":  # Rust ``let f = |x| ...;``
        return node.child_by_field_name("pattern"), node.child_by_field_name("value"), node
    if kind == "init_declarator":  # C++ ``auto f = [](int x) {...};``
        parent = node.parent
        whole = parent if parent is not None and parent.type == "declaration" else node
        return node.child_by_field_name("declarator"), node.child_by_field_name("value"), whole
    if kind == "assignment_expression":  # PHP ``$f = function ($x) {...};``
        parent = node.parent
        whole = parent if parent is not None and parent.type == "expression_statement" else node
        return node.child_by_field_name("left"), node.child_by_field_name("right"), whole
    if kind == "property_declaration":  # Kotlin ``val f = { x -> ... }``
        variable = next((c for c in node.named_children if c.type == "variable_declaration"),
                        None)
        name = next((c for c in variable.named_children if c.type == "identifier"), None) \
            if variable is not None else None
        return name, _function_child(node), node
    # JS/TS and C# ``variable_declarator``
    value = node.child_by_field_name("value") or _function_child(node)
    whole = node
    parent = node.parent
    if parent is not None and parent.type == "variable_declaration" and value is not None \
            and value.type == "lambda_expression":  # C#: the local or field statement
        whole = parent.parent if parent.parent is not None else parent
    return node.child_by_field_name("name"), value, whole


def _function_child(node: Node) -> Node | None:
    return next((c for c in node.named_children if c.type in _FUNCTION_VALUES), None)


def _bound(node: Node) -> Shape | None:
    name, value, whole = _binding(node)
    if name is None or value is None or value.type not in _FUNCTION_VALUES:
        return None
    shape = Shape("function", node, node_text(name), name.start_point[0], whole,
                  whole.start_byte, value=value)
    parent = node.parent
    if node.type == "variable_declarator" and parent is not None \
            and parent.type in _VAR_STATEMENTS and whole is node and sum(
                1 for c in parent.named_children if c.type == "variable_declarator") == 1:
        # JS/TS ``const f = ...``: the statement is the definition. Of ``var a = function()
        # {...}, b = function() {...};`` each declarator is its own (jQuery's Sizzle): the
        # statement's span would give both names the same lines.
        shape.outer, shape.sig_start = parent, parent.start_byte
        shape.holes.append((parent.children[0].end_byte, node.start_byte))
    return shape


def rust_impl_type(node: Node) -> Node | None:
    """The type a Rust impl block is for: ``impl<T> Display for Wrapper<T>`` -> Wrapper."""
    target = node.child_by_field_name("type")
    while target is not None and target.type in ("generic_type", "scoped_type_identifier"):
        target = target.child_by_field_name("type" if target.type == "generic_type" else "name")
    return target


def _kotlin_class_kind(node: Node) -> str:
    if any(c.type == "interface" for c in node.children):
        return "interface"
    modifiers = next((c for c in node.children if c.type == "modifiers"), None)
    if modifiers is not None and any(node_text(c) == "enum" for c in modifiers.named_children):
        return "enum"
    return "class"


def _typedef_struct(node: Node) -> tuple[Node | None, Node]:
    """(name, outer) of a C struct: ``typedef struct {...} name_t;`` takes the typedef's name."""
    name = node.child_by_field_name("name")
    parent = node.parent
    if parent is None or parent.type != "type_definition":
        return name, node
    if name is None:
        name = parent.child_by_field_name("declarator")
        if name is not None and name.type != "type_identifier":
            name = None
    return name, parent


def _named(kind: str, node: Node, name: Node | None, outer: Node | None = None) -> Shape | None:
    if name is None:
        return None
    name = plain_name(name)
    whole = outer if outer is not None else node
    text = node_text(name)
    if kind == "namespace":
        text = dotted(text)
    elif node.type == "destructor_declaration":  # C# ``~Name()``
        text = f"~{text}"
    return Shape(kind, node, text, name.start_point[0], whole, whole.start_byte)


def shape(capture_kind: str, node: Node) -> Shape | None:
    """The shape of a definition the query captured as ``def.<capture_kind>``; None if the
    node is not a definition after all (a nameless struct, a function pointer...)."""
    kind, kind_type = capture_kind, node.type
    if kind == "var":
        return _bound(node)
    if kind == "declarator":  # a C/C++ prototype
        owner = prototype_owner(node)
        if owner is None:
            return None
        return _c_function("method" if owner.type == "field_declaration" else "function", owner)
    if kind_type == "function_definition":  # its name looked up once (18,000 in Django)
        name = node.child_by_field_name("name")
        if name is None:
            return _c_function(kind, node)  # C/C++ (Python and PHP functions have a name field)
        return _named(kind, node, name)
    if kind == "gotype":
        found = _named(_go_type_kind(node), node, node.child_by_field_name("name"))
        parent = node.parent
        if found is not None and parent is not None and parent.type == "type_declaration":
            specs = [c for c in parent.named_children if c.type not in _COMMENT_TYPES]
            if len(specs) == 1:
                found.outer, found.sig_start = parent, parent.start_byte
        return found
    if kind_type in ("struct_specifier", "union_specifier", "enum_specifier"):
        name, outer = _typedef_struct(node)
        found = _named(kind, node, name, outer)
        if found is not None:
            found.sig_start = outer.start_byte
        return found
    if kind_type == "impl_item":
        return _named(kind, node, rust_impl_type(node))
    if kind_type == "class_declaration" and node.child_by_field_name("body") is None \
            and any(c.type in ("class_body", "enum_class_body") for c in node.children):
        return _named(_kotlin_class_kind(node), node, node.child_by_field_name("name"))
    if kind_type == "type_alias" and node.child_by_field_name("name") is None:
        return _named(kind, node, node.child_by_field_name("type"))  # Kotlin ``typealias``
    if kind_type == "companion_object" and node.child_by_field_name("name") is None:
        return Shape(kind, node, "Companion", node.start_point[0], node, node.start_byte)
    if kind_type in ("secondary_constructor", "primary_constructor"):
        # Kotlin ``class User(val name: String)``: the primary constructor is the class header's
        # parameter list; a change to it is a constructor change like one to ``constructor()``
        return Shape(kind, node, "constructor", node.start_point[0], node, node.start_byte)
    found = _named(kind, node, node.child_by_field_name("name"))
    if found is not None and kind_type == "method_declaration" \
            and node.child_by_field_name("receiver") is not None:
        found.prefix = go_receiver_type(node)
    return found


def wrapped(found: Shape) -> Shape:
    """``found`` with the statement wrapping it (decorators, ``export``, ``template``)."""
    parent = found.outer.parent
    while parent is not None and parent.type in _WRAPPERS:
        found.outer = parent
        parent = parent.parent
    return found
