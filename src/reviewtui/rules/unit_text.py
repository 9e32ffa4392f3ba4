"""A unit's changed lines as the rules read them, gathered once and shared by every rule.

Every rule of a pack searches the same unit; rebuilding its text (joining lines, leaving out
prose, masking string literals) per rule cost more than most searches. ``UnitText`` builds
each view once, on first use, and finds the handler's needles in it once (``NeedleScan``).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from reviewtui.units.line_tags import mask_strings
from reviewtui.units.needle_scan import Found, NeedleScan


class UnitText:
    """Text gathered once per unit and shared by every rule, in views built on first use.

    A view is the changed lines a rule reads (``on``: changed, added or removed) as a rule
    reads them (``reads``): ``code`` leaves prose out (comments and docstrings: a docstring's
    example is not a change of behaviour), ``all`` keeps it (a comment naming an attack),
    ``words`` is code without import lines and without the contents of string literals (a
    keyword means something in the code, not in an import of ``contextvars.Token`` or in a
    message).
    """

    __slots__ = ("_found", "_rows", "_scan", "_shape", "_views", "annotations", "names")

    def __init__(self, rows: Sequence[tuple[str, str, bool, bool]], annotations: str,
                 names: tuple[tuple[str, str], ...], scan: NeedleScan | None = None) -> None:
        self._rows = rows  # (kind "+"/"-", text, prose, import) in diff order
        self.annotations = annotations
        self.names = names  # (name, kind) of defined/enclosing definitions
        self._views: dict[tuple[str, str], str] = {}
        self._scan = scan
        self._found: dict[str, Found] = {}  # by the text scanned
        # what the changed lines are when no line is removed (or added), and whether no
        # changed line is prose: worked out on first use (``_same_view``)
        self._shape: tuple[str, bool] | None = None

    def found(self, on: str, reads: str = "code") -> Found | None:
        """The needles of the handler's rules in a view (``lines``), found in one pass, or
        None when the handler has no scan (yet). Views with the same text share one scan
        (the added lines are all the changed ones of a unit that removes none; a unit
        without prose reads the same text ``all`` as ``code``): 29% of the text scanned
        on Django 4.2 -> 5.2 was scanned a second time."""
        scan = self._scan
        if scan is None:
            return None
        text = self.lines(on, reads)
        found = self._found.get(text)
        if found is None:
            if on == "changed" and scan.by_line and self._same_view(on, reads)[0] == "changed":
                # The changed lines are the added and the removed ones, and no needle spans
                # a line break: what they hold is what those two hold, found once each (the
                # added lines were scanned a second time here: a third of the text scanned)
                added, removed = self.found("added", reads), self.found("removed", reads)
                assert added is not None and removed is not None
                found = Found(added.plain | removed.plain, added.folded | removed.folded,
                              added.members)
            else:
                found = scan.found(text)
            self._found[text] = found
        return found

    def lines(self, on: str, reads: str = "code") -> str:
        """The changed lines a rule reads (``Rule.on``), as it reads them (``Rule.reads``)."""
        key = (on, reads)
        found = self._views.get(key)
        if found is None:
            same = self._same_view(on, reads)
            if same != key:  # the same rows, picked as another view: its text
                found = self._views[key] = self.lines(*same)
                return found
            kinds = "+" if on == "added" else "-" if on == "removed" else "+-"
            picked = [(text, prose, imported) for kind, text, prose, imported in self._rows
                      if kind in kinds and (reads == "all" or not prose)]
            if reads == "words":
                found = mask_strings("\n".join([text for text, _, imported in picked
                                                 if not imported]))
            else:
                found = "\n".join(text for text, _, _ in picked)
            self._views[key] = found
        return found

    def _same_view(self, on: str, reads: str) -> tuple[str, str]:
        """The view that picks the same rows as (``on``, ``reads``): the changed lines are the
        added ones when none is removed (the removed ones when none is added), and ``all``
        reads what ``code`` reads when no changed line is prose."""
        shape = self._shape
        if shape is None:
            rows = self._rows
            kinds = set(map(itemgetter(0), rows))
            changed_as = "added" if "-" not in kinds else "removed" if "+" not in kinds else (
                "changed")
            shape = self._shape = (changed_as, not any(map(itemgetter(2), rows)))
        return (shape[0] if on == "changed" else on,
                "code" if reads == "all" and shape[1] else reads)

    @property
    def changed(self) -> str:
        return self.lines("changed")

    @property
    def added(self) -> str:
        return self.lines("added")

    @property
    def removed(self) -> str:
        return self.lines("removed")
