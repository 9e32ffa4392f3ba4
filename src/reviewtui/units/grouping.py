"""Cut a file's hunks into review units: merge close hunks, split oversized ones.

Nearby hunks (gap <= ``merge_gap`` lines) belong together, but a unit is capped by hunk count
and by changed lines, so a unit never swallows a whole file. A single hunk larger than the cap
(a new 2,000-line file) is split, preferably where a definition starts (``units.cut_points``) or
at a blank line, so each piece is still readable on its own: a piece ends before a definition
that would not fit in it whole, and not at a blank line when a definition starts before the cap.
A hunk that only removes lines (a deleted file) has no new side to read definitions from: it is
cut where the old version's definitions start, its lines numbered as the old version has them;
a hunk that does both is cut where either version's definitions start (a removed line at an old
one, any other line at a new one): forty functions replaced by a short table are cut between
the functions, as their removal alone is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter

from reviewtui.git.model import DiffLine, Hunk

_KIND = attrgetter("kind")
CutTest = Callable[[DiffLine], bool]  # is the hunk best cut before this line?


def _new_cut(cut_before: frozenset[int]) -> CutTest:
    return lambda line: line.new_no in cut_before


def _old_cut(cut_before: frozenset[int]) -> CutTest:
    return lambda line: line.old_no in cut_before


def _either_cut(new: frozenset[int], old: frozenset[int]) -> CutTest:
    """A removed line is a cut where the old version's definition starts, any other line where
    the new version's does."""
    return lambda line: (line.old_no in old) if line.kind == "-" else (line.new_no in new)


def _changed(hunk: Hunk) -> int:
    """The hunk's added and removed lines (its lines but the context ones, counted in C)."""
    return len(hunk.lines) - list(map(_KIND, hunk.lines)).count(" ")


def _piece(lines: list[DiffLine], old_pos: int, new_pos: int, section: str) -> Hunk:
    old_count = sum(1 for ln in lines if ln.kind != "+")
    new_count = sum(1 for ln in lines if ln.kind != "-")
    old_start = old_pos if old_count else max(old_pos - 1, 0)
    new_start = new_pos if new_count else max(new_pos - 1, 0)
    return Hunk(old_start, old_count, new_start, new_count, section, tuple(lines))


def _start(start: int, count: int) -> int:
    return start if count else start + 1


def _cut_test(kinds: set[str], cut_before: frozenset[int],
              old_cut_before: frozenset[int]) -> CutTest | None:
    """Where a hunk with lines of ``kinds`` is best cut: ``cut_before`` holds the new-side
    lines where a definition starts, ``old_cut_before`` the old-side ones (for its removed
    lines; all of them for a hunk that adds none); None: no definition is known."""
    if "+" not in kinds:
        return _old_cut(old_cut_before) if old_cut_before else None
    if "-" in kinds and old_cut_before:
        return _either_cut(cut_before, old_cut_before)
    return _new_cut(cut_before) if cut_before else None


def _to_next_cut(lines: Sequence[DiffLine], is_cut: CutTest) -> list[int]:
    """For each line, the changed lines from it (included) to the next cut point after it
    (excluded), or past the end of the hunk."""
    counts = [0] * len(lines)
    ahead = 0
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        if line.kind != " ":
            ahead += 1
        counts[i] = ahead
        if is_cut(line):
            ahead = 0
    return counts


def _split(hunk: Hunk, max_lines: int, is_cut: CutTest | None) -> list[Hunk]:
    """Split a hunk with more than ``max_lines`` changed lines into pieces of about that many
    at most; ``is_cut``: is a line where a definition starts (None: no definition is known,
    cut at blank lines)."""
    pieces: list[Hunk] = []
    current: list[DiffLine] = []
    changed = 0
    old_pos = _start(hunk.old_start, hunk.old_count)
    new_pos = _start(hunk.new_start, hunk.new_count)
    piece_old, piece_new = old_pos, new_pos
    soft_limit = max(max_lines // 2, 1)
    blank_limit = max(max_lines * 3 // 4, 1)
    small = max(max_lines // 4, 1)
    # changed lines to the next cut point: a definition that does not fit starts a new piece,
    # and a blank line is no cut when a definition starts before the cap
    ahead = _to_next_cut(hunk.lines, is_cut) if is_cut is not None else None
    for i, line in enumerate(hunk.lines):
        if ahead is None or is_cut is None:
            at_definition = False
            at_blank = changed >= blank_limit and not line.text.strip()
        else:
            at_definition = is_cut(line) and (
                changed >= soft_limit or (changed >= small and changed + ahead[i] > max_lines))
            at_blank = (changed >= blank_limit and changed + ahead[i] > max_lines
                        and not line.text.strip())
        if current and (changed >= max_lines or at_definition or at_blank):
            pieces.append(_piece(current, piece_old, piece_new, hunk.section))
            current, changed = [], 0
            piece_old, piece_new = old_pos, new_pos
        current.append(line)
        if line.kind != " ":
            changed += 1
        if line.kind != "+":
            old_pos += 1
        if line.kind != "-":
            new_pos += 1
    if changed == 0 and pieces:  # trailing context only: keep it with the last piece
        last = pieces.pop()
        current = [*last.lines, *current]
        piece_old, piece_new = _start(last.old_start, last.old_count), _start(
            last.new_start, last.new_count)
    pieces.append(_piece(current, piece_old, piece_new, hunk.section))
    last = pieces[-1]
    pieces[-1] = Hunk(last.old_start, last.old_count, last.new_start, last.new_count,
                      last.section, last.lines, hunk.old_missing_newline,
                      hunk.new_missing_newline)
    return pieces


def group_hunks(
    hunks: Iterable[Hunk],
    *,
    merge_gap: int,
    max_hunks: int,
    max_lines: int,
    cut_points: Callable[[], frozenset[int]] | None = None,
    old_cut_points: Callable[[], frozenset[int]] | None = None,
) -> list[tuple[Hunk, ...]]:
    """Group a file's hunks (in file order) into units.

    ``cut_points`` gives the new-side lines where an oversized hunk is best cut, and
    ``old_cut_points`` the old-side ones, for the removed lines of an oversized hunk; each is
    called once, and only if such a hunk is oversized.
    """
    cut_before: frozenset[int] | None = None
    old_cut_before: frozenset[int] | None = None
    groups: list[list[Hunk]] = []
    group_lines = 0
    previous_end = -(10**9)
    for original in hunks:
        # a hunk that is not split is counted once (its pieces are counted each)
        changed = _changed(original)
        if changed <= max_lines:
            pieces = [original]
        else:
            kinds = set(map(_KIND, original.lines))
            if "-" in kinds and old_cut_before is None:
                old_cut_before = old_cut_points() if old_cut_points is not None else frozenset()
            if "+" in kinds and cut_before is None:
                cut_before = cut_points() if cut_points is not None else frozenset()
            pieces = _split(original, max_lines, _cut_test(
                kinds, cut_before or frozenset(), old_cut_before or frozenset()))
        for hunk in pieces:
            size = changed if hunk is original else _changed(hunk)
            gap = hunk.new_start - previous_end - 1
            fits = (
                groups
                and gap <= merge_gap
                and len(groups[-1]) < max_hunks
                and group_lines + size <= max_lines
            )
            if fits:
                groups[-1].append(hunk)
                group_lines += size
            else:
                groups.append([hunk])
                group_lines = size
            previous_end = hunk.new_start + max(hunk.new_count, 1) - 1
    return [tuple(group) for group in groups]
