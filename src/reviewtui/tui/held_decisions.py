"""What one workbench holds of the person's decisions as written, so that it writes only its own.

Several workbenches may be open on one change (or one repository: marks are per repository).
Each keeps what it last read from or wrote to the store; a save writes only the decisions that
differ from it -- one unit's override, one mark, one unmark, each on its own -- so a decision
another workbench wrote meanwhile is never overwritten with what this one read before it, and a
mark is taken back only where the person took it back here. No Textual here.
"""

from __future__ import annotations

from collections.abc import Mapping

from reviewtui.plan import OverrideSet
from reviewtui.sessions.marks import MarkKey, ReviewMark, ReviewMarks
from reviewtui.sessions.store import SessionStore


class HeldDecisions:
    def __init__(self) -> None:
        self.overrides = OverrideSet()  # as last read or written
        self.marks: dict[MarkKey, ReviewMark] = {}
        # what a session with no saved set yet starts from: the decisions carried over from
        # the repository's other changes, which the person saw as theirs
        self.start = OverrideSet()
        self.moves: dict[str, str] = {}  # a refresh's (old unit id -> new), not written yet

    def read_overrides(self, found: OverrideSet) -> None:
        """What the store holds now (on opening, or on switching to another change): moves a
        refresh made on what was held before are moot."""
        self.overrides = self.start = found
        self.moves = {}

    def read_marks(self, found: ReviewMarks) -> None:
        self.marks = dict(found.by_key)

    def moved(self, moves: Mapping[str, str]) -> None:
        """A refresh moved decisions to new unit ids: the same decisions, written as moves."""
        from reviewtui.plan.overrides import moved_overrides

        self.overrides = moved_overrides(self.overrides, moves)
        self.start = moved_overrides(self.start, moves)
        self.moves = {**self.moves, **moves}

    def write_overrides(self, store: SessionStore, session_id: str,
                        overrides: OverrideSet) -> None:
        """Each unit whose override differs from the one held, in one transaction with the
        refresh's moves (``StoreError`` leaves them to the next save)."""
        held, now = self.overrides.units, overrides.units
        changes = {uid: now.get(uid) for uid in {*held, *now} if held.get(uid) != now.get(uid)}
        if changes or self.moves:
            store.update_overrides(session_id, changes, moves=self.moves, start=self.start)
            self.overrides, self.moves = overrides, {}

    def write_marks(self, store: SessionStore, repo_key: str, marks: ReviewMarks) -> None:
        """Each mark made and each taken back since they were read, one by one."""
        for key, mark in marks.by_key.items():
            if key not in self.marks:
                store.mark_reviewed(repo_key, mark)
                self.marks[key] = mark
        for key in self.marks.keys() - marks.by_key.keys():
            store.unmark_reviewed(repo_key, *key)
            del self.marks[key]
