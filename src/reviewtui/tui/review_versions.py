"""A review that ran while the change moved under it (``r``, ``--watch``, a fix applied).

The review agent reads the change as it was when the review started, and a refresh may adopt a
newer one before it answers. Its findings are then kept as findings about the text it read and
followed to the change as it is now ("fixed?" where their lines changed), never attached to the
new lines as if the model had read them; the units whose text changed under it are named in the
status line, and the detail pane marks each of them as reviewed on an earlier version until a
review reads its current text. No Textual here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reviewtui.units.model import ReviewUnit, unit_key

EARLIER_REVIEW = ("review of an earlier version of this unit: it changed while the review ran, "
                  "so the findings are about the earlier text — R reviews it again")


@dataclass(frozen=True)
class EarlierVersions:
    """What a review read, against the change as it is now."""

    changed: tuple[ReviewUnit, ...]  # units reviewed whose text the change no longer has
    marked: frozenset[str]  # unit keys of the units they are now (their review is earlier)
    current: frozenset[str]  # unit keys of the units reviewed as they are now

    def note(self, fixed: int) -> str:
        """The status line's words for it ("" when nothing changed under the review)."""
        if not self.changed:
            return ""
        first = self.changed[0].location
        what = (first if len(self.changed) == 1
                else f"{len(self.changed)} units ({first}, …)")
        found = f"{fixed} finding{'' if fixed == 1 else 's'}"
        return (f"{what} changed while the review ran: the review read the earlier text "
                f"({found} on lines changed since: fixed?) — R reviews it again")


def earlier_versions(reviewed: Sequence[ReviewUnit],
                     now: Sequence[ReviewUnit]) -> EarlierVersions:
    """Which of the ``reviewed`` units (as the review read them) are not in ``now`` with the
    same text, and which units of ``now`` they became: the one of the same definition (unit
    key), else those of the same file over the lines it covered."""
    ids = {u.unit_id for u in now}
    keys = {unit_key(u) for u in now}
    changed = tuple(u for u in reviewed if u.unit_id not in ids)
    marked: set[str] = set()
    for unit in changed:
        key = unit_key(unit)
        if key in keys:
            marked.add(key)
            continue
        span = unit.span()
        if span is not None:
            marked.update(unit_key(u) for u in now
                          if u.file_path == unit.file_path and u.covers(*span))
    current = frozenset(unit_key(u) for u in reviewed if u.unit_id in ids)
    return EarlierVersions(changed, frozenset(marked), current)
