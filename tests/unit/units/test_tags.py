"""Tags from paths, changed lines and tree-sitter structure, for every supported language."""

from __future__ import annotations

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.git.model import DiffLine
from reviewtui.pipeline import load_change
from reviewtui.units import ReviewUnit
from reviewtui.units.line_tags import line_facts
from reviewtui.units.vocabulary import default_vocabulary
from tests.conftest import GitRepoBuilder


def _units(repo: GitRepoBuilder, path: str, before: str | None, after: str | None
           ) -> list[ReviewUnit]:
    if before is not None:
        repo.write(path, before)
    repo.write("README.md", "seed\n")
    repo.commit("base")
    if after is None:
        repo.git("rm", "-q", path)
    else:
        repo.write(path, after)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL))
    return [u for u in loaded.units if u.file_path == path]


def _tags(repo: GitRepoBuilder, path: str, before: str | None, after: str | None) -> set[str]:
    units = _units(repo, path, before, after)
    assert len(units) == 1, [u.location for u in units]
    return set(units[0].tags)


PY_BEFORE = """import os


def greet(name):
    # say hello
    return "hi " + name


class Box:
    def size(self):
        return 1
"""


@pytest.mark.parametrize(
    ("after", "expected", "absent"),
    [
        (PY_BEFORE.replace("# say hello", "# say hello politely"), {"only_comments"},
         {"only_imports", "signature_change"}),
        (PY_BEFORE.replace("import os", "import os\nimport sys"), {"only_imports"},
         {"only_comments"}),
        (PY_BEFORE.replace('    return "hi " + name', '    return  "hi " +  name'),
         {"only_whitespace", "in_single_function"}, {"only_comments"}),
        (PY_BEFORE.replace("def greet(name):", "def greet(name, polite=False):"),
         {"signature_change"}, {"in_single_function"} and {"complete_function"}),
        (PY_BEFORE.replace("        return 1", "        return 2"), {"in_single_function"},
         {"signature_change", "complete_function"}),
        (PY_BEFORE + "\n\ndef added(x):\n    return x * 2\n", {"complete_function"},
         {"signature_change"}),
        (PY_BEFORE + "\n\nclass Added:\n    def m(self):\n        return 0\n",
         {"complete_class", "complete_function"}, set()),
        (PY_BEFORE.replace('    return "hi " + name',
                           '    logger.info("greeting %s", name)\n    return "hi " + name'),
         {"only_logging", "in_single_function"}, set()),
    ],
)
def test_python_line_tags(repo: GitRepoBuilder, after: str, expected: set[str],
                          absent: set[str]) -> None:
    tags = _tags(repo, "pkg/greet.py", PY_BEFORE, after)
    assert expected <= tags, tags
    assert not (absent & tags), tags


def test_python_decorator_change_is_not_a_signature_change(repo: GitRepoBuilder) -> None:
    before = "@app.route('/a')\ndef view():\n    return 1\n"
    after = "@app.route('/b')\ndef view():\n    return 1\n"
    tags = _tags(repo, "web.py", before, after)
    assert "signature_change" not in tags
    assert "in_single_function" in tags  # innermost definition includes its decorators


def test_python_docstring_is_a_comment(repo: GitRepoBuilder) -> None:
    before = 'def f():\n    """Old doc."""\n    return 1\n'
    after = 'def f():\n    """New doc."""\n    return 1\n'
    assert "only_comments" in _tags(repo, "d.py", before, after)


def test_innermost_definition_is_used(repo: GitRepoBuilder) -> None:
    before = ("class Outer:\n    def a(self):\n        return 1\n\n"
              "    def b(self):\n        return 2\n")
    after = before.replace("return 2", "return 3")
    [unit] = _units(repo, "nest.py", before, after)
    assert unit.functions == ("Outer.b",)
    assert "in_single_function" in unit.tags


JS_BEFORE = """import { a } from "./a";

export class Cart {
  total(items) {
    return items.length;
  }
}

export const add = (x, y) => {
  return x + y;
};
"""


@pytest.mark.parametrize("path", ["src/cart.js", "src/cart.ts"])
def test_javascript_and_typescript(make_repo: type[GitRepoBuilder], path: str) -> None:
    cases = [
        (JS_BEFORE.replace("return items.length;", "return items.length + 1;"),
         {"in_single_function"}),
        (JS_BEFORE.replace("total(items) {", "total(items, tax) {"), {"signature_change"}),
        (JS_BEFORE.replace('import { a } from "./a";', 'import { a, b } from "./a";'),
         {"only_imports"}),
        (JS_BEFORE.replace("return x + y;", "// sum\n  return x + y;"), {"only_comments"}),
        (JS_BEFORE.replace("return x + y;", 'console.log("adding");\n  return x + y;'),
         {"only_logging", "in_single_function"}),
    ]
    for after, expected in cases:
        tags = _tags(make_repo(), path, JS_BEFORE, after)
        assert expected <= tags, (after, tags)


def test_typescript_interface_change(repo: GitRepoBuilder) -> None:
    before = "export interface Shape {\n  area(): number;\n}\n"
    after = "export interface Shape {\n  area(): number;\n  name: string;\n}\n"
    [unit] = _units(repo, "shape.ts", before, after)
    assert "Shape" in unit.functions


GO_BEFORE = """package main

import "fmt"

type Server struct {
\tPort int
}

func (s *Server) Start() error {
\tfmt.Println("start")
\treturn nil
}
"""


def test_go(make_repo: type[GitRepoBuilder]) -> None:
    body = GO_BEFORE.replace("\treturn nil", "\treturn fmt.Errorf(\"no\")")
    [unit] = _units(make_repo(), "server.go", GO_BEFORE, body)
    assert "in_single_function" in unit.tags and unit.functions == ("Server.Start",)
    sig = GO_BEFORE.replace("Start() error", "Start(port int) error")
    assert "signature_change" in _tags(make_repo(), "server.go", GO_BEFORE, sig)
    imports = GO_BEFORE.replace('import "fmt"', 'import (\n\t"fmt"\n\t"os"\n)')
    assert "only_imports" in _tags(make_repo(), "server.go", GO_BEFORE, imports)
    assert "test_file" in _tags(make_repo(), "server_test.go", None, GO_BEFORE)


JAVA_BEFORE = """package com.example;

import java.util.List;

@RestController
public class UserController {
    @GetMapping("/users")
    public List<String> users() {
        return List.of("a");
    }
}
"""


def test_java(make_repo: type[GitRepoBuilder]) -> None:
    body = JAVA_BEFORE.replace('List.of("a")', 'List.of("a", "b")')
    [unit] = _units(make_repo(), "src/main/java/UserController.java", JAVA_BEFORE, body)
    assert "in_single_function" in unit.tags
    assert unit.functions == ("UserController.users",)
    sig = JAVA_BEFORE.replace("users() {", "users(int page) {")
    assert "signature_change" in _tags(make_repo(), "UserController.java", JAVA_BEFORE, sig)
    imp = JAVA_BEFORE.replace("import java.util.List;", "import java.util.List;\nimport x.Y;")
    assert "only_imports" in _tags(make_repo(), "UserController.java", JAVA_BEFORE, imp)
    assert "test_file" in _tags(make_repo(), "src/test/java/UserControllerTest.java", None,
                                JAVA_BEFORE)


RUBY_BEFORE = """require "json"

class Order
  def total
    42
  end
end
"""


def test_ruby(make_repo: type[GitRepoBuilder]) -> None:
    [unit] = _units(make_repo(), "app/models/order.rb", RUBY_BEFORE,
                    RUBY_BEFORE.replace("42", "43"))
    assert "in_single_function" in unit.tags and unit.functions == ("Order.total",)
    imp = RUBY_BEFORE.replace('require "json"', 'require "json"\nrequire "set"')
    assert "only_imports" in _tags(make_repo(), "order.rb", RUBY_BEFORE, imp)
    sig = RUBY_BEFORE.replace("def total", "def total(discount)")
    assert "signature_change" in _tags(make_repo(), "order.rb", RUBY_BEFORE, sig)
    assert "routing_file" in _tags(make_repo(), "config/routes.rb", None, "get '/x'\n")
    assert "migration_file" in _tags(make_repo(), "db/migrate/20240101000000_add_x.rb", None,
                                     "class AddX < ActiveRecord::Migration[7.0]\nend\n")


@pytest.mark.parametrize(
    ("path", "content", "tag"),
    [
        ("docs/guide.md", "# Guide\n", "doc_file"),
        ("README.rst", "Title\n", "doc_file"),
        # the forge's issue forms and their chooser: prose for people, not configuration
        (".github/ISSUE_TEMPLATE/config.yml", "contact_links:\n  - name: Security issue\n",
         "doc_file"),
        (".github/DISCUSSION_TEMPLATE/ideas.yml", "title: Idea\n", "doc_file"),
        # a document in a configuration folder is a document
        (".github/SECURITY.md", "# Reporting a vulnerability\n", "doc_file"),
        ("config/README.md", "# Settings\n", "doc_file"),
        (".github/CODEOWNERS", "* @team\n", "config_file"),
        ("tests/test_api.py", "def test_x():\n    pass\n", "test_file"),
        ("web/__tests__/a.spec.ts", "it('x', () => {});\n", "test_file"),
        # Kotlin multiplatform and Gradle test source sets: helpers there are test code too
        ("shared/src/commonTest/kotlin/Fixtures.kt", "val user = 1\n", "test_file"),
        ("app/src/integrationTest/java/Seed.java", "class Seed {}\n", "test_file"),
        ("config/settings.yaml", "debug: true\n", "config_file"),
        ("myapp/settings.py", "DEBUG = True\n", "config_file"),
        ("requirements.txt", "requests\n", "config_file"),
        ("shop/urls.py", "urlpatterns = []\n", "routing_file"),
        ("shop/migrations/0002_auto.py", "# migration\n", "migration_file"),
        ("vendor/lib/x.go", "package x\n", "generated_or_vendored"),
        ("static/app.min.js", "var a=1;\n", "generated_or_vendored"),
        ("api/user_pb2.py", "x = 1\n", "generated_or_vendored"),
        ("gen/model.go", "// Code generated by protoc. DO NOT EDIT.\npackage gen\n",
         "generated_or_vendored"),
        ("poetry.lock", "[[package]]\n", "lockfile"),
        ("package-lock.json", "{}\n", "lockfile"),
        ("accounts/auth.py", "def f():\n    pass\n", "security_area"),
        ("accounts/views.py", "def login(request):\n    pass\n", "security_sensitive"),
        ("locale/fr/LC_MESSAGES/django.po", 'msgid "password"\n', "translation_file"),
        ("static/admin/css/login.css", "input.password { color: red }\n", "asset_file"),
        ("Django.egg-info/PKG-INFO", "Name: Django\n", "generated_or_vendored"),
        ("PKG-INFO", "Name: Django\n", "generated_or_vendored"),
        ("pyproject.toml", "[project]\n", "package_manifest"),
        ("services/payment.py", "API_KEY = load('api_key')\n", "security_sensitive"),
        ("util/run.py", "subprocess.run(cmd, shell=True)\n", "security_sensitive"),
    ],
)
def test_path_and_content_tags(repo: GitRepoBuilder, path: str, content: str, tag: str) -> None:
    tags = _tags(repo, path, None, content)
    assert tag in tags and "new_file" in tags


@pytest.mark.parametrize(
    ("path", "content", "tag"),
    [
        ("tokenizer/lexer.py", "def lex():\n    pass\n", "security_sensitive"),
        ("docs/auth.md", "# Auth\n", "security_sensitive"),
        ("pkg/author.py", "AUTHOR = 'me'\n", "security_sensitive"),
        ("poetry.lock", "[[package]]\n", "config_file"),
        ("requirements.txt", "requests\n", "doc_file"),
        (".github/ISSUE_TEMPLATE/config.yml",
         "contact_links:\n  - name: Security issue\n    about: Report security issues here.\n",
         "security_sensitive"),
        (".github/workflows/ci.yml", "on: push\n", "doc_file"),  # CI stays configuration
        (".github/SECURITY.md", "# Reporting a vulnerability\n", "config_file"),
        (".github/SECURITY.md", "# Reporting a vulnerability\n", "security_sensitive"),
        ("CMakeLists.txt", "project(x)\n", "doc_file"),
    ],
)
def test_tags_that_must_not_be_given(repo: GitRepoBuilder, path: str, content: str,
                                     tag: str) -> None:
    assert tag not in _tags(repo, path, None, content)


def test_deleted_and_unknown_language_files(repo: GitRepoBuilder) -> None:
    tags = _tags(repo, "legacy.cobol", "IDENTIFICATION DIVISION.\n", None)
    assert "deleted_file" in tags
    assert not tags & {"in_single_function", "complete_function"}


def test_scopes_carry_the_lines_of_their_definitions(repo: GitRepoBuilder) -> None:
    """The context stage sizes a unit's function context from these, before parsing again."""
    after = PY_BEFORE.replace("        return 1", "        return 2")
    (unit,) = _units(repo, "app/box.py", PY_BEFORE, after)
    spans = {(s.qualified_name, s.role): (s.start_line, s.end_line) for s in unit.scopes}
    assert spans[("Box.size", "encloses")] == (10, 11)
    assert spans[("Box", "outer")] == (9, 11)


def test_lines_on_one_side_only_are_layout_only_when_all_blank() -> None:
    """With lines on one side only, ``only_whitespace`` is worked out without the layout-free
    texts: the other side's is empty, and so is this one's only when all its lines are blank
    (a comma before a bracket leaves the bracket)."""
    from reviewtui.git.model import DiffLine
    from reviewtui.units.line_tags import line_facts
    from reviewtui.units.vocabulary import default_vocabulary

    vocab = default_vocabulary()
    cases = {("", "  ", "\t"): True, ("", ",)"): False, ("x",): False, (" \u3000",): True}
    for texts, blank in cases.items():
        for kind in "+-":
            lines = [DiffLine(kind, text, n if kind == "-" else None, n if kind == "+" else None)
                     for n, text in enumerate(texts, 1)]
            tags = line_facts(lines, "python", None, None, vocab).tags
            assert ("only_whitespace" in tags) == blank, (texts, kind)


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        ("calc.py", "def f(x): return (1 +\n                  x)\n",
         "def f(x): return (2 +\n                  x)\n"),
        ("A.java", "class A {\n    int f() { int y = 1;\n        return y; }\n}\n",
         "class A {\n    int f() { int y = 2;\n        return y; }\n}\n"),
        ("calc.kt", "fun f(x: Int): Int = x +\n    1\n", "fun f(x: Int): Int = x -\n    1\n"),
    ],
    ids=["python", "java", "kotlin"],
)
def test_body_code_on_the_header_line_is_not_a_header_change(
        make_repo: type[GitRepoBuilder], path: str, before: str, after: str) -> None:
    # The header line changed, but only in the body written on it: the signature is the same,
    # so it is neither a signature change nor (Python) a change of annotations only.
    [unit] = _units(make_repo(), path, before, after)
    assert "in_single_function" in unit.tags
    assert not {"signature_change", "annotations_only"} & set(unit.tags)


def _diff(rows: list[tuple[str, str]]) -> list[DiffLine]:
    """Diff lines from (kind, text) rows, numbered as git would number them."""
    out, old_no, new_no = [], 1, 1
    for kind, text in rows:
        out.append(DiffLine(kind, text, old_no if kind != "+" else None,
                            new_no if kind != "-" else None))
        old_no += kind != "+"
        new_no += kind != "-"
    return out


def test_statements_moved_past_unchanged_lines_are_not_layout() -> None:
    # Swapping two statements leaves the same text on each side of the diff, but in another
    # order around the unchanged line: write-after-close is a change of behaviour.
    swap = _diff([(" ", "def save(f, data):"), ("-", "    f.write(data)"),
                  (" ", "    f.close()"), ("+", "    f.write(data)"), (" ", "    return True")])
    tags = line_facts(swap, "python", None, None, default_vocabulary()).tags
    assert "only_whitespace" not in tags


def test_trailing_comma_before_an_unchanged_bracket_is_layout() -> None:
    comma = _diff([(" ", "$defaults = ["), ("-", "    'Name'  => null,"),
                   ("-", "    'Path'  => '/'"), ("+", "    'Name' => null,"),
                   ("+", "    'Path' => '/',"), (" ", "];")])
    tags = line_facts(comma, "php", None, None, default_vocabulary()).tags
    assert "only_whitespace" in tags


JAVA_ONE = "class A {\n    void a() {\n        x();\n    }\n}\n"


def test_a_method_added_after_a_changed_one_is_not_a_signature_change(
        make_repo: type[GitRepoBuilder]) -> None:
    # git ends the added lines before a's unchanged '}', which becomes b's last line: b is
    # new, not re-signed, though its header is among the changed lines and not all of it.
    after = ("class A {\n    void a() {\n        x();\n        z();\n    }\n\n"
             "    void b() {\n        y();\n    }\n}\n")
    [unit] = _units(make_repo(), "A.java", JAVA_ONE, after)
    assert "A.b" in unit.symbols
    assert "signature_change" not in unit.tags


def test_a_parameter_line_added_to_a_header_is_a_signature_change(
        make_repo: type[GitRepoBuilder]) -> None:
    before = "class A {\n    void a(int x,\n           int y) {\n        x();\n    }\n}\n"
    after = before.replace("int x,\n", "int x,\n           int z,\n")
    assert "signature_change" in _tags(make_repo(), "A.java", before, after)


@pytest.mark.parametrize("deleted", [False, True], ids=["added", "deleted"])
def test_a_file_added_or_deleted_whole_has_no_signature_change(
        make_repo: type[GitRepoBuilder], deleted: bool) -> None:
    # One class of long methods: more changed lines than a unit holds, so the file is cut
    # inside a method, whose header is then in one unit and its end in the next. A file with
    # no other version has no signature that changed.
    body = "".join(f"        int v{i} = {i};\n" for i in range(40))
    methods = "\n".join(f"    void m{n}() {{\n{body}    }}\n" for n in range(4))
    text = f"class Big {{\n{methods}}}\n"
    before, after = (text, None) if deleted else (None, text)
    units = _units(make_repo(), "Big.java", before, after)
    assert len(units) > 1
    assert all("signature_change" not in u.tags for u in units), [u.tags for u in units]


# guzzle/guzzle src/ClientInterface.php, commit 72aa33d2 ("Update SA tools"), shortened: the
# declaration of an interface method is one line, so changing its parameters changes all of it.
GUZZLE_INTERFACE = """<?php

namespace GuzzleHttp;

interface ClientInterface
{
    /**
     * @deprecated ClientInterface::getConfig will be removed in guzzlehttp/guzzle:8.0.
     */
    public function getConfig(?string $option = null);
}
"""


@pytest.mark.parametrize(("path", "before", "old", "new"), [
    ("src/ClientInterface.php", GUZZLE_INTERFACE, "?string $option", "string $option"),
    ("Api.java", "interface Api {\n    int get(int id);\n}\n", "int id", "long id"),
    ("Api.kt", "class Api {\n    fun get(id: Int) = id + 1\n}\n", "id: Int", "id: Long"),
    ("Api.cs", "class Api\n{\n    int Get(int id) => id + 1;\n}\n", "int id", "long id"),
    ("api.py", "def get(id): return id + 1\n", "(id)", "(id, default=None)"),
], ids=["php-interface", "java-interface", "kotlin-expression", "csharp-expression",
        "python-one-line"])
def test_a_one_line_declaration_whose_parameters_change_is_a_signature_change(
        make_repo: type[GitRepoBuilder], path: str, before: str, old: str, new: str) -> None:
    # every line of the declaration changed on both sides: the same function, re-signed
    tags = _tags(make_repo(), path, before, before.replace(old, new))
    assert "signature_change" in tags, tags


@pytest.mark.parametrize(("before", "after"), [
    # a one-line function rewritten in its body only: its signature reads the same
    ("class Api {\n    fun get(id: Int) = id + 1\n}\n",
     "class Api {\n    fun get(id: Int) = id + 2\n}\n"),
    # a one-line function replaced by another of another name
    ("class Api {\n    fun get(id: Int) = id + 1\n}\n",
     "class Api {\n    fun fetch(id: Long) = id + 1\n}\n"),
], ids=["body-only", "renamed"])
def test_a_one_line_declaration_rewritten_alike_is_not_a_signature_change(
        make_repo: type[GitRepoBuilder], before: str, after: str) -> None:
    tags = _tags(make_repo(), "Api.kt", before, after)
    assert "signature_change" not in tags, tags
