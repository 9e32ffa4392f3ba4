"""The review unit: the smallest piece of a change that is reviewed on its own."""

from __future__ import annotations

from dataclasses import dataclass

from reviewtui.git.model import Hunk


@dataclass(frozen=True, slots=True)
class Scope:
    """A definition a unit defines, sits in, or sits further out in (for the rule stage).

    ``role`` is ``defines`` (the unit adds, removes or re-signs it), ``encloses`` (the innermost
    definition around changed lines) or ``outer`` (a definition further out, e.g. the class of
    a changed method, whose decorators/annotations still apply).
    """

    kind: str
    name: str
    qualified_name: str
    role: str
    decorators: tuple[str, ...]
    signature: str
    start_line: int = 0  # the definition's lines (decorators included) on the side it was
    end_line: int = 0  # found on; 0 when unknown. The context stage sizes levels with them.


@dataclass(frozen=True, slots=True)
class ReviewUnit:
    unit_id: str
    file_path: str
    old_path: str | None
    language: str | None
    change_type: str  # add | modify | delete | rename
    tags: tuple[str, ...]
    hunks: tuple[Hunk, ...]
    added_lines: int
    removed_lines: int
    new_compact: str  # "L1-3,L5-7,L15": added lines, new numbering
    old_compact: str  # removed lines, old numbering
    location: str  # "path:L10-25"
    symbols: tuple[str, ...] = ()  # definitions the unit defines or re-signs
    functions: tuple[str, ...] = ()  # innermost definitions enclosing changed lines
    scopes: tuple[Scope, ...] = ()  # definitions with decorators and signatures, for rules
    parsed: bool = False  # the code structure of the changed sides was available
    # changed lines by (kind, number): ("+", new_no) or ("-", old_no). Prose is commentary
    # (comments, docstrings): rules that look for behaviour do not read it.
    prose_lines: frozenset[tuple[str, int]] = frozenset()
    import_lines: frozenset[tuple[str, int]] = frozenset()
    # what the changed code lines do, from the parse (``code.line_kinds``): (category, kind,
    # number), e.g. ("compare", "+", 12); None when the parse could not say (no grammar, or
    # a side not parsed), and the triage features fall back to patterns on the text
    line_kinds: frozenset[tuple[str, str, int]] | None = None

    def changed_lines(self) -> list[str]:
        """The text of every added and removed line, in diff order."""
        return [ln.text for hunk in self.hunks for ln in hunk.lines if ln.kind != " "]

    @property
    def hunk_count(self) -> int:
        return len(self.hunks)

    def span(self, side: str = "new") -> tuple[int, int] | None:
        """The first and last line the hunks cover on ``side`` (``new`` or ``old``); None
        when the unit has no lines there (a deleted file's new side)."""
        ranges = [(h.new_start, h.new_end) if side == "new" else (h.old_start, h.old_end)
                  for h in self.hunks if (h.new_count if side == "new" else h.old_count)]
        return (min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else None

    def covers(self, start: int, end: int, side: str = "new") -> bool:
        """Does a hunk of the unit cover any of the lines ``start``-``end`` of ``side``?"""
        for hunk in self.hunks:
            first, count = ((hunk.new_start, hunk.new_count) if side == "new"
                            else (hunk.old_start, hunk.old_count))
            if count and start <= first + count - 1 and first <= end:
                return True
        return False

    def diff_rows(self, *, numbered: bool = True) -> list[tuple[str, int | None]]:
        """The unit's hunks as text lines, each with its new-side line number (None for
        headers, removed lines and the no-newline marker)."""
        out: list[tuple[str, int | None]] = []
        for hunk in self.hunks:
            header = (f"@@ -{hunk.old_start},{hunk.old_count} "
                      f"+{hunk.new_start},{hunk.new_count} @@")
            out.append((f"{header} {hunk.section}".rstrip(), None))
            for line in hunk.lines:
                if numbered:
                    old = "" if line.old_no is None else str(line.old_no)
                    new = "" if line.new_no is None else str(line.new_no)
                    out.append((f"{old:>5} {new:>5} {line.kind}{line.text}", line.new_no))
                else:
                    out.append((f"{line.kind}{line.text}", line.new_no))
            if hunk.new_missing_newline or hunk.old_missing_newline:
                out.append(("\\ No newline at end of file", None))
        return out

    def diff_text(self, *, numbered: bool = True) -> str:
        """The unit's hunks as text; with old/new line numbers in front of every line."""
        return "\n".join(text for text, _ in self.diff_rows(numbered=numbered))


_new = object.__new__
_SETTERS = {name: getattr(ReviewUnit, name).__set__ for name in ReviewUnit.__slots__}
_set_unit_id, _set_file_path, _set_old_path = (
    _SETTERS["unit_id"], _SETTERS["file_path"], _SETTERS["old_path"])
_set_language, _set_change_type, _set_tags = (
    _SETTERS["language"], _SETTERS["change_type"], _SETTERS["tags"])
_set_hunks, _set_added_lines, _set_removed_lines = (
    _SETTERS["hunks"], _SETTERS["added_lines"], _SETTERS["removed_lines"])
_set_new_compact, _set_old_compact, _set_location = (
    _SETTERS["new_compact"], _SETTERS["old_compact"], _SETTERS["location"])
_set_symbols, _set_functions, _set_scopes = (
    _SETTERS["symbols"], _SETTERS["functions"], _SETTERS["scopes"])
_set_parsed, _set_prose_lines, _set_import_lines = (
    _SETTERS["parsed"], _SETTERS["prose_lines"], _SETTERS["import_lines"])
_set_line_kinds = _SETTERS["line_kinds"]


def review_unit(unit_id: str, file_path: str, old_path: str | None, language: str | None,
                change_type: str, tags: tuple[str, ...], hunks: tuple[Hunk, ...],
                added_lines: int, removed_lines: int, new_compact: str, old_compact: str,
                location: str, symbols: tuple[str, ...], functions: tuple[str, ...],
                scopes: tuple[Scope, ...], parsed: bool,
                prose_lines: frozenset[tuple[str, int]],
                import_lines: frozenset[tuple[str, int]],
                line_kinds: frozenset[tuple[str, str, int]] | None) -> ReviewUnit:
    """``ReviewUnit(...)`` with every field given, built through its slots' descriptors:
    twice as fast as the frozen dataclass' constructor (which sets its 19 fields one
    ``object.__setattr__`` at a time), for every unit cut and every unit a record gives back."""
    unit: ReviewUnit = _new(ReviewUnit)
    _set_unit_id(unit, unit_id)
    _set_file_path(unit, file_path)
    _set_old_path(unit, old_path)
    _set_language(unit, language)
    _set_change_type(unit, change_type)
    _set_tags(unit, tags)
    _set_hunks(unit, hunks)
    _set_added_lines(unit, added_lines)
    _set_removed_lines(unit, removed_lines)
    _set_new_compact(unit, new_compact)
    _set_old_compact(unit, old_compact)
    _set_location(unit, location)
    _set_symbols(unit, symbols)
    _set_functions(unit, functions)
    _set_scopes(unit, scopes)
    _set_parsed(unit, parsed)
    _set_prose_lines(unit, prose_lines)
    _set_import_lines(unit, import_lines)
    _set_line_kinds(unit, line_kinds)
    return unit


def unit_key(unit: ReviewUnit) -> str:
    """A unit's identity across edits (its content hash is the unit id): file and definition.

    "Reviewed" marks, the person's overrides and findings follow a unit by this key when the
    code is edited and the change collected again."""
    anchor = unit.functions[0] if unit.functions else unit.symbols[0] if unit.symbols else (
        f"L{unit.hunks[0].new_start}" if unit.hunks else "file")
    return f"{unit.file_path}::{anchor}"
