"""Is a fixed-string hit really a reference to the symbol? The structural filter of search.

``git grep -F`` finds text; a caller search wants code that *uses* a name. Each occurrence of the
name on a hit line is classified: a substring of a longer identifier, inside a comment or a
string, the definition's own name, part of an import, a call site, or another reference. With a
tree-sitter grammar (every language of the table in ``code.language_specs`` that has one) the
syntax node at the occurrence decides (node types in ``syntax``); other languages, and the
opaque body of a C macro, fall back to a word-boundary and comment/quote heuristic.
Each file is parsed at most once (``SourceFile`` keeps its tree).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from enum import StrEnum

from tree_sitter import Node, Tree

from reviewtui.code.grammars import Grammar, grammar, parser
from reviewtui.code.language_specs import defined_name, spec_for
from reviewtui.context.search.syntax import (
    BINDING_NAME_FIELDS,
    BINDING_VALUES,
    CALL_FIELDS,
    DEFINITION_TYPES,
    FIRST_CHILD_CALLS,
    IDENTIFIER_TYPES,
    IMPORT_TYPES,
    INTERPOLATION_TYPES,
    KEYS,
    KOTLIN_FUNCTION_VALUES,
    LAST_CHILD_MEMBERS,
    MACRO_TEXT_TYPES,
    MEMBER_FIELDS,
    MEMBER_TYPES,
    SPECIFIER_TYPES,
    STRING_CONTENT_TYPES,
    STRING_TYPES,
)


class RefKind(StrEnum):
    CALL = "call"  # the name is what gets called / instantiated
    REFERENCE = "reference"  # any other use in code (annotation, argument, attribute...)
    IMPORT = "import"  # inside an import statement
    DEFINITION = "definition"  # the name of a function/class/method/type definition
    NAMED_STRING = "named_string"  # a string literal that is exactly the name ("app.Order")
    STRING = "string"
    COMMENT = "comment"
    NOT_NAME = "not_name"  # part of a longer identifier, or not an identifier at all

    @property
    def is_code(self) -> bool:
        return self in (RefKind.CALL, RefKind.REFERENCE, RefKind.IMPORT)


_COMMENT_PREFIXES = ("#", "//", "/*", "* ", "*/", "--", ";", "%", "<!--", "rem ", "REM ")
_PREPROCESSOR = re.compile(
    r"^\s*#\s*(include|define|if|ifdef|ifndef|elif|else|endif|pragma|undef)\b")
_DEF_WORDS = (r"def|function|func|fn|fun|class|struct|interface|trait|enum|module|sub|proc"
              r"|type|object|record|protocol|extension|impl")
_IMPORT_LINE = re.compile(r"^\s*(import|from|use|using|require|include|#\s*include|@import)\b")


def is_ident_byte(b: int, *, dollar: bool = True) -> bool:
    return b == 0x5F or (dollar and b == 0x24) or b >= 0x80 or (0x30 <= b <= 0x39) or (
        0x41 <= b <= 0x5A) or (0x61 <= b <= 0x7A)


def boundary_columns(line: bytes, name: bytes, *, dollar: bool = True) -> Iterator[int]:
    """Byte columns where ``name`` occurs in ``line`` and is not part of a longer identifier.

    ``dollar``: ``$`` counts as an identifier character (JavaScript), not as a sigil (shell).
    """
    if not name:
        return
    start = line.find(name)
    while start >= 0:
        end = start + len(name)
        before_ok = start == 0 or not is_ident_byte(line[start - 1], dollar=dollar) or not (
            is_ident_byte(name[0], dollar=dollar))
        after_ok = end >= len(line) or not is_ident_byte(line[end], dollar=dollar) or not (
            is_ident_byte(name[-1], dollar=dollar))
        if before_ok and after_ok:
            yield start
        start = line.find(name, start + 1)


class SourceFile:
    """One after-side file: bytes, lines and (lazily, once) its tree-sitter tree.

    A cache holder, hence not a frozen dataclass: the tree is parsed on first use.
    """

    __slots__ = ("_parsed", "_tree", "data", "language", "lines", "path")

    def __init__(self, path: str, language: str | None, data: bytes) -> None:
        self.path = path
        self.language = language
        self.data = data
        self.lines = data.split(b"\n")
        self._tree: Tree | None = None
        self._parsed = False

    @property
    def grammar(self) -> Grammar | None:
        return grammar(self.language) if self.language else None

    @property
    def tree(self) -> Tree | None:
        if not self._parsed:
            self._parsed = True
            g = self.grammar
            if g is not None:
                try:
                    self._tree = parser(g).parse(self.data)
                except Exception:  # defensive: a parser failure only disables the check
                    self._tree = None
        return self._tree

    def line(self, number: int) -> bytes:
        return self.lines[number - 1].rstrip(b"\r") if 1 <= number <= len(self.lines) else b""

    def node_at(self, number: int, column: int, length: int) -> Node | None:
        tree = self.tree
        if tree is None:
            return None
        point = (number - 1, column)
        return tree.root_node.named_descendant_for_point_range(
            point, (number - 1, column + length))


def _same(a: Node | None, b: Node) -> bool:
    return a is not None and a.id == b.id


def in_field(parent: Node, child: Node, names: tuple[str, ...]) -> bool:
    return any(_same(c, child) for name in names for c in parent.children_by_field_name(name))


def ancestors(node: Node) -> Iterator[Node]:
    current = node.parent
    while current is not None:
        yield current
        current = current.parent


def _text(node: Node) -> bytes:
    return node.text or b""


def _string_kind(node: Node, name: bytes) -> RefKind:
    if node.type in STRING_CONTENT_TYPES:
        text = _text(node)
        if text == name or text.endswith(b"." + name):
            return RefKind.NAMED_STRING
    return RefKind.STRING


def _enclosure(node: Node, name: bytes) -> RefKind | None:
    """COMMENT/STRING/NAMED_STRING if ``node`` sits in one (interpolations are code)."""
    for current in (node, *ancestors(node)):
        kind = current.type
        if kind in INTERPOLATION_TYPES:
            return None
        if "comment" in kind:
            return RefKind.COMMENT
        if kind in STRING_TYPES:
            return _string_kind(node, name)
    return None


def _is_bound_function(parent: Node, node: Node) -> bool:
    """Is ``node`` the variable of a binding whose value is a function (``const f = () =>``)?"""
    if not in_field(parent, node, (BINDING_NAME_FIELDS[parent.type],)):
        return False
    value = parent.child_by_field_name("value")
    if value is None:  # C#: the lambda is a child without a field
        return any(c.type == "lambda_expression" for c in parent.named_children)
    return value.type in BINDING_VALUES[parent.type]


def _is_definition_name(node: Node) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type in ("scope_resolution", "qualified_identifier") and in_field(
            parent, node, ("name",)):
        node, parent = parent, parent.parent  # Ruby ``class Mod::Name``, C++ ``A::f() {``
        if parent is None:
            return False
    kind = parent.type
    if kind in BINDING_NAME_FIELDS:
        return _is_bound_function(parent, node)
    if kind == "variable_declaration" and parent.parent is not None \
            and parent.parent.type == "property_declaration":  # Kotlin ``val f = { }``
        return any(c.type in KOTLIN_FUNCTION_VALUES for c in parent.parent.named_children)
    if kind == "function_declarator":  # C/C++ definitions and prototypes
        return in_field(parent, node, ("declarator",))
    if kind in SPECIFIER_TYPES:
        return in_field(parent, node, ("name",)) and parent.child_by_field_name("body") is not None
    if kind == "type_definition":  # C ``typedef ... name;``
        return in_field(parent, node, ("declarator",))
    if kind == "type_alias" and parent.child_by_field_name("name") is None:
        return in_field(parent, node, ("type",))  # Kotlin ``typealias Name = ...``
    if kind not in DEFINITION_TYPES:
        return False
    return in_field(parent, node, ("name",))


def _is_member(parent: Node, child: Node) -> bool:
    if parent.type in MEMBER_TYPES:
        return in_field(parent, child, MEMBER_FIELDS)
    if parent.type in LAST_CHILD_MEMBERS:  # Kotlin: no fields
        return _same(parent.named_children[-1] if parent.named_children else None, child)
    return False


def _is_call(node: Node) -> bool:
    child, parent = node, node.parent
    while parent is not None and _is_member(parent, child):
        child, parent = parent, parent.parent
    if parent is None or parent.type not in CALL_FIELDS:
        return False
    if parent.type == "decorator":
        return True
    fields = CALL_FIELDS[parent.type]
    if in_field(parent, child, fields):
        return True
    if parent.type in FIRST_CHILD_CALLS and not any(
            parent.child_by_field_name(f) for f in fields):  # Kotlin calls, PHP ``new``
        return _same(parent.named_children[0] if parent.named_children else None, child)
    # Ruby ``Order.new(...)``: the receiver of ``new`` is instantiated.
    method = parent.child_by_field_name("method")
    return (parent.type == "call" and in_field(parent, child, ("receiver",))
            and method is not None and _text(method) == b"new")


def classify_node(node: Node | None, name: bytes) -> RefKind:
    """What the syntax node found at an occurrence of ``name`` makes of it."""
    if node is None:
        return RefKind.NOT_NAME
    enclosed = _enclosure(node, name)
    if enclosed is not None:
        return enclosed
    if node.type == "simple_symbol":  # Ruby ``before_action :name``, ``send(:name)``
        return RefKind.REFERENCE if _text(node) == b":" + name else RefKind.NOT_NAME
    if node.type not in IDENTIFIER_TYPES or _text(node) != name:
        return RefKind.NOT_NAME
    parent = node.parent
    if parent is not None and parent.type in KEYS and in_field(parent, node, ("name", "key")):
        return RefKind.NOT_NAME  # ``f(name=1)``, ``{name: 1}``: a key, not a use
    if _is_definition_name(node):
        return RefKind.DEFINITION
    if any(a.type in IMPORT_TYPES for a in ancestors(node)):
        return RefKind.IMPORT
    return RefKind.CALL if _is_call(node) else RefKind.REFERENCE


def _odd_quotes(text: str) -> bool:
    cleaned = text.replace("\\\\", "").replace('\\"', "").replace("\\'", "")
    return any(cleaned.count(q) % 2 == 1 for q in ('"', "'", "`"))


def plainly_not_a_use(language: str | None, text: str, name: str) -> bool:
    """A hit line that certainly holds no call or reference of ``name``, seen without parsing:
    a line comment (or comment-looking text inside a string: no use either), or the line that
    defines ``name`` and names it nowhere else. A caller search skips parsing for those."""
    stripped = text.lstrip()
    spec = spec_for(language)
    marker = spec.line_comment if spec is not None else None
    if marker is not None and stripped.startswith(marker) and not stripped.startswith("#{"):
        return True
    if defined_name(language, text) != name:
        return False
    raw = text.encode("utf-8", "replace")
    return sum(1 for _ in boundary_columns(raw, name.encode("utf-8"))) == 1


def classify_text(line: str, column: int, name: str) -> RefKind:
    """Heuristic for languages without a grammar (``column`` is a character offset)."""
    stripped = line.lstrip()
    if (stripped.startswith(_COMMENT_PREFIXES) or stripped == "*") and not (
            _IMPORT_LINE.match(line) or _PREPROCESSOR.match(line)):
        return RefKind.COMMENT
    before = line[:column]
    if _odd_quotes(before):
        quoted = line[column - 1 : column] + line[column + len(name) : column + len(name) + 1]
        return RefKind.NAMED_STRING if quoted in ('""', "''") else RefKind.STRING
    for marker in (" //", " #", " --", "\t//", "\t#"):
        if marker in before:
            return RefKind.COMMENT
    definition = re.search(rf"\b(?:{_DEF_WORDS})\s+(?:\([^)]*\)\s*)?[\w.]*$", before)
    if definition is not None:
        return RefKind.DEFINITION
    if _IMPORT_LINE.match(line):
        return RefKind.IMPORT
    after = line[column + len(name) :].lstrip()
    return RefKind.CALL if after.startswith("(") else RefKind.REFERENCE


def classify(source: SourceFile | None, number: int, grep_text: str, name: str) -> list[RefKind]:
    """Classify every word-bounded occurrence of ``name`` on line ``number``.

    Uses the file's syntax tree when its language has a grammar, else ``classify_text`` on the
    line (from the file, or as grep printed it when the file could not be read).
    """
    raw_name = name.encode("utf-8")
    tree = source.tree if source is not None else None
    data = source.line(number) if source is not None else grep_text.encode("utf-8")
    text = data.decode("utf-8", "replace")
    kinds: list[RefKind] = []
    for col in boundary_columns(data, raw_name):
        node = source.node_at(number, col, len(raw_name)) if source and tree else None
        if tree is not None and (node is None or node.type not in MACRO_TEXT_TYPES):
            kinds.append(classify_node(node, raw_name))
        else:  # no grammar, or the opaque body of a C macro
            kinds.append(classify_text(text, len(data[:col].decode("utf-8", "replace")), name))
    return kinds
