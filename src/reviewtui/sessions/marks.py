""""Reviewed" marks: what the person marked reviewed, kept by the content of each unit.

A mark is kept per repository (not per change: a unit stays reviewed in every change and under
every selector that has it) under the unit's file and its content id
(``units.identity.content_ids``: its definition and diff lines' text, never its line numbers).
It also keeps the unit's key (file and definition) and its lines when it was marked, to find
the unit it became once it is edited. A unit of a change is

* ✓ ``reviewed`` when a mark has its content (a unit that only moved is still reviewed; each
  unit of a function has a mark of its own);
* ↻ ``changed`` when it has none, but a mark of the same file and definition does not match
  any unit of the change (its content is gone: the unit was edited since), was made before
  this version of the change was (a commit's committer time; the working tree and the index
  are now), and this unit is the one of that definition nearest to where the marked one was
  (``units.identity.nearest``). A mark whose nearest unit is reviewed (marked again after the
  edit) shows nothing more; a mark made on a later commit does not make an older commit's
  unit ↻;
* ``new`` otherwise.

Marks written before schema 8 were kept by unit key, with the unit's id for content: they are
read as marks whose content id is that unit id, matching the unit with that very id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from reviewtui.git.model import Side, SideKind
from reviewtui.units.identity import UnitContents, nearest, unit_span
from reviewtui.units.model import ReviewUnit, unit_key

if TYPE_CHECKING:
    from reviewtui.git.runner import GitRepo

ReviewStatus = Literal["new", "reviewed", "changed"]
MarkKey = tuple[str, str]  # (file path, content id)


@dataclass(frozen=True)
class ReviewMark:
    file_path: str
    content_id: str  # ``c_…``; a mark from before schema 8: the unit id it was made on
    unit_key: str  # file and definition (``units.model.unit_key``)
    unit_id: str  # the unit's id when it was marked
    first_line: int | None = None  # its lines then (None: not known)
    last_line: int | None = None
    marked_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())

    @property
    def key(self) -> MarkKey:
        return self.file_path, self.content_id

    @property
    def span(self) -> tuple[int, int] | None:
        if self.first_line is None or self.last_line is None:
            return None
        return self.first_line, self.last_line

    @classmethod
    def of(cls, unit: ReviewUnit, content_id: str) -> ReviewMark:
        first, last = unit_span(unit) or (None, None)
        return cls(unit.file_path, content_id, unit_key(unit), unit.unit_id, first, last)


def commit_time(repo: GitRepo | None, side: Side) -> datetime | None:
    """When ``side`` was made: a commit's committer time; None for the working tree, the
    index, a patch (now) or when git cannot say."""
    if repo is None or side.rev is None or side.kind is not SideKind.COMMIT:
        return None
    stamp = repo.try_run("log", "-1", "--format=%ct", "--end-of-options", side.rev)
    try:
        return datetime.fromtimestamp(int((stamp or b"").strip()), UTC)
    except ValueError:
        return None


class ReviewMarks:
    """The repository's marks as one change sees them (the workbench changes them in place).

    ``version_time``: when this version of the change was made (``commit_time``), asked once
    and only when a mark's content is not in the change; None or returning None: now."""

    def __init__(self, marks: Iterable[ReviewMark] = (), *,
                 version_time: Callable[[], datetime | None] | None = None) -> None:
        self.by_key: dict[MarkKey, ReviewMark] = {m.key: m for m in marks}
        self._version_time = version_time
        self._version: tuple[datetime | None] | None = None

    def __iter__(self) -> Iterator[ReviewMark]:
        return iter(self.by_key.values())

    def __len__(self) -> int:
        return len(self.by_key)

    def matching(self, unit: ReviewUnit, contents: UnitContents) -> list[MarkKey]:
        """The marks of this unit's content (a mark from before schema 8: of its id)."""
        keys = [(unit.file_path, contents.of(unit)), (unit.file_path, unit.unit_id)]
        return [key for key in keys if key in self.by_key]

    def mark(self, unit: ReviewUnit, contents: UnitContents) -> ReviewMark:
        made = ReviewMark.of(unit, contents.of(unit))
        self.by_key[made.key] = made
        return made

    def unmark(self, unit: ReviewUnit, contents: UnitContents) -> None:
        for key in self.matching(unit, contents):
            del self.by_key[key]

    def _counts(self, mark: ReviewMark) -> bool:
        """Was the mark made before this version of the change (so it can be ↻ here)?"""
        if self._version is None:
            self._version = (self._version_time() if self._version_time else None,)
        version = self._version[0]
        if version is None:
            return True
        try:
            return datetime.fromisoformat(mark.marked_at) < version
        except (ValueError, TypeError):  # not a time, or one without its zone
            return True

    def statuses(self, units: Sequence[ReviewUnit],
                 contents: UnitContents) -> dict[str, ReviewStatus]:
        """``unit_id -> status`` of the units that are reviewed or changed (the rest: new).
        Only the units of files with marks have their content hashed."""
        files = {m.file_path for m in self.by_key.values()}
        found: dict[str, ReviewStatus] = {}
        present: set[MarkKey] = set()
        by_unit_key: dict[str, list[ReviewUnit]] = {}
        for unit in units:
            if unit.file_path not in files:
                continue
            matched = self.matching(unit, contents)
            if matched:
                found[unit.unit_id] = "reviewed"
                present.update(matched)
            by_unit_key.setdefault(unit_key(unit), []).append(unit)
        for mark in self.by_key.values():
            candidates = by_unit_key.get(mark.unit_key)
            if mark.key in present or not candidates or not self._counts(mark):
                continue
            became = nearest(mark.span, candidates)
            if became is not None and became.unit_id not in found:
                found[became.unit_id] = "changed"
        return found
