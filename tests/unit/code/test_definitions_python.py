"""The quick ways ``build_definitions`` takes for Python parses build what the general one does."""

from __future__ import annotations

from tree_sitter import QueryCursor

from reviewtui.code.analyze import _in_query_order
from reviewtui.code.definitions import build_definitions
from reviewtui.code.grammars import grammar, parser
from reviewtui.code.structure import Definition, new_definition

_TRICKY = '''"""Module."""
import functools


@functools.cache
@other(
    arg=1,
)
def top(a: int, *args, **kwargs) -> int:  # trailing
    """Doc."""
    def inner(b):
        return lambda c: c
    return inner(a)


async def coroutine(x) -> None:
    await x


@dataclass(frozen=True)
class Outer(Base, metaclass=Meta):
    # a comment
    class Inner:
        @property
        def value(self):
            return 1

        @staticmethod
        async def make(
            a,
            b,
        ) -> "Inner":
            return Inner()

    def method(self, x=lambda: 0):
        pass


if True:
    def conditional():
        pass

class Broken(:
    def after(self): pass
'''


def test_python_definitions_are_those_the_general_way_builds() -> None:
    # the general way looks for decorators among a function's own children and for C++
    # member sections; Python's grammar has neither, so skipping them changes nothing, even
    # in a parse with errors
    g = grammar("python")
    assert g is not None
    for kind in ("field_declaration_list", "field_declaration", "declaration", "modifiers",
                 "marker_annotation", "annotation", "attribute_list", "attribute_declaration"):
        assert g.language.id_for_node_kind(kind, True) is None, kind
    for source in (_TRICKY, _TRICKY.replace("class Broken(:", "class Fine:")):
        data = source.encode()
        root = parser(g).parse(data).root_node
        captures = _in_query_order(g, QueryCursor(g.query).captures(root))
        quick = build_definitions(captures, data, language="python")
        general = build_definitions(captures, data)
        assert quick == general
        assert {d.name for d in quick} >= {"top", "inner", "coroutine", "Outer", "Inner",
                                           "value", "make", "method", "conditional"}
        decorated = next(d for d in quick if d.name == "top")
        assert decorated.decorators == ("@functools.cache", "@other(\n    arg=1,\n)")


def test_a_definition_built_through_its_slots_is_the_dataclass_value() -> None:
    fields = {"kind": "method", "name": "m", "qualified_name": "A.m", "start_line": 3,
              "end_line": 9, "signature_end_line": 4, "header_line": 4, "parent": "A",
              "decorators": ("@x",), "signature": "def m(self)"}
    quick = new_definition(*fields.values())
    made = Definition(**fields)  # type: ignore[arg-type]
    assert quick == made and hash(quick) == hash(made) and repr(quick) == repr(made)
    assert [getattr(quick, name) for name in fields] == list(fields.values())
