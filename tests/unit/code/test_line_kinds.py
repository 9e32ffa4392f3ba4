"""What changed lines do, read off the parse (``code.line_kinds``), in every grammar shipped."""

from __future__ import annotations

import pytest
from tree_sitter import QueryCursor

from reviewtui.code import analyze_source
from reviewtui.code.grammars import grammar, parser
from reviewtui.code.line_kinds import kinds_query, line_kinds

# One snippet per language: each line is marked with the categories it must have (and only
# those among the marked lines' categories). Line numbers are 1-based.
SNIPPETS: dict[str, tuple[str, dict[int, set[str]]]] = {
    "python": (
        "def f(x, items):\n"                   # 1
        "    if x > 1:\n"                      # 2
        "        return None\n"                # 3
        "    try:\n"                           # 4
        "        x = x + 2\n"                  # 5
        "    except ValueError:\n"             # 6
        "        raise KeyError(x)\n"          # 7
        "    assert items\n"                   # 8
        "    msg = 'if x > 1: return'\n",      # 9
        {2: {"control", "compare"}, 3: {"return", "null"}, 4: {"error"}, 5: {"arith"},
         6: {"error"}, 7: {"error"}, 8: {"check"}, 9: set()}),
    "javascript": (
        "function f(x) {\n"                    # 1
        "  if (x === null) {\n"                # 2
        "    throw new Error('x');\n"          # 3
        "  }\n"                                # 4
        "  x += 1;\n"                          # 5
        "  return x ? 1 : 2;\n"                # 6
        "}\n",
        {2: {"control", "compare", "null"}, 3: {"error"}, 5: {"arith"},
         6: {"return", "control"}}),
    "go": (
        "package p\n"                          # 1
        "func f(x int) error {\n"              # 2
        "\terr := g(x)\n"                      # 3
        "\tif err != nil {\n"                  # 4
        "\t\treturn err\n"                     # 5
        "\t}\n"                                # 6
        "\tx = x * 2\n"                        # 7
        "\tpanic(\"no\")\n"                    # 8
        "}\n",
        {3: set(), 4: {"control", "compare", "error", "null"}, 5: {"return"}, 7: {"arith"},
         8: {"error"}}),
    "java": (
        "class A {\n"                          # 1
        "  int f(int x) {\n"                   # 2
        "    if (x <= 0) { throw new IllegalStateException(); }\n"  # 3
        "    try {\n"                          # 4
        "      x++;\n"                         # 5
        "    } catch (Exception e) {\n"        # 6
        "      return 0;\n"                    # 7
        "    }\n"                              # 8
        "    return x;\n"                      # 9
        "  }\n"
        "}\n",
        {3: {"control", "compare", "error"}, 4: {"error"}, 5: {"arith"}, 6: {"error"},
         7: {"return"}, 9: {"return"}}),
    "ruby": (
        "def f(x)\n"                           # 1
        "  if x == nil\n"                      # 2
        "    raise ArgumentError, 'x'\n"       # 3
        "  end\n"                              # 4
        "  x + 1\n"                            # 5
        "end\n",
        {2: {"control", "compare", "null"}, 3: {"error"}, 5: {"arith"}}),
    "rust": (
        "fn f(x: i32) -> Result<i32, E> {\n"   # 1
        "    if x < 0 {\n"                     # 2
        "        panic!(\"negative\");\n"      # 3
        "    }\n"                              # 4
        "    let y = g(x)?;\n"                 # 5
        "    return Ok(y * 2);\n"              # 6
        "}\n",
        {2: {"control", "compare"}, 3: {"error"}, 6: {"return", "arith"}}),
    # C's error handling: the jump to the cleanup label, a negative return, abort()
    "c": (
        "int f(char *p, int n) {\n"            # 1
        "  if(!p)\n"                           # 2
        "    goto fail;\n"                     # 3
        "  if(n < 0)\n"                        # 4
        "    return -EINVAL;\n"                # 5
        "  if(n > 9) return -1;\n"             # 6
        "  n = n - 1;\n"                       # 7
        "  abort();\n"                         # 8
        "fail:\n"                              # 9
        "  return 0;\n"                        # 10
        "}\n",
        {2: {"control"}, 3: {"error"}, 4: {"control", "compare"}, 5: {"error", "return"},
         6: {"control", "compare", "error", "return"}, 7: {"arith"}, 8: {"error"},
         10: {"return"}}),
}


@pytest.mark.parametrize("language", sorted(SNIPPETS))
def test_each_line_gets_what_it_does(language: str) -> None:
    source, expected = SNIPPETS[language]
    g = grammar(language)
    assert g is not None
    tree = parser(g).parse(source.encode())
    kinds = line_kinds(language, g.language, tree.root_node, None)
    for line, categories in expected.items():
        found = {c for c, lines in kinds.items() if line in lines}
        assert found == categories, (language, line, found)


@pytest.mark.parametrize("language", ["python", "javascript", "typescript", "tsx", "go",
                                      "java", "ruby", "rust", "c", "cpp", "csharp", "php",
                                      "kotlin"])
def test_every_grammar_says_at_least_conditions_comparisons_and_returns(language: str) -> None:
    g = grammar(language)
    assert g is not None
    found = kinds_query(language, g.language)
    assert found is not None
    categories = {category for category, _ in found[1]}
    assert {"control", "compare", "return", "error", "arith"} <= categories, categories


def test_only_the_asked_lines_are_read_and_a_window_numbers_them_as_the_file() -> None:
    filler = "".join(f"def g{i}(a):\n    return a + {i}\n\n\n" for i in range(60))
    source = (filler + "def target(x):\n    if x > 1:\n        return x * 2\n"
              "    return 0\n\n\n" + filler)
    start = filler.count("\n") + 2  # the `if` line
    whole = analyze_source("python", source.encode(), [(1, source.count("\n"))])
    windowed = analyze_source("python", source.encode(), [(start, start + 1)])
    assert whole is not None and windowed is not None
    assert windowed.line_kinds is not None and whole.line_kinds is not None
    assert windowed.line_kinds["control"] == frozenset({start})
    assert windowed.line_kinds["arith"] >= {start + 1}
    assert start + 1 in whole.line_kinds["arith"] and 2 in whole.line_kinds["arith"]
    assert 2 not in windowed.line_kinds["arith"]  # far from the change: not read
    # the context stage's whole-file parse asks for no line kinds and pays nothing for them
    assert analyze_source("python", source.encode()).line_kinds is None  # type: ignore[union-attr]


def test_ranges_read_together_still_give_only_their_own_lines() -> None:
    # 300 lines: the ranges 3 rows apart share one cursor range; the lines between them and
    # the parts of a multi-line condition outside them are not reported
    body = "".join(f"    if a > {i}:\n        return a - {i}\n" for i in range(150))
    source = ("def f(a):\n" + body + "    if (a and\n            a > 1):\n        return 1\n")
    g = grammar("python")
    assert g is not None
    root = parser(g).parse(source.encode()).root_node
    last_if = source.count("\n") - 2  # 1-based line of the `if (a and`
    ranges = [(2, 2), (6, 6), (10, 11), (last_if + 1, last_if + 1)]
    kinds = line_kinds("python", g.language, root, ranges)
    assert kinds["control"] == frozenset({2, 6, 10, last_if + 1})
    assert kinds["return"] == frozenset({11})
    assert kinds["arith"] == frozenset({11})
    assert kinds["compare"] == frozenset({2, 6, 10, last_if + 1})
    whole = line_kinds("python", g.language, root, None)
    for category, lines in kinds.items():
        wanted = {n for low, high in ranges for n in range(low, high + 1)}
        assert lines == whole[category] & wanted


_TS = ("// a comment\nimport { x } from './x';\nclass A {\n  m(a: number): number {\n"
       "    if (a > 1) {\n      return a * 2;\n    }\n    return null;\n  }\n}\n"
       "const f = (b: number) => b - 1;\n")
_MORE = {
    "typescript": _TS,
    "tsx": _TS,
    "cpp": ("#include <x.h>\nnamespace n {\nclass A {\n public:\n  int m(int a) {\n"
            "    if (a > 1) { return a * 2; }\n    try { g(); } catch (...) { throw; }\n"
            "    return nullptr == 0;\n  }\n};\n}  // n\n"),
    "csharp": ("using System;\nnamespace N {\n  class A {\n    int M(int a) {\n"
               "      if (a > 1) { return a * 2; }\n      // note\n      return a == 0 ? 1 : 2;\n"
               "    }\n  }\n}\n"),
    "php": ("<?php\nnamespace App;\nuse Foo\\Bar;\nclass A {\n  function m($a) {\n"
            "    if ($a > 1) { return $a * 2; }\n    # note\n    return null;\n  }\n}\n"),
    "kotlin": ("import a.b\nclass A {\n  fun m(a: Int): Int {\n    if (a > 1) {\n"
               "      return a * 2\n    }\n    // note\n    return when (a) { 0 -> 1 else -> 2 }\n"
               "  }\n}\n"),
}


@pytest.mark.parametrize("language", ["python", "javascript", "typescript", "tsx", "go",
                                      "java", "ruby", "rust", "c", "cpp", "csharp", "php",
                                      "kotlin"])
def test_one_walk_reads_structure_and_line_kinds_as_two_walks(language: str) -> None:
    # a parse mostly changed is read in one walk of the two queries in one: the structure
    # captures are those of the structure query, the line kinds those of ``line_kinds``
    from reviewtui.code.analyze import _both_query
    from reviewtui.code.line_kinds import kinds_in

    g = grammar(language)
    both = _both_query(language)
    assert g is not None and both is not None
    source = SNIPPETS[language][0] if language in SNIPPETS else _MORE[language]
    root = parser(g).parse(source.encode()).root_node
    found = QueryCursor(both).captures(root)
    alone = QueryCursor(g.query).captures(root)
    assert {name: [n.id for n in nodes] for name, nodes in found.items() if name in alone} == {
        name: [n.id for n in nodes] for name, nodes in alone.items()}
    lines = source.count("\n")
    for ranges in ([(1, lines)], [(2, 3), (5, lines)], None):
        assert kinds_in(found, ranges) == line_kinds(language, g.language, root, ranges)


def test_python_reads_a_few_asked_lines_in_one_walk_as_two_walks_read_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Python's parses are read in one walk of both queries however few lines are asked: the
    # same structure and line kinds as a walk of each (a docstring, comments, nested and
    # decorated definitions, conditions on lines outside the asked ones)
    from reviewtui.code import analyze

    source = ('"""Doc."""\nimport os\n\n\nclass A:\n    # note\n    @property\n'
              "    def m(self, a):\n        if a > 1:  # trailing\n            return a * 2\n"
              "        try:\n            x = a - 1\n        except ValueError:\n"
              "            raise\n        return None if a == 0 else x\n\n\n"
              "def f(b):\n    '''Doc.'''\n    return b or 1\n")
    data = source.encode()
    g = grammar("python")
    assert g is not None
    root = parser(g).parse(data).root_node
    lines = data.split(b"\n")
    for ranges in ([(9, 9)], [(2, 2), (12, 13)], [(20, 20)], []):
        assert analyze._mostly(ranges, root, "python")
        one = analyze._read(g, root, data, lines, ranges)
        monkeypatch.setattr(analyze, "_ONE_WALK_ALWAYS", frozenset())
        assert ranges == [] or not analyze._mostly(ranges, root, "python")
        two = analyze._read(g, root, data, lines, ranges)
        monkeypatch.undo()
        assert one == two, ranges
        assert one.kinds
