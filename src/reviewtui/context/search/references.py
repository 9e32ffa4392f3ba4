"""Is a fixed-string hit really a reference to the symbol? The structural filter of search.

``git grep -F`` finds text; a caller search wants code that *uses* a name. Each occurrence of the
name on a hit line is classified: a substring of a longer identifier, inside a comment or a
string, the definition's own name, part of an import, a call site, or another reference. With a
tree-sitter grammar (Python, JavaScript, TypeScript, Go, Java, Ruby) the syntax node at the
occurrence decides; other languages fall back to a word-boundary and comment/quote heuristic.
Each file is parsed at most once (``SourceFile`` keeps its tree).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from enum import StrEnum

from tree_sitter import Node, Tree

from reviewtui.code.grammars import Grammar, grammar, parser


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


IDENTIFIER_TYPES = frozenset({
    "identifier", "property_identifier", "field_identifier", "type_identifier", "constant",
    "shorthand_property_identifier", "shorthand_property_identifier_pattern",
    "private_property_identifier", "package_identifier", "statement_identifier",
    "instance_variable", "class_variable", "global_variable",
})
STRING_CONTENT_TYPES = frozenset({
    "string_content", "string_fragment", "interpreted_string_literal_content",
    "raw_string_literal_content", "escape_sequence", "heredoc_content",
})
STRING_TYPES = STRING_CONTENT_TYPES | frozenset({
    "string", "string_literal", "template_string", "interpreted_string_literal",
    "raw_string_literal", "concatenated_string", "character_literal", "rune_literal",
    "text_block", "heredoc_body", "regex", "regex_pattern", "string_array", "symbol_array",
    "delimited_symbol", "subshell", "char_literal",
})
_INTERPOLATION_TYPES = frozenset({"interpolation", "template_substitution"})
_KEYS = frozenset({"keyword_argument", "pair"})
DEFINITION_TYPES = frozenset({
    # Python
    "function_definition", "class_definition",
    # JavaScript / TypeScript
    "function_declaration", "generator_function_declaration", "method_definition",
    "class_declaration", "abstract_class_declaration", "interface_declaration",
    "type_alias_declaration", "enum_declaration", "method_signature",
    "abstract_method_signature", "public_field_definition", "function_signature", "class",
    # Go
    "method_declaration", "type_spec", "type_alias", "method_elem", "method_spec",
    "field_declaration",
    # Java
    "constructor_declaration", "record_declaration", "annotation_type_declaration",
    # Ruby
    "method", "singleton_method", "module",
})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function",
                              "generator_function"})
IMPORT_TYPES = frozenset({
    "import_statement", "import_from_statement", "future_import_statement",
    "import_declaration", "import_spec", "import_clause", "namespace_import",
})
_MEMBER_TYPES = frozenset({
    "attribute", "member_expression", "selector_expression", "field_access",
    "scoped_identifier", "scope_resolution", "nested_identifier", "qualified_type",
    "scoped_type_identifier", "nested_type_identifier", "generic_type",
})
_MEMBER_FIELDS = ("attribute", "property", "field", "name", "type")
_CALL_FIELDS: dict[str, tuple[str, ...]] = {
    "call": ("function", "method"),  # Python / Ruby
    "call_expression": ("function",),
    "new_expression": ("constructor",),
    "method_invocation": ("name",),
    "object_creation_expression": ("type",),
    "decorator": (),
}

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
        if kind in _INTERPOLATION_TYPES:
            return None
        if "comment" in kind:
            return RefKind.COMMENT
        if kind in STRING_TYPES:
            return _string_kind(node, name)
    return None


def _is_definition_name(node: Node) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "scope_resolution" and in_field(parent, node, ("name",)):
        node, parent = parent, parent.parent  # Ruby ``class Mod::Name``
        if parent is None:
            return False
    if parent.type == "variable_declarator":
        value = parent.child_by_field_name("value")
        return (in_field(parent, node, ("name",)) and value is not None
                and value.type in _FUNCTION_VALUES)
    if parent.type not in DEFINITION_TYPES:
        return False
    return in_field(parent, node, ("name",))


def _is_call(node: Node) -> bool:
    child, parent = node, node.parent
    while parent is not None and parent.type in _MEMBER_TYPES and in_field(
            parent, child, _MEMBER_FIELDS):
        child, parent = parent, parent.parent
    if parent is None or parent.type not in _CALL_FIELDS:
        return False
    if parent.type == "decorator":
        return True
    if in_field(parent, child, _CALL_FIELDS[parent.type]):
        return True
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
    if parent is not None and parent.type in _KEYS and in_field(parent, node, ("name", "key")):
        return RefKind.NOT_NAME  # ``f(name=1)``, ``{name: 1}``: a key, not a use
    if _is_definition_name(node):
        return RefKind.DEFINITION
    if any(a.type in IMPORT_TYPES for a in ancestors(node)):
        return RefKind.IMPORT
    return RefKind.CALL if _is_call(node) else RefKind.REFERENCE


def _odd_quotes(text: str) -> bool:
    cleaned = text.replace("\\\\", "").replace('\\"', "").replace("\\'", "")
    return any(cleaned.count(q) % 2 == 1 for q in ('"', "'", "`"))


_PLAIN_DEFINITIONS = {
    "python": re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)"),
    "ruby": re.compile(r"^\s*(?:def\s+(?:self\.)?|class\s+|module\s+)(\w+)"),
    "go": re.compile(r"^\s*func\s+(?:\([^)]*\)\s*)?(\w+)"),
}
for _language in ("javascript", "typescript", "tsx"):
    _PLAIN_DEFINITIONS[_language] = re.compile(
        r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class)\s+([\w$]+)")
_LINE_COMMENTS = {"python": "#", "ruby": "#", "go": "//", "javascript": "//", "typescript": "//",
                  "tsx": "//", "java": "//"}


def plainly_not_a_use(language: str | None, text: str, name: str) -> bool:
    """A hit line that certainly holds no call or reference of ``name``, seen without parsing:
    a line comment (or comment-looking text inside a string: no use either), or the line that
    defines ``name`` and names it nowhere else. A caller search skips parsing for those."""
    stripped = text.lstrip()
    marker = _LINE_COMMENTS.get(language or "")
    if marker is not None and stripped.startswith(marker) and not stripped.startswith("#{"):
        return True
    pattern = _PLAIN_DEFINITIONS.get(language or "")
    if pattern is None:
        return False
    found = pattern.match(text)
    if found is None or found.group(1) != name:
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
    if source is not None and source.tree is not None:
        line = source.line(number)
        return [classify_node(source.node_at(number, col, len(raw_name)), raw_name)
                for col in boundary_columns(line, raw_name)]
    text = source.line(number).decode("utf-8", "replace") if source is not None else grep_text
    data = text.encode("utf-8")
    kinds: list[RefKind] = []
    for col in boundary_columns(data, raw_name):
        kinds.append(classify_text(text, len(data[:col].decode("utf-8", "replace")), name))
    return kinds
