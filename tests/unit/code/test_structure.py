"""Tests for reviewtui.code: definitions, lookups, comment and import lines per language."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from reviewtui.code import LANGUAGES, Definition, FileStructure, analyze_source


def _src(text: str) -> bytes:
    return textwrap.dedent(text).lstrip("\n").encode()


def _analyze(language: str, text: str) -> FileStructure:
    result = analyze_source(language, _src(text))
    assert result is not None
    return result


def _defs(fs: FileStructure) -> list[tuple[str, str, int, int]]:
    return [(d.kind, d.qualified_name, d.start_line, d.end_line) for d in fs.definitions]


def _by_name(fs: FileStructure, qualified_name: str) -> Definition:
    matches = [d for d in fs.definitions if d.qualified_name == qualified_name]
    assert len(matches) == 1, matches
    return matches[0]


PYTHON = """
    \"\"\"Module docstring.\"\"\"
    import os
    from typing import (
        Any,
    )

    # A comment.
    @app.route("/x")
    @login_required
    class Foo(Base):
        '''Class docstring
        over two lines.'''

        def bar(self, x: int) -> str:  # trailing comment
            def inner():
                return 1
            return str(x)

        async def baz(
            self,
        ) -> None:
            pass


    def top(a, b=1):
        \"\"\"Doc.\"\"\"
        return a
"""

JAVASCRIPT = """
    import { a } from "./a";
    const fs = require("fs");
    /**
     * JSDoc block.
     */
    class Foo extends Bar {
      method(x) {
        return x;
      }
    }
    function top() {}
    function* gen() {}
    export const arrow = (a, b) => {
      return a + b;
    };
    const fexpr = function () {};
    let notAFunction = 1;
"""

TYPESCRIPT = """
    import { Injectable } from "@nestjs/common";
    // line comment
    @Controller("cats")
    export class CatsController {
      @Get(":id")
      async findOne(@Param("id") id: string): Promise<Cat> {
        return this.svc.find(id);
      }
    }
    export interface Shape {
      area(): number;
    }
    type Point = { x: number };
    enum Color { Red }
    export const add = (a: number, b: number): number => {
      return a + b;
    };
    abstract class Base {}
"""

GO = """
    package main

    import "fmt"
    import (
    \t"os"
    )

    // Server serves.
    type Server struct {
    \tport int
    }

    type Runner interface {
    \tRun() error
    }

    type ID int

    func (s *Server) Start(port int) error {
    \tfmt.Println(port)
    \treturn nil
    }

    func main() {
    }
"""

JAVA = """
    package com.example;

    import java.util.List;

    /**
     * Javadoc.
     */
    @RestController
    @RequestMapping("/api")
    public class Foo {
        // comment
        @Override
        public String toString() {
            return "";
        }

        Foo(int a) { }

        interface Inner { void run(); }
        enum Color { RED }
        record Point(int x, int y) { }
    }
"""

RUBY = """
    require 'json'
    require_relative "helper"
    # comment
    =begin
    block comment
    =end
    module Shop
      class Cart < Base
        def self.build(items)
          new(items)
        end

        def total(tax = 0)
          items.sum
        end
      end
    end
    def helper; end
"""


def test_languages() -> None:
    assert frozenset({"python", "javascript", "typescript", "tsx", "go", "java", "ruby", "rust",
                      "c", "cpp", "csharp", "php", "kotlin"}) == LANGUAGES


def test_does_not_import_ui_libraries() -> None:
    code = (
        "import sys, reviewtui.code as c; c.analyze_source('python', b'x = 1');"
        "assert not {'textual', 'rich'} & set(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})


@pytest.mark.parametrize("language", ["cobol", "", "Python", "markdown"])
def test_unsupported_language_returns_none(language: str) -> None:
    assert analyze_source(language, b"def f(): pass\n") is None


# --- definitions per language -------------------------------------------------------


def test_python_definitions() -> None:
    fs = _analyze("python", PYTHON)
    assert fs.language == "python"
    assert fs.line_count == 27
    assert not fs.has_errors
    assert _defs(fs) == [
        ("class", "Foo", 8, 22),
        ("method", "Foo.bar", 14, 17),
        ("function", "Foo.bar.inner", 15, 16),
        ("method", "Foo.baz", 19, 22),
        ("function", "top", 25, 27),
    ]
    foo = _by_name(fs, "Foo")
    assert foo.decorators == ('@app.route("/x")', "@login_required")
    assert foo.signature == "class Foo(Base)"
    assert foo.signature_end_line == 10
    assert foo.parent is None
    bar = _by_name(fs, "Foo.bar")
    assert bar.name == "bar"
    assert bar.parent == "Foo"
    assert bar.signature == "def bar(self, x: int) -> str"
    assert bar.signature_end_line == 14
    assert _by_name(fs, "Foo.bar.inner").parent == "Foo.bar"
    baz = _by_name(fs, "Foo.baz")
    assert baz.signature == "async def baz( self, ) -> None"
    assert baz.signature_end_line == 21


def test_python_decorator_starts_range() -> None:
    fs = _analyze("python", PYTHON)
    assert fs.enclosing(8) == _by_name(fs, "Foo")
    assert fs.enclosing(7) is None


def test_javascript_definitions() -> None:
    fs = _analyze("javascript", JAVASCRIPT)
    assert _defs(fs) == [
        ("class", "Foo", 6, 10),
        ("method", "Foo.method", 7, 9),
        ("function", "top", 11, 11),
        ("function", "gen", 12, 12),
        ("function", "arrow", 13, 15),
        ("function", "fexpr", 16, 16),
    ]
    assert _by_name(fs, "arrow").signature == "const arrow = (a, b) =>"
    assert _by_name(fs, "Foo.method").signature == "method(x)"
    assert _by_name(fs, "Foo").signature == "class Foo extends Bar"


@pytest.mark.parametrize("language", ["typescript", "tsx"])
def test_typescript_definitions(language: str) -> None:
    fs = _analyze(language, TYPESCRIPT)
    assert not fs.has_errors
    assert _defs(fs) == [
        ("class", "CatsController", 3, 9),
        ("method", "CatsController.findOne", 5, 8),
        ("interface", "Shape", 10, 12),
        ("type", "Point", 13, 13),
        ("enum", "Color", 14, 14),
        ("function", "add", 15, 17),
        ("class", "Base", 18, 18),
    ]
    cls = _by_name(fs, "CatsController")
    assert cls.decorators == ('@Controller("cats")',)
    assert cls.signature == "class CatsController"
    assert cls.signature_end_line == 4
    method = _by_name(fs, "CatsController.findOne")
    assert method.decorators == ('@Get(":id")',)
    assert method.signature == 'async findOne(@Param("id") id: string): Promise<Cat>'
    assert method.signature_end_line == 6
    assert method.parent == "CatsController"
    assert _by_name(fs, "add").signature == "const add = (a: number, b: number): number =>"
    assert _by_name(fs, "Shape").signature == "interface Shape"
    assert _by_name(fs, "Point").signature == "type Point"


def test_go_definitions() -> None:
    fs = _analyze("go", GO)
    assert _defs(fs) == [
        ("struct", "Server", 9, 11),
        ("interface", "Runner", 13, 15),
        ("type", "ID", 17, 17),
        ("method", "Server.Start", 19, 22),
        ("function", "main", 24, 25),
    ]
    start = _by_name(fs, "Server.Start")
    assert start.name == "Start"
    assert start.parent is None
    assert start.signature == "func (s *Server) Start(port int) error"
    assert _by_name(fs, "Server").signature == "type Server struct"


def test_go_generic_receiver_and_grouped_types() -> None:
    fs = _analyze(
        "go",
        """
        package p

        type (
        \tA struct{}
        \tB = int
        )

        func (g *G[T]) Get() T { return g.v }
        """,
    )
    assert _defs(fs) == [
        ("struct", "A", 4, 4),
        ("type", "B", 5, 5),
        ("method", "G.Get", 8, 8),
    ]


def test_java_definitions() -> None:
    fs = _analyze("java", JAVA)
    assert _defs(fs) == [
        ("class", "Foo", 8, 22),
        ("method", "Foo.toString", 12, 15),
        ("method", "Foo.Foo", 17, 17),
        ("interface", "Foo.Inner", 19, 19),
        ("method", "Foo.Inner.run", 19, 19),
        ("enum", "Foo.Color", 20, 20),
        ("class", "Foo.Point", 21, 21),
    ]
    foo = _by_name(fs, "Foo")
    assert foo.decorators == ("@RestController", '@RequestMapping("/api")')
    assert foo.signature == "public class Foo"
    assert foo.signature_end_line == 10
    to_string = _by_name(fs, "Foo.toString")
    assert to_string.decorators == ("@Override",)
    assert to_string.signature == "public String toString()"
    assert to_string.signature_end_line == 13
    assert _by_name(fs, "Foo.Inner.run").signature == "void run()"


def test_java_annotation_starts_range() -> None:
    fs = _analyze("java", JAVA)
    assert fs.enclosing(12) == _by_name(fs, "Foo.toString")
    assert fs.enclosing(11) == _by_name(fs, "Foo")


def test_ruby_definitions() -> None:
    fs = _analyze("ruby", RUBY)
    assert _defs(fs) == [
        ("module", "Shop", 7, 17),
        ("class", "Shop.Cart", 8, 16),
        ("method", "Shop.Cart.build", 9, 11),
        ("method", "Shop.Cart.total", 13, 15),
        ("function", "helper", 18, 18),
    ]
    assert _by_name(fs, "Shop.Cart").signature == "class Cart < Base"
    total = _by_name(fs, "Shop.Cart.total")
    assert total.signature == "def total(tax = 0)"
    assert total.signature_end_line == 13
    assert total.parent == "Shop.Cart"
    assert _by_name(fs, "Shop.Cart.build").signature == "def self.build(items)"


# --- lookups ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "source", "line", "expected"),
    [
        ("python", PYTHON, 16, "Foo.bar.inner"),
        ("python", PYTHON, 17, "Foo.bar"),
        ("python", PYTHON, 11, "Foo"),
        ("python", PYTHON, 26, "top"),
        ("python", PYTHON, 3, None),
        ("javascript", JAVASCRIPT, 8, "Foo.method"),
        ("javascript", JAVASCRIPT, 14, "arrow"),
        ("javascript", JAVASCRIPT, 17, None),
        ("typescript", TYPESCRIPT, 7, "CatsController.findOne"),
        ("typescript", TYPESCRIPT, 5, "CatsController.findOne"),
        ("typescript", TYPESCRIPT, 11, "Shape"),
        ("go", GO, 21, "Server.Start"),
        ("go", GO, 10, "Server"),
        ("java", JAVA, 14, "Foo.toString"),
        ("java", JAVA, 16, "Foo"),
        ("ruby", RUBY, 14, "Shop.Cart.total"),
        ("ruby", RUBY, 12, "Shop.Cart"),
        ("ruby", RUBY, 1, None),
    ],
)
def test_enclosing(language: str, source: str, line: int, expected: str | None) -> None:
    found = _analyze(language, source).enclosing(line)
    assert (found.qualified_name if found else None) == expected


def test_enclosing_range() -> None:
    fs = _analyze("python", PYTHON)
    assert fs.enclosing_range(15, 17) == _by_name(fs, "Foo.bar")
    assert fs.enclosing_range(16, 16) == _by_name(fs, "Foo.bar.inner")
    assert fs.enclosing_range(17, 20) == _by_name(fs, "Foo")
    assert fs.enclosing_range(20, 17) == _by_name(fs, "Foo")
    assert fs.enclosing_range(20, 26) is None


def test_touched_innermost_first() -> None:
    fs = _analyze("python", PYTHON)
    names = [d.qualified_name for d in fs.touched(16, 20)]
    assert names == ["Foo.bar.inner", "Foo.bar", "Foo.baz", "Foo"]
    assert [d.qualified_name for d in fs.touched(22, 25)] == ["Foo.baz", "Foo", "top"]
    assert fs.touched(1, 6) == ()


def test_defined_in_uses_signature_lines() -> None:
    fs = _analyze("python", PYTHON)
    assert [d.qualified_name for d in fs.defined_in(8, 8)] == ["Foo"]
    assert [d.qualified_name for d in fs.defined_in(20, 21)] == ["Foo.baz"]
    assert [d.qualified_name for d in fs.defined_in(13, 15)] == ["Foo.bar", "Foo.bar.inner"]
    assert fs.defined_in(16, 17) == ()


def test_shared_boundary_line() -> None:
    fs = _analyze("javascript", "function a() {\n}  function b() {\n}\n")
    assert [d.name for d in fs.touched(2, 2)] == ["a", "b"]
    found = fs.enclosing(2)
    assert found is not None and found.name == "b"


def test_lookups_scale_to_many_definitions() -> None:
    source = "".join(f"def f{i}(x):\n    return x\n\n" for i in range(3000))
    fs = _analyze("python", source)
    assert len(fs.definitions) == 3000
    found = fs.enclosing(3 * 2500 + 2)
    assert found is not None and found.name == "f2500"
    assert [d.name for d in fs.touched(4, 8)] == ["f1", "f2"]


def test_structure_can_be_built_directly() -> None:
    outer = Definition("class", "A", "A", 1, 10, 1, 1, None, (), "class A")
    inner = Definition("method", "m", "A.m", 3, 5, 3, 3, "A", (), "def m(self)")
    fs = FileStructure("python", 10, (inner, outer), frozenset(), frozenset(), False)
    assert fs.definitions == (outer, inner)
    assert fs.enclosing(4) == inner
    assert fs.touched(1, 10) == (inner, outer)


# --- comment and import lines -------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "source", "comments", "imports"),
    [
        ("python", PYTHON, {1, 7, 11, 12, 26}, {2, 3, 4, 5}),
        ("javascript", JAVASCRIPT, {3, 4, 5}, {1, 2}),
        ("typescript", TYPESCRIPT, {2}, {1}),
        ("go", GO, {8}, {3, 4, 5, 6}),
        ("java", JAVA, {5, 6, 7, 11}, {1, 3}),
        ("ruby", RUBY, {3, 4, 5, 6}, {1, 2}),
    ],
)
def test_comment_and_import_lines(
    language: str, source: str, comments: set[int], imports: set[int]
) -> None:
    fs = _analyze(language, source)
    assert fs.comment_lines == frozenset(comments)
    assert fs.import_lines == frozenset(imports)


def test_comment_lines_exclude_code_and_include_block_interiors() -> None:
    fs = _analyze(
        "javascript",
        """
        x = 1; // trailing
        /* a */ /* b */
        /*
           inside

        */ y = 2;
        var z = require("z").default;
        require("side-effect");
        """,
    )
    assert fs.comment_lines == frozenset({2, 3, 4, 5})
    assert fs.import_lines == frozenset({7, 8})


def test_python_string_statements_are_comments_but_assignments_are_not() -> None:
    fs = _analyze("python", 'x = "not a comment"\n"""attribute doc"""\nimport os; y = 1\n')
    assert fs.comment_lines == frozenset({2})
    assert fs.import_lines == frozenset({3})


def test_ruby_load_with_receiver_is_not_an_import() -> None:
    fs = _analyze("ruby", "YAML.load(x)\nload 'tasks.rb'\n")
    assert fs.import_lines == frozenset({2})


# --- robustness ---------------------------------------------------------------------


GARBAGE = [
    (b"", 0),
    (b"\n\n\n", 3),
    (b"\xff\xfe\x00\x80 def class {{{ ((( \xc3\x28", 1),
    ("name = 'h\xe9llo' # caf\xe9\n".encode("latin-1"), 1),
    (os.urandom(4096).replace(b"\n", b"") + b"\n\x00", 2),
    (b"def f(:\n  class {\n" * 50, 100),
]


@pytest.mark.parametrize("language", sorted(LANGUAGES))
@pytest.mark.parametrize(("source", "line_count"), GARBAGE, ids=range(len(GARBAGE)))
def test_garbage_does_not_raise(language: str, source: bytes, line_count: int) -> None:
    fs = analyze_source(language, source)
    assert fs is not None
    assert fs.line_count == line_count
    fs.enclosing(1)
    fs.touched(1, 100)
    fs.defined_in(1, 100)


def test_has_errors_and_partial_structure() -> None:
    fs = _analyze("python", "class A:\n    def ok(self):\n        pass\n    def broken(:\n")
    assert fs.has_errors
    assert ("method", "A.ok", 2, 3) in _defs(fs)


def test_non_utf8_source_keeps_definitions() -> None:
    source = b"# caf\xe9\ndef f():\n    return '\xff'\n"
    fs = analyze_source("python", source)
    assert fs is not None
    assert _defs(fs) == [("function", "f", 2, 3)]
    assert fs.comment_lines == frozenset({1})
    assert fs.line_count == 3


def test_header_line_skips_decorators_and_annotations() -> None:
    py = analyze_source("python", b"@app.route('/x')\n@login_required\ndef view():\n    pass\n")
    java = analyze_source(
        "java", b"class A {\n  @Override\n  @Deprecated\n  public void m() {\n  }\n}\n"
    )
    assert py is not None and java is not None
    [view] = py.definitions
    assert (view.start_line, view.header_line, view.signature_end_line) == (1, 3, 3)
    method = next(d for d in java.definitions if d.name == "m")
    assert (method.start_line, method.header_line) == (2, 4)


_SIZZLE = b"""var Sizzle = function( selector ) {
  return 1;
};
var fcssescape = function( ch, asCodePoint ) {
  return ch;
},
unloadHandler = function() {
  setDocument();
};
"""


def test_each_declarator_of_one_var_statement_has_its_own_lines() -> None:
    """``var a = function() {...}, b = function() {...};`` (jQuery's Sizzle): two definitions,
    each on its own lines -- sharing the statement's lines made a changed line of ``b`` sit in
    ``a`` or ``b`` by chance."""
    structure = analyze_source("javascript", _SIZZLE)
    assert structure is not None
    spans = {d.name: (d.start_line, d.end_line) for d in structure.definitions}
    assert spans == {"Sizzle": (1, 3), "fcssescape": (4, 6), "unloadHandler": (7, 9)}
    enclosing = structure.enclosing(8)
    assert enclosing is not None and enclosing.name == "unloadHandler"


def test_the_structure_does_not_depend_on_the_order_of_tree_sitters_captures(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Tree-sitter's order of captures varies between processes on the same tree: the
    structure must come out the same in any order."""
    from tree_sitter import QueryCursor

    source = _SIZZLE + b"var f = () => 1, g = 2;\nconst h = function() { return 3; };\n"
    as_given = analyze_source("javascript", source)
    original = QueryCursor.captures

    def reversed_captures(self: QueryCursor, node: object) -> dict[str, list[object]]:
        found = original(self, node)  # type: ignore[arg-type]
        return {name: list(reversed(nodes)) for name, nodes in reversed(list(found.items()))}

    monkeypatch.setattr(QueryCursor, "captures", reversed_captures)
    assert analyze_source("javascript", source) == as_given
