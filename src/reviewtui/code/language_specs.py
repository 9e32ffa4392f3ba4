"""The language table: everything reviewtui knows about a language, in one row per language.

Which suffixes and file names a language has, how its comments look, which tree-sitter grammar
wheel parses it and with which structure query, which line comment marker and definition line a
caller search may judge without parsing. ``languages`` (path -> language), ``grammars``
(parsers), ``units.line_tags`` (comment lines without a parser) and
``context.search.references`` (grep hits) all read this table, so adding a language is adding
a row (and a query in ``queries``), not editing six modules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from reviewtui.code import queries


class CommentStyle(StrEnum):
    """How a whole-line comment starts, for languages read without a parser."""

    HASH = "hash"  # ``# ...``
    SLASH = "slash"  # ``// ...``, ``/* ... */``, `` * ...``
    DASH = "dash"  # ``-- ...``
    MARKUP = "markup"  # ``<!-- ... -->``


@dataclass(frozen=True, slots=True)
class Grammar:
    """Where a grammar comes from: a per-language wheel and the function giving its pointer."""

    module: str
    function: str
    query: str


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """One language: its files, comments, grammar and the grep-line shortcuts of a search.

    ``line_comment``: a grep hit starting with it is only a comment (left out for languages
    where the marker also starts code, such as PHP 8's ``#[Attribute]``). ``definition_line``:
    a regular expression whose group 1 is the name a line defines (``def name(``), so a caller
    search can skip the definition line without parsing the file. ``opening_tag``: code starts
    after it (PHP's ``<?php``); a partial parse must keep it. ``behaviour_comment``: a comment
    line that is behaviour all the same (PHP docblock annotations: ``@Route``, ``@IsGranted``,
    ``@ORM\\Column`` configure routes, access and mappings, unlike ``@param``; Go's ``//go:``
    directives; TypeScript's ``@ts-ignore`` and ``eslint-disable`` switch checks off).
    ``namespace_statement``: a statement-form namespace (PHP ``namespace App\\Http;``, C#
    ``namespace App;``), group 1 its name: it names every definition after it, as a block
    namespace names those inside it. Read from the lines, so a partial parse (which may not hold
    the statement) names definitions as a whole-file parse does.
    """

    name: str
    suffixes: tuple[str, ...] = ()
    file_names: tuple[str, ...] = ()
    comments: CommentStyle | None = None
    grammar: Grammar | None = None
    line_comment: str | None = None
    definition_line: re.Pattern[str] | None = None
    opening_tag: bytes | None = None
    behaviour_comment: re.Pattern[str] | None = None
    namespace_statement: re.Pattern[bytes] | None = None


_JS_DEFINITION = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class)\s+([\w$]+)")
_MACRO = r"#\s*define\s+(\w+)\("
_C_DEFINITION = re.compile(
    rf"^\s*(?:{_MACRO}|(?:typedef\s+)?(?:struct|union|enum)\s+(\w+)\s*\{{)")
_CPP_DEFINITION = re.compile(
    rf"^\s*(?:template\s*<.*>\s*)?(?:{_MACRO}|(?:typedef\s+)?(?:class|struct|union"
    r"|enum(?:\s+class)?|namespace)\s+(\w+)\s*(?:final\s*)?(?::[^;{]*)?\{?\s*$)")
_MODIFIERS = r"(?:(?:public|private|protected|internal|static|abstract|sealed|partial|final" \
             r"|readonly|open|override|data|inline|suspend|operator|infix|unsafe|async|const" \
             r"|extern|default|enum|annotation|inner|value|expect|actual)\s+)*"
_RUST_DEFINITION = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|default|extern\s+\"[^\"]*\")\s+)*"
    r"(?:fn|struct|enum|trait|union|type|mod)\s+(\w+)|^\s*macro_rules!\s*(\w+)")
_CSHARP_DEFINITION = re.compile(
    rf"^\s*{_MODIFIERS}(?:class|struct|interface|enum|record(?:\s+struct)?|namespace)\s+(\w+)")
_PHP_DEFINITION = re.compile(
    rf"^\s*{_MODIFIERS}(?:function\s+&?|class\s+|interface\s+|trait\s+|enum\s+)(\w+)")
_KOTLIN_DEFINITION = re.compile(
    rf"^\s*{_MODIFIERS}(?:fun\s+(?:<[^>]*>\s*)?(?:[\w.<>?]+\.)?|(?:class|interface|object)\s+)"
    r"(\w+)")

_H, _S, _D, _M = CommentStyle.HASH, CommentStyle.SLASH, CommentStyle.DASH, CommentStyle.MARKUP
_JS_DIRECTIVE = re.compile(r"^\s*(?://|/\*+)\s*(?:@ts-|eslint-disable)")

SPECS: tuple[LanguageSpec, ...] = (
    # Languages with a grammar: structure, comment and import lines, checked callers.
    LanguageSpec("python", (".py", ".pyi", ".pyw"), (), _H,
                 Grammar("tree_sitter_python", "language", queries.PYTHON), "#",
                 re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)")),
    LanguageSpec("javascript", (".js", ".mjs", ".cjs", ".jsx"), (), _S,
                 Grammar("tree_sitter_javascript", "language", queries.JAVASCRIPT), "//",
                 _JS_DEFINITION, behaviour_comment=_JS_DIRECTIVE),
    LanguageSpec("typescript", (".ts", ".mts", ".cts"), (), _S,
                 Grammar("tree_sitter_typescript", "language_typescript", queries.TYPESCRIPT),
                 "//", _JS_DEFINITION, behaviour_comment=_JS_DIRECTIVE),
    LanguageSpec("tsx", (".tsx",), (), _S,
                 Grammar("tree_sitter_typescript", "language_tsx", queries.TYPESCRIPT), "//",
                 _JS_DEFINITION, behaviour_comment=_JS_DIRECTIVE),
    LanguageSpec("go", (".go",), (), _S, Grammar("tree_sitter_go", "language", queries.GO), "//",
                 re.compile(r"^\s*func\s+(?:\([^)]*\)\s*)?(\w+)"),
                 behaviour_comment=re.compile(r"^\s*//(?:go:|nolint)")),
    LanguageSpec("java", (".java",), (), _S,
                 Grammar("tree_sitter_java", "language", queries.JAVA), "//"),
    LanguageSpec("ruby", (".rb", ".rake", ".gemspec", ".ru"),
                 ("Rakefile", "Gemfile", "Guardfile", "Vagrantfile"), _H,
                 Grammar("tree_sitter_ruby", "language", queries.RUBY), "#",
                 re.compile(r"^\s*(?:def\s+(?:self\.)?|class\s+|module\s+)(\w+)")),
    LanguageSpec("rust", (".rs",), (), _S, Grammar("tree_sitter_rust", "language", queries.RUST),
                 "//", _RUST_DEFINITION),
    # ``.h`` is C unless the repository has C++ sources (``languages.PathLanguages``).
    LanguageSpec("c", (".c", ".h"), (), _S, Grammar("tree_sitter_c", "language", queries.C),
                 "//", _C_DEFINITION),
    LanguageSpec("cpp", (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp",
                         ".tpp", ".inl"), (), _S,
                 Grammar("tree_sitter_cpp", "language", queries.CPP), "//", _CPP_DEFINITION),
    LanguageSpec("csharp", (".cs",), (), _S,
                 Grammar("tree_sitter_c_sharp", "language", queries.CSHARP), "//",
                 _CSHARP_DEFINITION,
                 namespace_statement=re.compile(rb"^[ \t]*namespace[ \t]+([\w.]+)[ \t]*;",
                                                re.MULTILINE)),
    LanguageSpec("php", (".php",), (), _S,
                 Grammar("tree_sitter_php", "language_php", queries.PHP), "//", _PHP_DEFINITION,
                 b"<?php", re.compile(r"^\s*(?:/\*\*|\*)?\s*@[A-Z]"),
                 re.compile(rb"^[ \t]*namespace[ \t]+\\?([\w\\]+)[ \t]*;", re.MULTILINE)),
    LanguageSpec("kotlin", (".kt", ".kts"), (), _S,
                 Grammar("tree_sitter_kotlin", "language", queries.KOTLIN), "//",
                 _KOTLIN_DEFINITION),
    # Languages known by name only: language-independent tags and line-pattern comments.
    LanguageSpec("swift", (".swift",), (), _S),
    LanguageSpec("scala", (".scala",), (), _S),
    LanguageSpec("dart", (".dart",), (), _S),
    LanguageSpec("groovy", (".gradle", ".groovy"), (), _S),
    LanguageSpec("css", (".css", ".scss"), (), _S),
    LanguageSpec("protobuf", (".proto",), (), _S),
    LanguageSpec("shell", (".sh", ".bash", ".zsh"), (), _H),
    LanguageSpec("yaml", (".yaml", ".yml"), (), _H),
    LanguageSpec("toml", (".toml",), (), _H),
    LanguageSpec("ini", (".ini", ".cfg"), (), _H),
    LanguageSpec("properties", (".properties",), (), _H),
    LanguageSpec("perl", (".pl",), (), _H),
    LanguageSpec("r", (".r",), (), _H),
    LanguageSpec("elixir", (".ex", ".exs"), (), _H),
    LanguageSpec("terraform", (".tf",), (), _H),
    LanguageSpec("make", (), ("Makefile", "GNUmakefile"), _H),
    LanguageSpec("dockerfile", (), ("Dockerfile",), _H),
    LanguageSpec("cmake", (), ("CMakeLists.txt",), _H),
    LanguageSpec("starlark", (), ("BUILD", "WORKSPACE"), _H),
    LanguageSpec("sql", (".sql",), (), _D),
    LanguageSpec("lua", (".lua",), (), _D),
    LanguageSpec("haskell", (".hs",), (), _D),
    LanguageSpec("html", (".html", ".htm"), (), _M),
    LanguageSpec("xml", (".xml",), (), _M),
    LanguageSpec("vue", (".vue",), (), _M),
    LanguageSpec("markdown", (".md",), (), _M),
    LanguageSpec("rst", (".rst",)),
    LanguageSpec("text", (".txt",)),
    LanguageSpec("json", (".json",)),
    LanguageSpec("erlang", (".erl",)),
    LanguageSpec("ocaml", (".ml",)),
    LanguageSpec("clojure", (".clj",)),
)

BY_NAME: dict[str, LanguageSpec] = {spec.name: spec for spec in SPECS}
GRAMMAR_LANGUAGES: frozenset[str] = frozenset(s.name for s in SPECS if s.grammar is not None)
GRAMMAR_MODULES: tuple[str, ...] = tuple(dict.fromkeys(
    s.grammar.module for s in SPECS if s.grammar is not None))


def spec_for(language: str | None) -> LanguageSpec | None:
    return BY_NAME.get(language) if language else None


def defined_name(language: str | None, line: str) -> str | None:
    """The name ``line`` defines (``def name(``, ``fn name``...), if the table knows how."""
    spec = spec_for(language)
    pattern = spec.definition_line if spec is not None else None
    found = pattern.match(line) if pattern is not None else None
    if found is None:
        return None
    return next((group for group in found.groups() if group), None)
