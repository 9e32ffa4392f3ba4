"""Structure of Rust, C, C++, C#, PHP and Kotlin: definitions, attributes, nesting, skeletons."""

from __future__ import annotations

import textwrap

import pytest

from reviewtui.code import Definition, FileStructure, analyze_source
from reviewtui.code.analyze import _analyze_windows
from reviewtui.code.grammars import grammar
from reviewtui.code.languages import PathLanguages, headers_decided, language_for_path


def _analyze(language: str, text: str) -> FileStructure:
    result = analyze_source(language, textwrap.dedent(text).lstrip("\n").encode())
    assert result is not None
    assert not result.has_errors
    return result


def _defs(fs: FileStructure) -> list[tuple[str, str, int, int]]:
    return [(d.kind, d.qualified_name, d.start_line, d.end_line) for d in fs.definitions]


def _one(fs: FileStructure, qualified_name: str) -> Definition:
    [found] = [d for d in fs.definitions if d.qualified_name == qualified_name]
    return found


RUST = """
    use std::fmt;

    /// A point.
    #[derive(Debug, Serialize)]
    pub struct Point {
        x: i32,
    }

    impl<T: Clone> fmt::Display for Wrapper<T> {
        #[inline]
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            let render = |x: i32| {
                x + 1
            };
            write!(f, "{}", render(1))
        }
    }

    pub trait Shape {
        fn area(&self) -> f64;
    }

    macro_rules! square {
        ($x:expr) => { $x * $x };
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn it_works() {}
    }
"""


def test_rust_definitions_attributes_and_impl_blocks() -> None:
    fs = _analyze("rust", RUST)
    assert _defs(fs) == [
        ("struct", "Point", 4, 7),
        ("impl", "Wrapper", 9, 17),
        ("method", "Wrapper.fmt", 10, 16),
        ("function", "Wrapper.fmt.render", 12, 14),
        ("interface", "Shape", 19, 21),
        ("method", "Shape.area", 20, 20),
        ("macro", "square", 23, 25),
        ("namespace", "tests", 27, 31),
        ("function", "tests.it_works", 29, 30),
    ]
    point = _one(fs, "Point")
    assert point.decorators == ("#[derive(Debug, Serialize)]",)
    assert (point.header_line, point.signature) == (5, "pub struct Point")
    fmt = _one(fs, "Wrapper.fmt")
    assert fmt.decorators == ("#[inline]",)
    assert fmt.signature == "fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result"
    assert _one(fs, "Wrapper").signature == "impl<T: Clone> fmt::Display for Wrapper<T>"
    assert _one(fs, "square").signature == "macro_rules! square"
    assert fs.enclosing(13) == _one(fs, "Wrapper.fmt.render")  # the closure, innermost
    assert fs.enclosing(15) == fmt
    assert fs.comment_lines == frozenset({3})
    assert fs.import_lines == frozenset({1})


C = """
    #include <stdio.h>
    #define MAX(a, b) ((a) > (b) ? (a) : (b))
    #define LIMIT 10

    typedef struct {
        int y;
    } point_t;

    static int helper(int a) { return a; }

    char *make(const char *s,
               int n)
    {
        return 0;  /* none */
    }

    int (*callback)(int);
    void declared(int);
"""


def test_c_functions_macros_typedef_structs_and_prototypes() -> None:
    fs = _analyze("c", C)
    assert _defs(fs) == [
        ("macro", "MAX", 2, 2),
        ("struct", "point_t", 5, 7),
        ("function", "helper", 9, 9),
        ("function", "make", 11, 15),
        ("function", "declared", 18, 18),
    ]
    make = _one(fs, "make")
    assert make.signature == "char *make(const char *s, int n)"
    assert make.signature_end_line == 13  # the brace on its own line
    assert _one(fs, "MAX").signature == "#define MAX(a, b)"
    assert _one(fs, "point_t").signature == "typedef struct"
    assert fs.enclosing(14) == make
    assert fs.import_lines == frozenset({1})


CPP = """
    #include <vector>
    namespace app {
    template <typename T>
    class Widget : public Base<T> {
    public:
        explicit Widget(int n);
        virtual void draw() const = 0;
        [[nodiscard]] int size() const { return n_; }
    private:
        int n_;
        void hidden();
    };

    void Widget::draw() const {
        auto scale = [this](int x) {
            return x * n_;
        };
        scale(1);
    }
    }  // namespace app
"""


def test_cpp_namespaces_classes_access_sections_and_lambdas() -> None:
    fs = _analyze("cpp", CPP)
    assert _defs(fs) == [
        ("namespace", "app", 2, 20),
        ("class", "app.Widget", 3, 12),
        ("method", "app.Widget.Widget", 6, 6),
        ("method", "app.Widget.draw", 7, 7),
        ("method", "app.Widget.size", 8, 8),
        ("method", "app.Widget.hidden", 11, 11),
        ("method", "app.Widget.draw", 14, 19),
        ("function", "app.Widget.draw.scale", 15, 17),
    ]
    widget = _one(fs, "app.Widget")
    assert (widget.start_line, widget.header_line) == (3, 4)  # the template head belongs to it
    members = {d.name: d for d in fs.definitions if d.parent == "app.Widget"}
    assert members["Widget"].signature == "public: explicit Widget(int n)"
    assert members["draw"].signature == "public: virtual void draw() const = 0"
    assert members["size"].decorators == ("[[nodiscard]]",)
    assert members["hidden"].signature == "private: void hidden()"
    assert fs.enclosing(16) == _one(fs, "app.Widget.draw.scale")
    assert fs.enclosing(18).signature == "void Widget::draw() const"  # type: ignore[union-attr]


def test_c_error_recovery_makes_no_function_named_like_a_keyword() -> None:
    # What tree-sitter is left with when ``#ifdef`` splits an else-if chain (Pillow).
    fs = analyze_source("c", b"else if (context->mode) {\n    x = 1;\n}\n")
    assert fs is not None and fs.definitions == ()


def test_cpp_macro_calls_are_no_members_and_specialisations_keep_their_name() -> None:
    fs = analyze_source("cpp", b"class Caster {\n    Caster(int x);\n    ~Caster();\n"
                               b"    TYPE_CASTER(T, name);\n};\n"
                               b"template <> struct tag<int> : base {\n    void f();\n};\n")
    assert fs is not None
    assert _defs(fs) == [("class", "Caster", 1, 5), ("method", "Caster.Caster", 2, 2),
                         ("method", "Caster.~Caster", 3, 3), ("struct", "tag", 6, 8),
                         ("method", "tag.f", 7, 7)]
    destructor = analyze_source("csharp", b"class C { ~C() { } }\n")
    assert destructor is not None and _defs(destructor)[-1] == ("method", "C.~C", 1, 1)


CSHARP = """
    using System;
    namespace App.Controllers
    {
        [ApiController]
        [Route("api/[controller]")]
        public class UsersController : ControllerBase
        {
            public UsersController(IService service) { }

            [HttpPost]
            [Authorize(Roles = "Admin")]
            public async Task<IActionResult> Create([FromBody] User user)
            {
                Func<int, int> square = x => x * x;
                return Ok(square(2));
            }
        }

        public interface IService { void Run(); }
        public record Person(string Name);
    }
"""


def test_csharp_namespaces_attributes_constructors_and_lambdas() -> None:
    fs = _analyze("csharp", CSHARP)
    assert _defs(fs) == [
        ("namespace", "App.Controllers", 2, 21),
        ("class", "App.Controllers.UsersController", 4, 17),
        ("method", "App.Controllers.UsersController.UsersController", 8, 8),
        ("method", "App.Controllers.UsersController.Create", 10, 16),
        ("function", "App.Controllers.UsersController.Create.square", 14, 14),
        ("interface", "App.Controllers.IService", 19, 19),
        ("method", "App.Controllers.IService.Run", 19, 19),
        ("class", "App.Controllers.Person", 20, 20),
    ]
    create = _one(fs, "App.Controllers.UsersController.Create")
    assert create.decorators == ("[HttpPost]", '[Authorize(Roles = "Admin")]')
    assert create.signature == ("public async Task<IActionResult> Create([FromBody] User user)")
    assert create.header_line == 12
    assert fs.enclosing(15) == create
    assert fs.enclosing(14) == _one(fs, "App.Controllers.UsersController.Create.square")


PHP = """
    <?php
    namespace App\\Http;

    use Symfony\\Component\\Routing\\Annotation\\Route;

    final class UserController extends AbstractController
    {
        public function __construct(private Repo $repo) {}

        #[Route('/users', methods: ['POST'])]
        public function create(Request $request): Response
        {
            $make = function ($x) {
                return $x;
            };
            return new Response($make(1));
        }
    }

    trait Greets { function hi() { echo "hi"; } }
    # a hash comment
"""


def test_php_classes_attributes_closures_and_traits() -> None:
    fs = _analyze("php", PHP)
    assert _defs(fs) == [
        ("class", "App.Http.UserController", 6, 18),
        ("method", "App.Http.UserController.__construct", 8, 8),
        ("method", "App.Http.UserController.create", 10, 17),
        ("function", "App.Http.UserController.create.$make", 13, 15),
        ("trait", "App.Http.Greets", 20, 20),  # a statement namespace names what follows
        ("method", "App.Http.Greets.hi", 20, 20),
    ]
    create = _one(fs, "App.Http.UserController.create")
    assert create.decorators == ("#[Route('/users', methods: ['POST'])]",)
    assert create.signature == "public function create(Request $request): Response"
    assert fs.enclosing(14) == _one(fs, "App.Http.UserController.create.$make")
    assert fs.enclosing(16) == create
    assert fs.comment_lines == frozenset({21})
    assert fs.import_lines == frozenset({4})


KOTLIN = """
    package com.example

    import kotlinx.coroutines.launch

    @Composable
    fun Greeting(name: String) {
        val onClick = { x: Int ->
            println(x)
        }
        Text(name)
    }

    data class User(val id: Long)

    class Api(private val repo: Repo) : Service {
        constructor(x: Int) : this(Repo())

        companion object {
            fun create(): Api = Api(Repo())
        }
    }

    object Registry {
        fun all() = listOf<Int>()
    }
"""


def test_kotlin_functions_lambdas_objects_and_companions() -> None:
    fs = _analyze("kotlin", KOTLIN)
    assert _defs(fs) == [
        ("function", "Greeting", 5, 11),
        ("function", "Greeting.onClick", 7, 9),
        ("class", "User", 13, 13),
        ("method", "User.constructor", 13, 13),  # the primary constructor
        ("class", "Api", 15, 21),
        ("method", "Api.constructor", 15, 15),
        ("method", "Api.constructor", 16, 16),
        ("object", "Api.Companion", 18, 20),
        ("method", "Api.Companion.create", 19, 19),
        ("object", "Registry", 23, 25),
        ("method", "Registry.all", 24, 24),
    ]
    greeting = _one(fs, "Greeting")
    assert greeting.decorators == ("@Composable",)
    assert (greeting.header_line, greeting.signature) == (6, "fun Greeting(name: String)")
    assert fs.enclosing(8) == _one(fs, "Greeting.onClick")
    assert fs.enclosing(10) == greeting
    assert _one(fs, "User").signature == "data class User(val id: Long)"
    assert fs.import_lines == frozenset({1, 3})


# --- .h: C or C++ ---------------------------------------------------------------------


def test_headers_are_c_unless_the_repository_has_cpp_sources() -> None:
    assert language_for_path("lib/a.h") == "c"
    assert language_for_path("lib/a.hxx") == "cpp"
    assert PathLanguages().of("lib/a.h") == "c"
    assert PathLanguages(cpp_headers=True).of("lib/a.h") == "cpp"
    assert PathLanguages(cpp_headers=True).of("lib/a.c") == "c"
    assert headers_decided(["a.c", "b.py"]) == PathLanguages()  # no header: nothing to decide
    assert headers_decided(["a.h", "b.cc"]) == PathLanguages(cpp_headers=True)
    assert headers_decided(["a.h", "b.c"]) is None  # the repository decides


# --- skeletons answer like whole files ------------------------------------------------


def _methods(count: int, indent: str, prefix: str = "f") -> str:
    return "".join(f"{indent}int {prefix}{i}(int x) {{\n{indent}    return x + {i};\n"
                   f"{indent}}}\n" for i in range(count))


def _same_as_whole(language: str, source: str, needle: str, *, windowed: bool) -> Definition:
    """The definition around ``needle``, the same from a skeleton as from the whole file;
    ``windowed``: whether a skeleton was used at all (else the file was parsed whole)."""
    line = source.split("\n").index(needle) + 1
    whole = analyze_source(language, source.encode())
    part = analyze_source(language, source.encode(), [(line, line)])
    assert whole is not None and part is not None
    found = whole.enclosing(line)
    assert found is not None and found == part.enclosing(line)
    g = grammar(language)
    assert g is not None
    assert (_analyze_windows(g, source.encode(), [(line, line)]) is not None) is windowed
    return found


def test_csharp_skeleton_keeps_allman_braces_and_attributes() -> None:
    source = ("namespace N\n{\n    public class C\n    {\n" + _methods(60, "        ")
              + "        [HttpPost]\n        [Authorize]\n        public int Target(int y)\n"
              "        {\n            return y;\n        }\n" + _methods(60, "        ", "g")
              + "    }\n}\n")
    found = _same_as_whole("csharp", source, "            return y;", windowed=True)
    assert (found.qualified_name, found.decorators) == ("N.C.Target", ("[HttpPost]",
                                                                        "[Authorize]"))


@pytest.mark.parametrize(("label_indent", "windowed"), [("", False), ("  ", True),
                                                         ("    ", True)])
def test_cpp_skeleton_keeps_the_access_section_and_template_head(label_indent: str,
                                                                 windowed: bool) -> None:
    source = ("class C {\n" + label_indent + "public:\n" + _methods(60, "    ") + label_indent
              + "private:\n" + _methods(30, "    ", "g") + "    template <typename T>\n"
              "    int target(T y) {\n        return y;\n    }\n" + _methods(30, "    ", "h")
              + "};\n")
    found = _same_as_whole("cpp", source, "        return y;", windowed=windowed)
    assert found.signature == "private: int target(T y)"
    assert found.start_line == source.split("\n").index("    template <typename T>") + 1


def test_c_skeleton_keeps_a_return_type_on_its_own_line() -> None:
    functions = "".join(f"static int\nf{i}(int x)\n{{\n    return x + {i};\n}}\n\n"
                        for i in range(80))
    source = (functions + "PyMODINIT_FUNC\nPyInit_mod(void) {\n    int m = 0;\n"
              "#ifdef Py_GIL_DISABLED\n    m = 1;\n#endif\n    return m;\n}\n")
    found = _same_as_whole("c", source, "    m = 1;", windowed=True)
    assert (found.name, found.signature) == ("PyInit_mod", "PyMODINIT_FUNC PyInit_mod(void)")
    found = _same_as_whole("c", source, "    return x + 40;", windowed=True)
    assert found.signature == "static int f40(int x)"


def test_cpp_unindented_namespace_keeps_its_qualified_names() -> None:
    source = "namespace outer {\n\n" + _methods(120, "") + "}  // namespace outer\n"
    found = _same_as_whole("cpp", source, "    return x + 100;", windowed=False)
    assert found.qualified_name == "outer.f100"


def test_php_skeleton_keeps_the_opening_tag() -> None:
    source = "<?php\n\n" + "".join(
        f"function f{i}($x) {{\n    return $x + {i};\n}}\n" for i in range(120))
    found = _same_as_whole("php", source, "    return $x + 100;", windowed=True)
    assert found.qualified_name == "f100"
    template = "<html>\n<?php if ($a): ?>\n<p>x</p>\n<?php endif; ?>\n" + source
    found = _same_as_whole("php", template, "    return $x + 100;", windowed=True)
    assert found.qualified_name == "f100"  # the last ``<?php`` above opens the code
    closed = source.replace("function f90", "?>\n<p>html</p>\nfunction f90")  # no code after
    line = closed.split("\n").index("    return $x + 100;") + 1
    g = grammar("php")
    assert g is not None and _analyze_windows(g, closed.encode(), [(line, line)]) is None
    part = analyze_source("php", closed.encode(), [(line, line)])
    assert part is not None and part.enclosing(line) is None  # HTML text, as in the whole file


def test_cpp_template_member_defined_out_of_its_class_is_named_by_the_class() -> None:
    # ``Widget<T>::draw`` is a method of ``Widget`` (as ``draw`` declared in its body is), not
    # of a class named ``Widget<T>``; a conversion operator likewise.
    fs = _analyze("cpp", """
        template <typename T>
        void Widget<T>::draw() {
            paint();
        }
        template <typename T>
        Widget<T>::operator bool() const {
            return true;
        }
    """)
    assert [d.qualified_name for d in fs.definitions] == ["Widget.draw",
                                                          "Widget.operator bool"]
