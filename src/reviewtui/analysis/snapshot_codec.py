"""A whole analysed change as plain tuples, and back: the payload of a change snapshot.

A warm open of a committed range used to parse the whole diff again (a quarter of a million
``DiffLine`` objects on a large change), decode one cached record per file and look up every
unit's reach and line history. The snapshot (see ``pipeline.snapshot``) keeps all of that in
one ``marshal`` payload of plain tuples, strings and numbers: marshal reads them at C speed,
where pickling the objects themselves took longer to load than the work it saves (2,606
units: 0.45 s against ~0.1 s, with the garbage collector off).

The units and their suggestions are kept in the per-file cache's layout (``records``): hunks
as indices into their file's hunks, suggestions flattened, one ``Rule`` object per distinct
rule when rebuilt. A suggestion counted in priority order's terms adds its reach. Each file's
diff lines are one blob of their own, read only when a hunk's lines are first used
(``stored_lines``): the index and the priority order never do. The blobs are not in the
payload but beside it (``Encoded.lines``, the file row says where its blob is): inside it,
reading the payload copied all of them (20 MB on 8,000 units, a tenth of a warm ``index``),
where beside it each file's lines stay a view of the bytes read until they are used.
Equal values of the units' and suggestions' rows (a rule, a list of matches, a set of factors
repeated over thousands of units) are one object in the payload, which marshal then writes once
and reads back as one: the payload is a third smaller and reads in half the time.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import itertools
import marshal
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from reviewtui.analysis.records import (
    HUNKS_FIELD,
    MATCHES_FIELD,
    FileRecord,
    decode,
    encode,
    flat_suggestion,
    rebuilt,
)
from reviewtui.analysis.stored_lines import FileLines, StoredLines
from reviewtui.git.model import (
    ChangeSet,
    ChangeStatus,
    FileChange,
    Hunk,
    Side,
    SideKind,
)
from reviewtui.rules.suggestion import RuleSuggestion
from reviewtui.units.model import ReviewUnit

_STATUSES = {status.value: status for status in ChangeStatus}
_SIDES = {kind.value: kind for kind in SideKind}


class Unfit(ValueError):
    """The change cannot be kept as plain tuples (then there is no snapshot), or a payload
    does not describe a change (then it is not used)."""


@dataclass(frozen=True)
class Decoded:
    change_set: ChangeSet
    units: list[ReviewUnit]
    suggestions: dict[str, RuleSuggestion]


@dataclass(frozen=True)
class Encoded:
    """A change as ``encode_change`` keeps it: the payload (plain tuples), and every file's
    diff lines, one blob after another, that its rows point into."""

    payload: tuple[Any, ...]
    lines: bytes


@dataclass(frozen=True)
class Counted:
    """The priority order's part: every unit's counted suggestion, features and evidence."""

    suggestions: dict[str, RuleSuggestion]
    features: dict[str, dict[str, float]]
    evidence: dict[str, dict[str, str]]


def _side(side: Side) -> tuple[str, str | None, str | None]:
    return (side.kind.value, side.rev, side.label)


def _hunk(hunk: Hunk) -> tuple[Any, ...]:
    return (hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count, hunk.section,
            hunk.old_missing_newline, hunk.new_missing_newline, len(hunk.lines))


def _file(change: FileChange, start: int, size: int) -> tuple[Any, ...]:
    """A file's row; its hunks' lines apart, in the blob at ``start`` (``size`` bytes) of the
    lines beside the payload."""
    return (change.status.value, change.old_path, change.new_path, change.old_mode,
            change.new_mode, change.old_blob, change.new_blob, change.similarity,
            change.is_binary, change.non_utf8, change.too_large, change.untracked,
            change.unreadable, change.binary_by_attribute,
            tuple(_hunk(hunk) for hunk in change.hunks), (start, size))


def encode_change(change_set: ChangeSet, units: Sequence[ReviewUnit],
                  suggestions: Mapping[str, RuleSuggestion]) -> Encoded:
    """The payload of a change as ``load_change`` gives it (units grouped by file in path
    order, one suggestion per unit in the same order); ``Unfit`` when it is not that."""
    files = sorted(change_set.files, key=lambda c: c.path)
    if [u.unit_id for u in units] != list(suggestions):
        raise Unfit("the units and their suggestions are not one to one, in order")
    index = {change.path: position for position, change in enumerate(files)}
    if len(index) != len(files):
        raise Unfit("two changed files share a path")
    groups: list[list[ReviewUnit]] = [[] for _ in files]
    last = -1
    for unit in units:
        position = index.get(unit.file_path)
        if position is None or position < last:
            raise Unfit(f"unit {unit.unit_id} is not in path order")
        last = position
        groups[position].append(unit)
    records = [encode(files[p], group, [suggestions[u.unit_id] for u in group])
               for p, group in enumerate(groups)]
    for record in records:
        for row in record.units:
            if any(isinstance(item, Hunk) for item in row[HUNKS_FIELD]):  # type: ignore[attr-defined]
                raise Unfit("a unit's hunk is not a run of its file's hunk lines")
    memo: dict[Any, Any] = {}
    blobs = [FileLines.encode([hunk.lines for hunk in change.hunks])
             for change in change_set.files]
    starts = itertools.accumulate((len(blob) for blob in blobs), initial=0)
    return Encoded((str(change_set.repo_root), change_set.mode, _side(change_set.old_side),
                    _side(change_set.new_side), change_set.base_branch,
                    tuple(_file(change, start, len(blob))
                          for change, start, blob in zip(change_set.files, starts, blobs,
                                                         strict=False)),
                    tuple(_shared(record.units, memo) for record in records),
                    tuple(_shared(record.suggestions, memo, MATCHES_FIELD)
                          for record in records)), b"".join(blobs))


def _exact(value: Any) -> bytes:
    """A key equal only for values of the same types all the way down: Python takes 0 for
    False, 1 for True and 1.0 for 1, and a shared 0 read back as False (``+50/-False``).
    ``marshal`` writes each type apart, in C (on 2,606 units the change is encoded in 0.19 s
    instead of 0.34 s with a key built in Python, tuple by tuple); version 2 has no
    back-references, so equal values give equal bytes -- but for an interned string beside
    an equal one that is not, which is then not shared (the value read back is the same).
    An unhashable value raises ``TypeError``: it is not shared (a list stays one row's)."""
    hash(value)
    return marshal.dumps(value, 2)


def _shared(rows: tuple[tuple[Any, ...], ...], memo: dict[Any, Any],
            matches: int = -1) -> tuple[Any, ...]:
    """``rows`` with each field equal to one seen before (in ``memo``, by ``_exact``) that
    very object; the field at ``matches`` (a suggestion's) holds (rule, precision, evidence)
    triples, and each rule in it is shared the same way."""
    shared = []
    for row in rows:
        fields = []
        for position, value in enumerate(row):
            if position == matches:
                value = tuple((memo.setdefault(_exact(rule), rule), *rest)
                              for rule, *rest in value)
            try:
                fields.append(memo.setdefault(_exact(value), value))
            except (TypeError, ValueError):  # unhashable, or no marshal type: kept as it is
                fields.append(value)
        shared.append(tuple(fields))
    return tuple(shared)


def encode_counted(units: Sequence[ReviewUnit], plain: Mapping[str, RuleSuggestion],
                   counted: Mapping[str, RuleSuggestion],
                   features: Mapping[str, Mapping[str, float]],
                   evidence: Mapping[str, Mapping[str, str]]) -> tuple[Any, ...]:
    """The priority order's part, suggestions in the units' order. Counting changes only a
    suggestion's priority parts and reach (``rules.priority.with_reach``): those are kept
    alone when that holds for every unit, whole suggestions otherwise. Every unit's features
    have the same names: each distinct list of names is kept once."""
    if [u.unit_id for u in units] != list(counted) or list(plain) != list(counted):
        raise Unfit("the counted suggestions are not the units'")
    if all(replace(plain[uid], priority_parts=s.priority_parts, reach=s.reach) == s
           for uid, s in counted.items()):
        order: tuple[Any, ...] = ("parts", tuple(
            (counted[u.unit_id].priority_parts, counted[u.unit_id].reach) for u in units))
    else:
        order = ("whole", tuple((*flat_suggestion(counted[u.unit_id]),
                                 counted[u.unit_id].reach) for u in units))
    names: dict[tuple[str, ...], int] = {}
    rows = tuple((uid, names.setdefault(tuple(values), len(names)), tuple(values.values()))
                 for uid, values in features.items())
    return (order, tuple(names), rows,
            {uid: dict(values) for uid, values in evidence.items()})


def _decode_file(row: tuple[Any, ...], blobs: memoryview) -> FileChange:
    (status, old_path, new_path, old_mode, new_mode, old_blob, new_blob, similarity, binary,
     non_utf8, too_large, untracked, unreadable, by_attribute, hunks, (start, size)) = row
    _check_hunks(hunks, start, size, len(blobs))
    lines = FileLines(blobs[start:start + size])
    return FileChange(
        _STATUSES[status], old_path, new_path, old_mode, new_mode, old_blob, new_blob,
        similarity, binary, non_utf8, too_large, untracked,
        tuple(Hunk(old_start, old_count, new_start, new_count, section,
                   StoredLines(lines, index, length), old_missing, new_missing)
              for index, (old_start, old_count, new_start, new_count, section, old_missing,
                          new_missing, length) in enumerate(hunks)),
        bool(unreadable), bool(by_attribute))


def _check_hunks(hunks: tuple[Any, ...], start: object, size: object, total: int) -> None:
    """Every hunk row has its fields and a count of lines; the lines are a blob within the
    lines beside the payload (read, and checked against those counts, when first used: see
    ``stored_lines``)."""
    if not (isinstance(start, int) and isinstance(size, int)
            and start >= 0 and size >= 0 and start + size <= total):
        raise Unfit("a file's diff lines are not a blob of the lines beside the payload")
    for hunk in hunks:
        if len(hunk) != 8 or not isinstance(hunk[7], int) or hunk[7] < 0:
            raise Unfit("a hunk row does not count its lines")


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """The cyclic garbage collector off while hundreds of thousands of objects are made, none
    of them in a cycle: each collection it would start walks every object of the process."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def decode_change(payload: tuple[Any, ...], lines: bytes | memoryview) -> Decoded:
    """The change, units and suggestions of ``payload`` with the diff lines kept beside it
    (``Encoded.lines``: each file's lines are a view of them, read when first used);
    ``Unfit`` if it is not one."""
    try:
        return _decode_change(payload, memoryview(lines))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise Unfit(f"not a change snapshot: {exc}") from None


def _decode_change(payload: tuple[Any, ...], blobs: memoryview) -> Decoded:
    root, mode, old, new, base, file_rows, unit_rows, suggestion_rows = payload
    files = tuple(_decode_file(row, blobs) for row in file_rows)
    change_set = ChangeSet(Path(root), mode, Side(_SIDES[old[0]], old[1], old[2]),
                           Side(_SIDES[new[0]], new[1], new[2]), base, files)
    ordered = sorted(files, key=lambda c: c.path)
    if len(ordered) != len(unit_rows) or len(ordered) != len(suggestion_rows):
        raise Unfit("one group of units per file")
    units: list[ReviewUnit] = []
    suggestions: dict[str, RuleSuggestion] = {}
    for change, rows, flats in zip(ordered, unit_rows, suggestion_rows, strict=True):
        for unit, suggestion in decode(change, FileRecord(rows, flats)):
            units.append(unit)
            suggestions[unit.unit_id] = suggestion
    return Decoded(change_set, units, suggestions)


def _counted(plain: RuleSuggestion, parts: tuple[tuple[str, float], ...],
             reach: int) -> RuleSuggestion:
    """``replace(plain, priority_parts=parts, reach=reach)`` (``encode_counted`` checked that
    this is the counted suggestion) without its keyword dance: a third of the time."""
    counted = copy.copy(plain)
    _set(counted, "priority_parts", parts)
    _set(counted, "reach", reach)
    return counted


_set = object.__setattr__  # past the frozen dataclass' guard, as its own __init__ does


def decode_counted(payload: tuple[Any, ...], units: Sequence[ReviewUnit],
                   plain: Mapping[str, RuleSuggestion]) -> Counted:
    """The priority order's part of ``payload`` for ``units`` (whose suggestions before
    counting are ``plain``); ``Unfit`` if it does not fit."""
    try:
        (how, kept), names, rows, evidence = payload
        if len(kept) != len(units):
            raise Unfit("one counted suggestion per unit")
        if how == "parts":
            counted = {unit.unit_id: _counted(plain[unit.unit_id], parts, reach)
                       for unit, (parts, reach) in zip(units, kept, strict=True)}
        elif how == "whole":
            counted = {unit.unit_id: rebuilt(flat[:-1], reach=flat[-1])
                       for unit, flat in zip(units, kept, strict=True)}
        else:
            raise Unfit(f"an unknown order layout {how!r}")
        features = {uid: dict(zip(names[index], values, strict=True))
                    for uid, index, values in rows}
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise Unfit(f"not a counted order: {exc}") from None
    if not isinstance(evidence, dict):
        raise Unfit("the evidence is a table")
    return Counted(counted, features, evidence)
