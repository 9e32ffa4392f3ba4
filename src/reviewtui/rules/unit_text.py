"""A unit's changed lines as the rules read them, gathered once and shared by every rule.

Every rule of a pack searches the same unit; rebuilding its text (joining lines, leaving out
prose, masking string literals) per rule cost more than most searches. ``UnitText`` builds
each view once, on first use, and finds the handler's needles in it once (``NeedleScan``).
"""

from __future__ import annotations

from collections.abc import Sequence

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

    __slots__ = ("_found", "_rows", "_scan", "_views", "annotations", "names")

    def __init__(self, rows: Sequence[tuple[str, str, bool, bool]], annotations: str,
                 names: tuple[tuple[str, str], ...], scan: NeedleScan | None = None) -> None:
        self._rows = rows  # (kind "+"/"-", text, prose, import) in diff order
        self.annotations = annotations
        self.names = names  # (name, kind) of defined/enclosing definitions
        self._views: dict[tuple[str, str], str] = {}
        self._scan = scan
        self._found: dict[tuple[str, str], Found | None] = {}

    def found(self, on: str, reads: str = "code") -> Found | None:
        """The needles of the handler's rules in a view (``lines``), found in one pass, or
        None when the handler has no scan (yet)."""
        if self._scan is None:
            return None
        key = (on, reads)
        if key not in self._found:
            self._found[key] = self._scan.found(self.lines(on, reads))
        return self._found[key]

    def lines(self, on: str, reads: str = "code") -> str:
        """The changed lines a rule reads (``Rule.on``), as it reads them (``Rule.reads``)."""
        key = (on, reads)
        found = self._views.get(key)
        if found is None:
            kinds = "+" if on == "added" else "-" if on == "removed" else "+-"
            picked = [(text, prose, imported) for kind, text, prose, imported in self._rows
                      if kind in kinds and (reads == "all" or not prose)]
            if reads == "words":
                found = "\n".join(mask_strings(text) for text, _, imported in picked
                                  if not imported)
            else:
                found = "\n".join(text for text, _, _ in picked)
            self._views[key] = found
        return found

    @property
    def changed(self) -> str:
        return self.lines("changed")

    @property
    def added(self) -> str:
        return self.lines("added")

    @property
    def removed(self) -> str:
        return self.lines("removed")
