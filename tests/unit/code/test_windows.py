"""Skeleton analysis answers exactly like a whole-file parse for the changed lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.code import Definition, FileStructure, analyze_source
from reviewtui.code.block_starts import Lines
from reviewtui.code.windows import skeletons

DATA = Path(__file__).parents[2] / "data" / "code"


def _key(d: Definition | None) -> tuple[str, str, int, int, int] | None:
    return None if d is None else (d.kind, d.qualified_name, d.start_line, d.header_line,
                                   d.signature_end_line)


def _assert_same(language: str, source: str, ranges: list[tuple[int, int]]) -> FileStructure:
    data = source.encode()
    full = analyze_source(language, data)
    part = analyze_source(language, data, ranges)
    assert full is not None and part is not None
    rows = source.split("\n")
    for low, high in ranges:
        for line in range(low, high + 1):
            if rows[line - 1].strip():
                assert _key(part.enclosing(line)) == _key(full.enclosing(line)), line
        assert [_key(d) for d in part.defined_in(low, high)] == [
            _key(d) for d in full.defined_in(low, high)]
    # what the changed lines do (units read nothing else): as a whole-file parse reads it
    from reviewtui.code.analyze import _analyze
    from reviewtui.code.grammars import grammar

    g = grammar(language)
    assert g is not None
    assert part.line_kinds == _analyze(g, data, ranges).line_kinds
    return part


def _big_python_class() -> str:
    methods = "".join(
        f"    @property\n    def m{i}(self):\n        value = {i}\n        return value\n\n"
        for i in range(80)
    )
    decorated = (
        "    @decorator(\n        arg=1,\n    )\n    def special(self, a,\n"
        "                b):\n        return a + b\n"
    )
    head = 'import os\n\n\nclass Big:\n    """Doc."""\n\n'
    return f"{head}{methods}{decorated}\n\ndef tail():\n    pass\n"


def test_python_skeleton_matches_full_parse() -> None:
    source = _big_python_class()
    lines = source.split("\n")
    target = lines.index("        value = 40") + 1
    special = next(i for i, line in enumerate(lines) if "def special" in line) + 1
    part = _assert_same("python", source, [(target, target), (special - 2, special + 1)])
    # The skeleton really is smaller than the file...
    skel = skeletons(Lines(source.encode()), [(target, target)])
    assert sum(len(rows) for rows in skel) < len(lines) // 4
    # ...and still knows the class and the multi-line decorator.
    inner = part.enclosing(target)
    assert inner is not None and inner.qualified_name == "Big.m40" and inner.kind == "method"
    decorated = part.enclosing(special)
    assert decorated is not None and decorated.decorators == ("@decorator(\n        arg=1,\n    )",)


def test_java_skeleton_matches_full_parse() -> None:
    methods = "".join(
        f"    @Override\n    public int m{i}() {{\n        return {i};\n    }}\n\n"
        for i in range(60)
    )
    source = f"package a;\n\npublic class Big {{\n{methods}}}\n"
    lines = source.split("\n")
    target = lines.index("        return 30;") + 1
    part = _assert_same("java", source, [(target, target)])
    inner = part.enclosing(target)
    assert inner is not None and inner.qualified_name == "Big.m30"


def test_a_cut_inside_a_string_falls_back_to_a_full_parse() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(200))
    source = f"def f():\n    text = '''\nnot code at column zero\n'''\n{body}    return text\n"
    lines = source.split("\n")
    target = lines.index("    x150 = 150") + 1
    part = _assert_same("python", source, [(3, 3), (target, target)])
    assert not part.has_errors


@pytest.mark.parametrize("language", ["go", "typescript", "ruby"])
def test_other_languages_match(language: str) -> None:
    if language == "go":
        funcs = "".join(f"func F{i}() int {{\n\treturn {i}\n}}\n\n" for i in range(80))
        source = f"package p\n\n{funcs}"
        needle = "\treturn 40"
    elif language == "typescript":
        funcs = "".join(f"  m{i}(): number {{\n    return {i};\n  }}\n\n" for i in range(80))
        source = f"export class C {{\n{funcs}}}\n"
        needle = "    return 40;"
    else:
        funcs = "".join(f"  def m{i}\n    {i}\n  end\n\n" for i in range(80))
        source = f"class C\n{funcs}end\n"
        needle = "    40"
    target = source.split("\n").index(needle) + 1
    _assert_same(language, source, [(target, target)])


def _windowed(language: str, source: str, ranges: list[tuple[int, int]]) -> bool:
    """Did the skeletons parse cleanly (no whole-file fallback)?"""
    from reviewtui.code.analyze import _analyze_windows
    from reviewtui.code.grammars import grammar

    g = grammar(language)
    assert g is not None
    return _analyze_windows(g, source.encode(), ranges) is not None


def _methods(count: int, start: int = 0) -> str:
    return "".join(f"    def m{i}(self):\n        return {i}\n\n"
                   for i in range(start, start + count))


def test_docstring_prose_is_no_block_start() -> None:
    doc = '    """\n    Standard storage\n    across two lines.\n    """\n\n'
    source = f"class Storage:\n{doc}{_methods(120)}"
    target = source.split("\n").index("        return 90") + 1
    _assert_same("python", source, [(3, 3), (target, target)])
    assert _windowed("python", source, [(3, 3), (target, target)])


def test_a_multi_line_decorator_after_the_change_stays_with_its_method() -> None:
    decorated = ("    @override_settings(\n        A=[\n            {'x': 1},\n        ],\n    )\n"
                 "    def special(self):\n        return 'special'\n\n")
    source = f"class T:\n{_methods(60)}{decorated}{_methods(60, 60)}"
    lines = source.split("\n")
    before = lines.index("        return 59") + 1
    inside = lines.index("            {'x': 1},") + 1
    for ranges in ([(before, before)], [(inside, inside)], [(before, inside)]):
        _assert_same("python", source, ranges)
        assert _windowed("python", source, ranges)
    part = analyze_source("python", source.encode(), [(inside, inside)])
    assert part is not None
    special = part.enclosing(inside)
    assert special is not None and special.name == "special"


def test_a_comment_at_the_def_column_inside_a_body_does_not_cut_it() -> None:
    odd = "def odd():\n    a = 1\n# a comment at column zero\n    return a\n\n"
    source = f"{odd}" + "".join(f"def f{i}():\n    return {i}\n\n" for i in range(120))
    _assert_same("python", source, [(2, 2), (4, 4)])
    part = analyze_source("python", source.encode(), [(2, 2)])
    assert part is not None
    odd_def = part.enclosing(2)
    assert odd_def is not None and odd_def.name == "odd" and odd_def.end_line == 4


def _string_rows(data: bytes) -> set[int]:
    """Rows inside triple-quoted strings, as the module once found them: a regex of the two
    quotes, each closed string's rows after its opening quote's, up to its closing quote's."""
    import re

    inside: set[int] = set()
    opened: bytes | None = None
    open_row = 0
    for match in re.finditer(rb'"""|\'\'\'', data):
        row = data.count(b"\n", 0, match.start())
        if opened is None:
            opened, open_row = match.group(), row
        elif match.group() == opened:
            inside.update(range(open_row + 1, row + 1))
            opened = None
    return inside


def _starts_line_by_line(data: bytes, indent: int) -> list[int]:
    """Block starts as the multi-line ``^`` regex this module used to scan with found them."""
    import re

    from reviewtui.code.block_starts import NOT_START

    pattern = re.compile(rb"^[ \t]{%d}(?!%s)" % (indent, NOT_START))
    strings = _string_rows(data)
    return [row for row, line in enumerate(data.split(b"\n"))
            if pattern.match(line + (b"\n" if row < data.count(b"\n") else b""))
            and row not in strings]


_STARTS_CASES = [
    b"", b"\n", b"x = 1\n", b"def f():\n    return 1\n\n\nclass A:\n    x = 1\n    def g(self):\n"
    b"        pass\n", b"  \n\tx\r\n  y\r\n    z", b'def f():\n    """\n    prose\n    """\n'
    b"    return 2\n", b"\n\n    a\n    b\n",
    b'x = """\nprose\n  more\n"""\ny = 1\n\'\'\'\n"""\n\'\'\'\nz = """open\nw\n',
    b"class A:\n    else\n    elsewhere = 1\n    template <\n    x\n    ",
]


@pytest.mark.parametrize("data", _STARTS_CASES)
def test_block_starts_are_found_on_every_row(data: bytes) -> None:
    for indent in (0, 1, 2, 4, 8):
        assert Lines(data).starts(indent) == _starts_line_by_line(data, indent), indent


@pytest.mark.parametrize("data", _STARTS_CASES)
def test_block_starts_of_a_stretch_of_rows_are_those_of_the_file(data: bytes) -> None:
    """A nested block's starts are scanned in its parent's rows only: the same rows as a
    scan of the whole file cut to them, whichever rows the stretch begins or ends with."""
    count = len(data.split(b"\n"))
    for indent in (0, 2, 4):
        every = _starts_line_by_line(data, indent)
        for low in range(count):
            for high in range(low, count + 1):
                source = Lines(data)
                assert source.starts(indent, low, high) == [
                    row for row in every if low <= row <= high], (indent, low, high)


def test_access_labels_are_the_rows_of_whole_label_lines() -> None:
    from reviewtui.code.windows import _access_label

    data = (b"class A {\r\npublic:\r\n  int x;\n private :\n  int y;\n protected slots:\n"
            b"  void f();\n  public: int z;\n  // private:\n};\npublic:")
    source = Lines(data)
    assert source.access_labels() == [3, 5, 10]  # not the CRLF one, nor one with code after
    assert _access_label(source, 0, 10) == 5
    assert _access_label(source, 0, 5) == 3
    assert _access_label(source, 4, 5) is None
    assert _access_label(source, 0, 11) == 10
    assert Lines(b"class B:\n    x = 1\n").access_labels() == []


def test_triple_quotes_are_found_where_a_regex_of_the_two_finds_them() -> None:
    """``bytes.find`` for each of the two, merged, gives the regex's matches: runs of four or
    five quotes, mixed quotes, quotes at the ends, escaped ones."""
    import random
    import re

    from reviewtui.code.block_starts import _merged, _quote_positions

    regex = re.compile(rb'"""|\'\'\'')
    pieces = [b'"', b"'", b'"""', b"'''", b"\\", b"\n", b"x", b" ", b'""""', b"'''''"]
    chosen = random.Random(7)
    for _ in range(3000):
        data = b"".join(chosen.choice(pieces) for _ in range(chosen.randrange(0, 25)))
        found = _merged(_quote_positions(data, b'"""'), _quote_positions(data, b"'''"))
        assert found == [(m.start(), m.group()) for m in regex.finditer(data)], data


def test_block_starts_skip_rows_in_strings_of_either_quote_or_both() -> None:
    """Strings of one kind of quote pair up in order (the quick way), of both kinds as the scan
    left to right pairs them: either way the rows inside them are no block starts."""
    import random

    pieces = [b'"""', b"'''", b"\n", b"x", b"    ", b"x\n", b'"', b"'"]
    chosen = random.Random(11)
    for _ in range(2000):
        kinds = chosen.choice([pieces, pieces[1:], pieces[:1] + pieces[2:]])
        data = b"".join(chosen.choice(kinds) for _ in range(chosen.randrange(0, 30)))
        for indent in (0, 4):
            assert Lines(data).starts(indent) == _starts_line_by_line(data, indent), data


def test_a_change_inside_a_ruby_block_comment_is_read_as_a_comment() -> None:
    # ``=begin`` ... ``=end`` comments out every line between, at column 0 like code: a window
    # around a line inside read it as code (``old two``: a call) and parsed cleanly.
    body = b"".join(b"step %d\n" % i for i in range(200))  # valid code, read alone
    src = b"class A\n  def f\n  end\nend\n\n=begin\n" + body + b"=end\ndef g; end\n"
    whole = analyze_source("ruby", src)
    windowed = analyze_source("ruby", src, [(100, 100)])
    assert whole is not None and windowed is not None
    assert 100 in whole.comment_lines
    assert 100 in windowed.comment_lines
    assert windowed.enclosing(100) is None


def _one_line_annotated(annotation: str, header: str, field: str, count: int = 30) -> str:
    """A class of annotated methods between two plain members (a field, a last method)."""
    body = "".join(f"        x{j}();\n" for j in range(4))
    return (f"class Cases {{\n    {field}\n\n" + "\n".join(
        f"    {annotation} {header.format(i=i)} {{\n{body}    }}\n" for i in range(count))
        + f"\n    {header.format(i='Last')} {{\n    }}\n}}\n")


@pytest.mark.parametrize(("language", "source"), [
    ("kotlin", _one_line_annotated("@Test", "fun case{i}()",
                                   "private val a =\n        listOf(\n            1,\n        )")),
    ("java", _one_line_annotated("@Test", "public void case{i}()",
                                 "private final List<Integer> a =\n        List.of(\n"
                                 "            1);")),
    ("java", _one_line_annotated('@SuppressWarnings("x")', "void case{i}()",
                                 "int a =\n        f(\n            1);")),
    ("typescript", _one_line_annotated("@Input()", "case{i}(): void",
                                       "private a =\n        f(\n            1);")),
], ids=["kotlin", "java", "java-arguments", "typescript"])
def test_a_member_annotated_on_its_header_line_starts_a_block(language: str, source: str) -> None:
    # "@Test fun case3() {": the annotation and the header on one line; the member is a block
    # of its own, not part of the one above (the skeleton read a change in case3 as case0's)
    rows = source.split("\n")
    case15 = rows.index(next(r for r in rows if "case15()" in r)) + 1
    _assert_same(language, source, [(case15 + 2, case15 + 3)])


def test_okhttp_raw_strings_in_one_line_test_methods_are_in_their_method() -> None:
    source = (DATA / "WebSocketWriterTest.kt").read_text()
    part = _assert_same("kotlin", source, [(134, 137), (173, 176)])
    assert part.enclosing(135) is not None
    assert part.enclosing(135).qualified_name == "WebSocketWriterTest.serverBinaryMessage"


_SETTINGS = ('@override_settings(\n    TEMPLATES=[\n        {\n            "OPTIONS": {\n'
             '                "debug": True,\n            },\n        }\n    ],\n)\n')


@pytest.mark.parametrize("head", [
    # Django's ``@override_settings(`` over a test class: its argument lines ending in ``{``
    # were taken for the class's header, the piece did not parse, the whole file was parsed
    f"{_SETTINGS}class Tests(Base):\n",
    # a header over several lines: its first line was taken for all of it (Ruby's rule)
    "@override_settings(ROOT_URLCONF='urls')\nclass Tests(\n    Mixin, Base\n):\n",
], ids=["multi-line decorator", "multi-line header"])
def test_a_long_class_under_a_long_head_is_windowed(head: str) -> None:
    source = f"import os\n\n\n{head}{_methods(80)}"
    target = source.split("\n").index("        return 40") + 1
    part = _assert_same("python", source, [(target, target)])
    assert _windowed("python", source, [(target, target)])
    inner = part.enclosing(target)
    assert inner is not None and inner.qualified_name == "Tests.m40"


def test_a_change_in_the_decorator_of_the_class_after_a_long_one_is_windowed() -> None:
    """The decorator's arguments sit at the end of the long class's rows: they are the next
    class's, not a block of the long one's body."""
    source = (f"import os\n\n\nclass First(Base):\n{_methods(80)}\n{_SETTINGS}"
              f"class Second(Base):\n{_methods(5)}\n\nclass Third:\n{_methods(80)}")
    lines = source.split("\n")
    inside = lines.index('                "debug": True,') + 1
    part = _assert_same("python", source, [(inside - 2, inside)])
    assert _windowed("python", source, [(inside - 2, inside)])
    second = part.enclosing(inside)
    assert second is not None and second.qualified_name == "Second"


def test_a_javascript_file_under_a_block_comment_of_unindented_prose_is_windowed() -> None:
    """Django's admin scripts open with ``/*`` prose lines at column 0 ``*/``: the block's
    start stopped at the ``*/`` line, and the piece did not parse."""
    funcs = "".join(f"        m{i}: function() {{\n            return {i};\n        }},\n"
                    for i in range(80))
    source = ("/*global gettext*/\n/*\nSelectFilter2 - a filter.\n\nRequires core.js.\n*/\n"
              f"'use strict';\n{{\n    window.SelectFilter = {{\n{funcs}    }};\n}}\n")
    target = source.split("\n").index("            return 40;") + 1
    _assert_same("javascript", source, [(target, target)])
    assert _windowed("javascript", source, [(target, target)])
