"""Tags that follow from a unit's changed lines and the code structure around them.

only_comments, only_imports, only_logging, only_whitespace (layout only), only_data (numeric
tables), security_sensitive (by content) here; the structural tags (in_single_function,
complete_function, complete_class, signature_change, annotations_only) and the symbols the unit
defines or sits in come from ``units.structure_tags``. Changed "+" lines are judged against the
new file's structure, "-" lines against the old file's; without a parser (unsupported language,
unreadable content) the comment and import tags fall back to per-language line patterns and the
structural tags are not given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import repeat

from reviewtui.code import FileStructure
from reviewtui.code.kinds import FUNCTION_KINDS
from reviewtui.code.language_specs import CommentStyle, spec_for
from reviewtui.git.model import DiffLine
from reviewtui.units.definition_lookup import lookup_for
from reviewtui.units.model import Scope
from reviewtui.units.path_tags import identifier_tokens
from reviewtui.units.structure_tags import NUMBER as _NUMBER
from reviewtui.units.structure_tags import TRAILING_COMMA as _TRAILING_COMMA
from reviewtui.units.structure_tags import enclosing_tags, structure_tags
from reviewtui.units.vocabulary import Vocabulary

_COMMENT_LINE: dict[CommentStyle, re.Pattern[str]] = {
    CommentStyle.HASH: re.compile(r"^\s*#"),
    CommentStyle.SLASH: re.compile(r"^\s*(//|/\*|\*/|\*(\s|$))"),
    CommentStyle.DASH: re.compile(r"^\s*--"),
    CommentStyle.MARKUP: re.compile(r"^\s*(<!--.*-->\s*$|<!--|-->)"),
}
_IMPORT = re.compile(
    r"^\s*(import\s|from\s+\S+\s+import\s|export\s+.*\s+from\s|#include\s|require(_relative)?[\s(]"
    r"|(const|let|var)\s+.+=\s*require\(|using\s+[\w.]+\s*;|use\s+[\w:\\{}, ]+;"
    r"|package\s+[\w.]+;?\s*$)"
)
_LOGGING = re.compile(
    r"^\s*((self\.|this\.|@)?_?(log|logger|logging|LOG|LOGGER|Logger|console|slog|klog|zap|"
    r"Rails\.logger|log\.Default\(\))\s*(\.|::)\s*\w*"
    r"(debug|info|warn|warning|error|exception|critical|fatal|trace|log|print|Print|Debug|Info|"
    r"Warn|Error|Fatal|Trace)\w*\s*\(?"
    r"|fmt\.(Print|Fprint)\w*\(|System\.(out|err)\.print\w*\(|puts\s|print\s*\(|println!?\()"
)


@dataclass(frozen=True, slots=True)
class LineFacts:
    tags: frozenset[str]
    symbols: tuple[str, ...]  # definitions the unit defines or changes a signature of
    functions: tuple[str, ...]  # innermost enclosing definitions of changed lines
    scopes: tuple[Scope, ...] = ()
    parsed: bool = False
    prose: frozenset[tuple[str, int]] = frozenset()  # ("+", new_no) / ("-", old_no)
    imports: frozenset[tuple[str, int]] = frozenset()
    kinds: frozenset[tuple[str, str, int]] | None = None  # (category, "+"/"-", number)


def _line_kinds(plus: AbstractSet[int], minus: AbstractSet[int],
                old: FileStructure | None, new: FileStructure | None
                ) -> frozenset[tuple[str, str, int]] | None:
    """What each changed code line (by number) does by the parse; None unless every side with
    changed lines was parsed with its line kinds read."""
    sides = ((plus, new, "+"), (minus, old, "-"))
    if any(numbers and (side is None or side.line_kinds is None)
           for numbers, side, _ in sides):
        return None
    out: set[tuple[str, str, int]] = set()
    for numbers, side, kind in sides:
        if not numbers or side is None or side.line_kinds is None:
            continue
        for category, found in side.line_kinds.items():
            out.update(zip(repeat(category), repeat(kind), numbers & found))
    return frozenset(out)


def _prose_lines(lines: Sequence[tuple[int, str]], numbers: AbstractSet[int],
                 side: FileStructure | None, language: str | None) -> set[int]:
    """Lines that are only commentary: comments and docstrings (the parse knows them; without
    one, the language's comment markers). A comment that is behaviour all the same (a PHP
    docblock annotation such as ``@IsGranted``) is not prose. ``numbers``: those of
    ``lines``."""
    spec = spec_for(language)
    behaviour = spec.behaviour_comment if spec is not None else None
    if side is not None:
        if side.comment_lines.isdisjoint(numbers):
            return set()
        # (built in the lines' order, as every set here: a set's order follows how it grew,
        # and the unit's frozensets are iterated as they are)
        if behaviour is None:
            return {n for n, _ in lines if n in side.comment_lines}
        return {n for n, text in lines
                if n in side.comment_lines and not behaviour.match(text)}
    style = spec.comments if spec is not None else None
    if style is None:
        return set()
    comment = _COMMENT_LINE[style].match
    return {n for n, text in lines
            if comment(text) and not (behaviour is not None and behaviour.match(text))}


def _import_lines(lines: Sequence[tuple[int, str]], numbers: AbstractSet[int],
                  side: FileStructure | None) -> set[int]:
    if side is not None:
        if side.import_lines.isdisjoint(numbers):
            return set()
        return {n for n, _ in lines if n in side.import_lines}
    return {n for n, text in lines if _IMPORT.match(text)}


_QUOTED = re.compile(r"""(["'`])(?:\\.|(?!\1).)*\1""")


def mask_strings(line: str) -> str:
    """``line`` with the contents of its string literals left out (the quotes stay): a word in
    a message or a dictionary key is not the code's behaviour. A quote that is not closed on
    the line (a Rust lifetime, a string continued on the next line) is left as it is.

    No literal spans a line break, so lines joined by line breaks are masked at once, in one
    regex call, as they would be one by one."""
    if "'" not in line and '"' not in line and "`" not in line:
        return line
    # (a function, not the template r"\1\1": on Python 3.11 a template with group references
    # is expanded by Python code per match, twice as slow)
    return _QUOTED.sub(lambda m: m.group(1) * 2, line)


def security_in_lines(lines: Sequence[tuple[int, str]], vocab: Vocabulary, *,
                      strings: bool = False) -> bool:
    """Does any line use a security construct (``eval(``, ``verify=False``: patterns, which may
    read inside strings) or a security word in its code (``password``, not in a message)?
    ``strings``: words in string literals count too (a test's data is what it tests)."""
    texts = [text for _, text in lines]
    # All the lines at once: a line break separates words as any other punctuation does, so
    # its words are those of each line, one after the other.
    joined = "\n".join(texts)
    # no line is searched when the lines hold none of the literals every construct needs
    gate = vocab.security_gate
    if gate.may_hold_construct(joined) and any(map(vocab.security_code.search, texts)):
        return True
    # Every word is a piece of the lowercased text (masking strings only takes words away):
    # with no piece of a security word in it, there is none to find.
    if not gate.may_hold_word(joined.lower()):
        return False
    words = identifier_tokens(joined if strings else mask_strings(joined))
    return not vocab.security_code_tokens.isdisjoint(words)


# A line of numeric literals and punctuation: ``(0x1F600, 0x1F64F),`` or ``12, 34, 56,``.
_NUMERIC_DATA = re.compile(
    r"^[\s,:;()\[\]{}]*((0[xXoObB][0-9a-fA-F_]+|\d[\d_]*(\.\d+)?([eE][+-]?\d+)?[lLuU]*)"
    r"[\s,:;()\[\]{}+\-]*)+(#.*|//.*)?$")


_REPLACED = "\ufffd"  # what an undecodable byte reads as: its byte is unknown


def _layout_free(lines: list[tuple[int, str]]) -> str:
    """The lines with all layout removed: whitespace, and commas before a closing bracket."""
    # Whitespace taken out of the lines one by one or of their concatenation is the same.
    return _TRAILING_COMMA.sub("", "".join("".join([text for _, text in lines]).split()))


def _bare_size(lines: list[tuple[int, str]]) -> int:
    """Characters of the lines that are neither whitespace nor commas: two sides the same but
    for layout have as many (a quick "no" before comparing the whole sides)."""
    text = "".join("".join([text for _, text in lines]).split())
    return len(text) - text.count(",")


def line_facts(
    lines: Sequence[DiffLine],
    language: str | None,
    old: FileStructure | None,
    new: FileStructure | None,
    vocab: Vocabulary,
    *,
    scan_security: bool = True,
    lossy: bool = False,
) -> LineFacts:
    """The tags, symbols and scopes of a unit's changed ``lines``.

    ``lossy``: the lines were decoded with replacement characters (a non-UTF-8 file), so two
    lines that read the same may hold different bytes (Latin-1 "rémi" and "rèmi" both read
    "r?mi"): lines holding a replacement character are then never "only whitespace".
    """
    plus = [(ln.new_no or 0, ln.text) for ln in lines if ln.kind == "+"]
    minus = [(ln.old_no or 0, ln.text) for ln in lines if ln.kind == "-"]
    tags: set[str] = set()
    if not plus and not minus:
        return LineFacts(frozenset(), (), ())
    plus_code = [(n, t) for n, t in plus if t.strip()]
    minus_code = [(n, t) for n, t in minus if t.strip()]
    # The line numbers once, as sets: the questions below are set operations on them.
    plus_numbers = set(map(_NUMBER, plus_code))
    minus_numbers = set(map(_NUMBER, minus_code))
    prose_plus = _prose_lines(plus_code, plus_numbers, new, language)
    prose_minus = _prose_lines(minus_code, minus_numbers, old, language)
    if not plus or not minus:
        # One side is empty, and the other is all layout only when it is all blank (taking
        # whitespace and commas before a bracket out leaves the bracket).
        layout_only = not plus_code and not minus_code
    elif _bare_size(plus) != _bare_size(minus):
        layout_only = False  # (most units: the whole sides need not be compared)
    else:
        # Each side whole, the unchanged lines included: a line moved past an unchanged one
        # (two statements swapped) reads the same changed text in another order, and a comma
        # added before an unchanged closing bracket is a trailing comma.
        new_text = _layout_free([(0, ln.text) for ln in lines if ln.kind != "-"])
        old_text = _layout_free([(0, ln.text) for ln in lines if ln.kind != "+"])
        layout_only = new_text == old_text and not (
            lossy and any(_REPLACED in text for _, text in plus))
    if layout_only:
        tags.add("only_whitespace")  # layout only: spaces, line breaks, trailing commas
    elif plus_code or minus_code:
        # (the prose lines are some of the code lines: all are prose when as many)
        if len(prose_plus) == len(plus_numbers) and len(prose_minus) == len(minus_numbers):
            tags.add("only_comments")
        if all(side.import_lines.issuperset(numbers) if side is not None
               else all(_IMPORT.match(t) for _, t in code_lines)
               for code_lines, numbers, side in ((plus_code, plus_numbers, new),
                                                 (minus_code, minus_numbers, old))):
            tags.add("only_imports")
        if all(_LOGGING.match(t) for _, t in plus_code + minus_code):
            tags.add("only_logging")
        if all(_NUMERIC_DATA.match(t) for _, t in plus_code + minus_code):
            tags.add("only_data")  # tables of numbers (code points, offsets): nothing to run
    code = ((plus_code if not prose_plus else
             [(n, t) for n, t in plus_code if n not in prose_plus])
            + (minus_code if not prose_minus else
               [(n, t) for n, t in minus_code if n not in prose_minus]))
    if scan_security and not (tags & {"only_comments", "only_logging", "only_whitespace"}
                              ) and security_in_lines(code, vocab):
        tags.add("security_sensitive")

    symbols: list[str] = []
    functions: list[str] = []
    scopes: dict[tuple[str, str], Scope] = {}
    structural = (new is not None or not plus) and (old is not None or not minus)
    if structural:
        new_lookup = lookup_for(new) if new is not None else None
        old_lookup = lookup_for(old) if old is not None else None
        structure_tags(plus, minus, old_lookup, new_lookup, tags, symbols, scopes, language)
        enclosing_tags(plus_code, minus_code, old_lookup, new_lookup, tags, functions,
                       scopes)
        quiet = tags & {"only_comments", "only_logging", "only_whitespace", "only_imports"}
        if scan_security and "security_sensitive" not in tags and not quiet and any(
                vocab.security_code_tokens.intersection(identifier_tokens(scope.name))
                for scope in scopes.values() if scope.role != "outer"
                and scope.kind in FUNCTION_KINDS):
            tags.add("security_sensitive")  # the change sits in `login`, `check_password`...
    imports = ({("+", n) for n in _import_lines(plus_code, plus_numbers, new)}
               | {("-", n) for n in _import_lines(minus_code, minus_numbers, old)})
    kinds = (_line_kinds(plus_numbers if not prose_plus else
                         {n for n, _ in plus_code if n not in prose_plus},
                         minus_numbers if not prose_minus else
                         {n for n, _ in minus_code if n not in prose_minus}, old, new)
             if structural else None)
    return LineFacts(frozenset(tags), tuple(dict.fromkeys(symbols)),
                     tuple(dict.fromkeys(functions)), tuple(scopes.values()), structural,
                     frozenset({("+", n) for n in prose_plus} | {("-", n) for n in prose_minus}),
                     frozenset(imports), kinds)
