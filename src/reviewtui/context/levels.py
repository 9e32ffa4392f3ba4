"""The four context levels of seed 000 (上下文分层): what a reviewer sees around a unit's diff.

``diff_only`` is the diff with a location header; ``function`` adds the innermost definitions
around every changed range; ``file_context`` a wider window snapped to definition boundaries;
``full_file`` the whole file (head / around the changes / tail when it is long). The previous
version shows the old side the same way. All functions are pure: the caller hands in the file
versions (bytes from ``ContentReader``) and their structure, so results can be cached freely.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from reviewtui.code import Definition, FileStructure
from reviewtui.code.kinds import CONTAINER_KINDS
from reviewtui.config import ContextSettings
from reviewtui.context.changes import changed_ranges
from reviewtui.context.excerpt import (
    Range,
    Source,
    clamp_ranges,
    decode_lines,
    header,
    lines_of,
    looks_binary,
    merge_ranges,
    render_numbered,
    runs,
    widen,
)
from reviewtui.models import ContextLevel
from reviewtui.units.model import ReviewUnit

Text = bytes | str


LEVEL_FIELDS: dict[ContextLevel, str] = {
    ContextLevel.FUNCTION: "function_context",
    ContextLevel.FILE_CONTEXT: "file_context",
    ContextLevel.FULL_FILE: "full_file",
}


@dataclass(frozen=True, slots=True)
class _Side:
    source: Source
    structure: FileStructure | None
    ranges: tuple[Range, ...]  # the changed ranges on this side


@dataclass(frozen=True, slots=True)
class _Block:
    what: str | None  # "function handle", "module level"...
    lo: int
    hi: int
    keep: frozenset[int]

    def render(self, source: Source) -> str:
        lines = render_numbered(source, self.keep, lo=self.lo, hi=self.hi)
        return "\n".join([header(source, [(self.lo, self.hi)], self.what), *lines])


# --- choosing the side ---------------------------------------------------------------------


def _side(unit: ReviewUnit, data: Text | None, structure: FileStructure | None, *,
          before: bool) -> _Side | None:
    if data is None or "binary" in unit.tags or looks_binary(data):
        return None
    lines = decode_lines(data)
    path = (unit.old_path or unit.file_path) if before else unit.file_path
    changed = changed_ranges(unit)
    ranges = clamp_ranges(changed.old if before else changed.new, len(lines))
    if structure is not None and structure.line_count > len(lines) + 1:
        structure = None  # not this version's structure: better a window than wrong names
    return _Side(Source(path, lines, before), structure, tuple(ranges))


def _removes_only(unit: ReviewUnit) -> bool:
    return unit.change_type == "delete" or (unit.added_lines == 0 and unit.removed_lines > 0)


def _primary(unit: ReviewUnit, new_text: Text | None, structure: FileStructure | None,
             old_text: Text | None, old_structure: FileStructure | None) -> _Side | None:
    """The after side, except for deleted files and pure deletions (old side, old numbers)."""
    if _removes_only(unit) and old_text is not None:
        return _side(unit, old_text, old_structure, before=True)
    if unit.change_type == "delete":
        return None
    return _side(unit, new_text, structure, before=False)


# --- function level ------------------------------------------------------------------------


def _definition_block(source: Source, definition: Definition, changed: list[int],
                      settings: ContextSettings) -> _Block:
    lo, hi = definition.start_line, min(definition.end_line, source.count)
    length = hi - lo + 1
    sig_end = min(max(definition.signature_end_line, lo), hi)
    what = f"{definition.kind} {definition.qualified_name}"
    window = settings.window_lines
    around = lines_of(r for r in widen(runs(changed), window, source.count))
    inside = set(range(lo, hi + 1))
    if definition.kind in CONTAINER_KINDS and length > (sig_end - lo + 1) + 2 * window + 1:
        keep = (set(range(lo, sig_end + 1)) | around) & inside
        return _Block(f"{what}, around the changes", lo, hi, frozenset(keep))
    limit = settings.max_function_lines
    if length > limit:
        head_end = max(sig_end, lo + limit // 5 - 1)
        tail_start = hi - max(1, limit // 10) + 1
        keep = (set(range(lo, head_end + 1)) | around | set(range(tail_start, hi + 1))) & inside
        return _Block(f"{what}, {length} lines, shortened", lo, hi, frozenset(keep))
    return _Block(what, lo, hi, frozenset(inside))


def _window_blocks(source: Source, changed: list[int], shown: set[int], what: str | None,
                   window: int) -> list[_Block]:
    """Windows around changed lines outside any definition, minus lines other blocks show."""
    blocks: list[_Block] = []
    mine = set(changed)
    for lo, hi in widen(runs(changed), window, source.count):
        keep = {n for n in range(lo, hi + 1) if n not in shown or n in mine}
        if keep:
            blocks.append(_Block(what, min(keep), max(keep), frozenset(keep)))
    return blocks


def _function_blocks(side: _Side, settings: ContextSettings) -> list[_Block]:
    source, structure = side.source, side.structure
    numbers = sorted(lines_of(side.ranges))
    if not numbers:
        return []
    if structure is None:
        return _window_blocks(source, numbers, set(), None, settings.window_lines)
    # Blank changed lines between two methods belong to the class; they must not pull it in.
    meaningful = [n for n in numbers if source.lines[n - 1].strip()] or numbers
    owners: dict[Definition, list[int]] = {}
    loose: list[int] = []
    for n in meaningful:
        definition = structure.enclosing(n)
        if definition is None or definition.start_line > source.count:
            loose.append(n)
        else:
            owners.setdefault(definition, []).append(n)
    blocks = [_definition_block(source, d, lines, settings) for d, lines in owners.items()]
    shown = set().union(*(b.keep for b in blocks))
    blocks += _window_blocks(source, loose, shown, "module level", settings.window_lines)
    return sorted(blocks, key=lambda b: (b.lo, -b.hi))


def _joined(source: Source, blocks: list[_Block]) -> str | None:
    return "\n\n".join(b.render(source) for b in blocks) if blocks else None


# --- file level ----------------------------------------------------------------------------


def _edge_definition(structure: FileStructure, line: int) -> Definition | None:
    """The top-level or class-level definition around ``line`` (not a nested helper)."""
    chain = structure.containing(line)
    for i, definition in enumerate(chain):
        outer = chain[i + 1] if i + 1 < len(chain) else None
        if outer is None or outer.kind in CONTAINER_KINDS:
            return definition
    return None


def _snap(windows: list[Range], structure: FileStructure | None, count: int) -> list[Range]:
    """Move window edges out to definition boundaries when that at most doubles the window."""
    if structure is None:
        return windows
    snapped: list[Range] = []
    for lo, hi in windows:
        size = hi - lo + 1
        first = _edge_definition(structure, lo) if lo > 1 else None
        last = _edge_definition(structure, hi) if hi < count else None
        grow_lo = lo - first.start_line if first is not None and first.start_line < lo else 0
        grow_hi = (min(last.end_line, count) - hi
                   if last is not None and last.end_line > hi else 0)
        for take_lo, take_hi in ((grow_lo, grow_hi), (grow_lo, 0), (0, grow_hi), (0, 0)):
            if take_lo + take_hi <= size:
                snapped.append((lo - take_lo, hi + take_hi))
                break
    return merge_ranges(snapped)


def _file_view(side: _Side, settings: ContextSettings) -> str | None:
    source = side.source
    if not side.ranges:
        return None
    keep: set[int] = set()
    for block in _function_blocks(side, settings):
        keep |= block.keep
    windows = widen(side.ranges, settings.file_context_lines, source.count)
    keep |= lines_of(_snap(windows, side.structure, source.count))
    lines = render_numbered(source, keep, lo=1, hi=source.count)
    return "\n".join([header(source, runs(keep)), *lines])


# --- public API ----------------------------------------------------------------------------


def diff_excerpt(unit: ReviewUnit) -> str:
    """The unit's numbered diff, each hunk under a seed-style ``@@ path:L20-35 @@`` header."""
    if not unit.hunks:
        return f"@@ {unit.location} @@\n(no line changes)"
    parts: list[str] = []
    for hunk in unit.hunks:
        added = [ln.new_no for ln in hunk.lines if ln.kind == "+" and ln.new_no is not None]
        removed = [ln.old_no for ln in hunk.lines if ln.kind == "-" and ln.old_no is not None]
        if added:
            where = f"{unit.file_path}:{_span(added)}"
        elif removed:
            where = f"{unit.file_path}:{_span(removed)} (removed)"
        else:
            where = f"{unit.file_path}:L{hunk.new_start}"
        body = dataclasses.replace(unit, hunks=(hunk,)).diff_text(numbered=True)
        parts.append(f"@@ {where} @@\n{body}")
    return "\n".join(parts)


def _span(numbers: list[int]) -> str:
    low, high = min(numbers), max(numbers)
    return f"L{low}" if low == high else f"L{low}-{high}"


def function_context(unit: ReviewUnit, new_text: Text | None, structure: FileStructure | None,
                     settings: ContextSettings, *, old_text: Text | None = None,
                     old_structure: FileStructure | None = None) -> str | None:
    """The innermost definition around every changed range (decorators included), numbered.

    Long definitions keep head, the lines around the changes and tail; changes outside any
    definition, and files without a grammar, get ``settings.window_lines`` lines around them.
    Pure deletions and deleted files use the old side (pass ``old_text``) with old numbers.
    """
    side = _primary(unit, new_text, structure, old_text, old_structure)
    if side is None:
        return None
    return _joined(side.source, _function_blocks(side, settings))


def file_context(unit: ReviewUnit, new_text: Text | None, structure: FileStructure | None,
                 settings: ContextSettings, *, old_text: Text | None = None,
                 old_structure: FileStructure | None = None) -> str | None:
    """``settings.file_context_lines`` around every changed range, snapped to definitions.

    Always a superset of the function level; one numbered listing with ``…`` over the gaps.
    """
    side = _primary(unit, new_text, structure, old_text, old_structure)
    return None if side is None else _file_view(side, settings)


def full_file(unit: ReviewUnit, new_text: Text | None, settings: ContextSettings, *,
              old_text: Text | None = None) -> str | None:
    """The whole file, numbered; beyond ``full_file_max_lines``: head, changes, tail."""
    side = _primary(unit, new_text, None, old_text, None)
    if side is None:
        return None
    source = side.source
    if source.count == 0:
        return header(source, [], "empty file")
    limit = settings.full_file_max_lines
    if source.count <= limit:
        lines = render_numbered(source, range(1, source.count + 1))
        return "\n".join([header(source, [(1, source.count)]), *lines])
    quarter = limit // 4
    keep = set(range(1, quarter + 1)) | set(range(source.count - quarter + 1, source.count + 1))
    keep |= _middle(side.ranges, limit - 2 * quarter, source.count)
    lines = render_numbered(source, keep)
    what = f"{source.count} lines; head, around the changes, tail"
    return "\n".join([header(source, [(1, source.count)], what), *lines])


def _middle(ranges: tuple[Range, ...], budget: int, count: int) -> set[int]:
    """About ``budget`` lines centred on the changed ranges."""
    if not ranges:
        return set()
    changed = sorted(lines_of(ranges))
    if len(changed) >= budget:
        return set(changed[:budget])
    radius = (budget - len(changed)) // (2 * len(ranges))
    return lines_of(widen(ranges, radius, count))


def previous_version(unit: ReviewUnit, old_text: Text | None,
                     old_structure: FileStructure | None,
                     settings: ContextSettings) -> str | None:
    """The old side around the unit's old ranges, labelled with the old path and numbers.

    Function level (the old enclosing definitions, or a window); a deleted file at file-context
    width; None for an added file, a binary file or a change without old content.
    """
    if unit.change_type == "add" or old_text is None:
        return None
    side = _side(unit, old_text, old_structure, before=True)
    if side is None or not side.ranges:
        return None
    if unit.change_type == "delete":
        return _file_view(side, settings)
    return _joined(side.source, _function_blocks(side, settings))


def level_context(level: ContextLevel, unit: ReviewUnit, new_text: Text | None,
                  structure: FileStructure | None, settings: ContextSettings, *,
                  old_text: Text | None = None,
                  old_structure: FileStructure | None = None) -> str | None:
    """The text for ``level``'s bundle field (``LEVEL_FIELDS``); None for ``diff_only``."""
    if level is ContextLevel.FUNCTION:
        return function_context(unit, new_text, structure, settings, old_text=old_text,
                                old_structure=old_structure)
    if level is ContextLevel.FILE_CONTEXT:
        return file_context(unit, new_text, structure, settings, old_text=old_text,
                            old_structure=old_structure)
    if level is ContextLevel.FULL_FILE:
        return full_file(unit, new_text, settings, old_text=old_text)
    return None
