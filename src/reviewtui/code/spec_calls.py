"""Where a JavaScript/TypeScript spec file's test blocks start: ``describe`` / ``it`` / hooks.

A Mocha, Jest or Vitest spec is one ``describe(...)`` call whose callback holds ``it(...)``
calls: none of them is a definition, so an oversized hunk of such a file was cut at blank lines,
inside ``it`` blocks. The statements directly in the file and in the callback of a test call
longer than a unit are where it is best cut (each moved up over the comments right above it).

Parsed whole, and only when a spec file's hunk is oversized (``units.cut_points``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from reviewtui.code.grammars import grammar, parser
from reviewtui.code.languages import SPEC_LANGUAGES

# The functions of Mocha, Jest, Vitest and Jasmine that take a block of tests or a test
# (``describe.each(table)(name, fn)``, ``it.only``, ``test.skip`` read by their first name).
_TEST_CALLS = frozenset({
    "describe", "context", "suite", "it", "test", "specify", "fdescribe", "xdescribe",
    "fcontext", "xcontext", "fit", "xit", "xtest", "bench",
    "before", "after", "beforeEach", "afterEach", "beforeAll", "afterAll",
    "suiteSetup", "suiteTeardown", "setup", "teardown"})
_CALLBACKS = frozenset({"arrow_function", "function_expression", "function"})


@dataclass(frozen=True, slots=True)
class SpecBlocks:
    """``starts``: 1-based lines before which a spec file is best cut; ``spans``: the lines
    (first, last) of its top-level test calls, in file order."""

    starts: frozenset[int]
    spans: tuple[tuple[int, int], ...]


def spec_blocks(language: str, source: bytes, max_lines: int) -> SpecBlocks | None:
    """The test blocks of ``source``, or None if it is no spec (no top-level test call)."""
    g = grammar(language) if language in SPEC_LANGUAGES else None
    if g is None:
        return None
    root = parser(g).parse(source).root_node
    starts: set[int] = set()
    spans: list[tuple[int, int]] = []
    for statement in _statements(root, starts):
        if _test_body(statement) is not None:
            spans.append((statement.start_point[0] + 1, statement.end_point[0] + 1))
            _open(statement, max_lines, starts)
    return SpecBlocks(frozenset(starts), tuple(spans)) if spans else None


def _open(statement: Node, max_lines: int, starts: set[int]) -> None:
    """Cut points in the callback of the test call ``statement`` if it is longer than a unit,
    and in those of its own long test calls."""
    pending = [statement]
    while pending:
        call = pending.pop()
        body = _test_body(call)
        if body is None or call.end_point[0] - call.start_point[0] < max_lines:
            continue
        pending.extend(_statements(body, starts, first=False))


def _statements(block: Node, starts: set[int], *, first: bool = True) -> list[Node]:
    """The statements directly in ``block``; each one's first line, or that of the comments
    right above it, added to ``starts`` (not the first one's unless ``first``: a callback's
    first statement stays with the call's header line, which is a cut point itself)."""
    found: list[Node] = []
    comment_start: int | None = None  # first row of the comments right above the next one
    last_row = -2  # the last row of the previous child
    for child in block.named_children:
        row = child.start_point[0]
        if child.type == "comment":
            if row == last_row and comment_start is None:
                pass  # a comment after a statement on its line belongs to it
            elif comment_start is None or row > last_row + 1:
                comment_start = row
            last_row = child.end_point[0]
            continue
        if first or found:
            starts.add((comment_start if comment_start is not None and row == last_row + 1
                        else row) + 1)
        comment_start = None
        last_row = child.end_point[0]
        found.append(child)
    return found


def _test_body(statement: Node) -> Node | None:
    """The body of the callback of ``statement`` if it is a test call statement."""
    if statement.type != "expression_statement" or not statement.named_children:
        return None
    call = statement.named_children[0]
    if call.type == "await_expression" and call.named_children:
        call = call.named_children[0]
    if call.type != "call_expression" or _callee(call) not in _TEST_CALLS:
        return None
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return None
    for argument in arguments.named_children:
        if argument.type in _CALLBACKS:
            body = argument.child_by_field_name("body")
            if body is not None and body.type == "statement_block":
                return body
    return None


def _callee(call: Node) -> str | None:
    """The first name of a call's function: ``describe`` of ``describe.each(t)(...)``."""
    node: Node | None = call.child_by_field_name("function")
    while node is not None:
        if node.type == "identifier":
            return node.text.decode("utf-8", "replace") if node.text is not None else None
        if node.type == "call_expression":
            node = node.child_by_field_name("function")
        elif node.type == "member_expression":
            node = node.child_by_field_name("object")
        else:
            return None
    return None
