"""What a unit's blamed lines say about it: its history features and their evidence.

``history.line_history`` blames, at the change's base, the old-side lines of each unit's hunks
and of the definitions it sits in (``definition_spans``); from where each of those lines came
from (``LineOrigin``), per unit:

* ``fixed_before`` -- distinct earlier *fix* commits among those lines (``history.fixes``): code
  that needed fixing before tends to need it again;
* ``definition_fixed`` -- the same over every line of the definition the unit sits in (its
  header to its end, at the base): a function fixed three times is suspect wherever it is edited;
* ``recent_fix`` -- how recently the latest of those fixes was (1 the day before, half a year
  later 0.5): a fresh fix is often an incomplete one;
* ``recent_lines`` -- the share of the lines changed in the 30 days before the base: code still
  settling;
* ``many_authors`` -- how many people wrote those lines;
* ``unfamiliar`` -- the change's author wrote none of them.

``history_evidence`` says which commits, lines and authors gave those numbers.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reviewtui.units.model import ReviewUnit

_RECENT = 30 * 24 * 3600
_HALF_LIFE = 182 * 24 * 3600
_MAX_DEFINITION = 400  # longer definitions (a whole class) say nothing about the unit's lines
FEATURES: tuple[str, ...] = ("fixed_before", "recent_lines", "many_authors", "unfamiliar",
                             "definition_fixed", "recent_fix")


@dataclass(frozen=True, slots=True)
class LineOrigin:
    commit: str
    author: str
    time: int
    fix: bool
    summary: str = ""


OLDER = LineOrigin("", "", 0, False)  # a line from before the blame window


def _to_old(line: int, unit: ReviewUnit) -> int:
    """A new-side line number of ``unit``'s file on the old side (an added line: the old
    line after it)."""
    shift = 0
    for hunk in sorted(unit.hunks, key=lambda h: h.new_start):
        if line < hunk.new_start:
            break
        if line < hunk.new_start + hunk.new_count:
            previous = hunk.old_start - 1
            for row in hunk.lines:
                if row.kind == "+":
                    if row.new_no == line:
                        return max(1, previous + 1)
                elif row.old_no is not None:
                    if row.kind == " " and row.new_no == line:
                        return row.old_no
                    previous = row.old_no
            return max(1, previous)
        shift += hunk.new_count - hunk.old_count
    return max(1, line - shift)


def definition_spans(unit: ReviewUnit) -> list[tuple[int, int]]:
    """The old-side lines of the definitions enclosing the unit's changed lines. A scope is
    found on the new side when the unit added code (mapped back through the hunks), on the
    old side when it only removed code."""
    added = any(ln.kind == "+" and ln.text.strip() for h in unit.hunks for ln in h.lines)
    spans = []
    for scope in unit.scopes:
        if scope.role == "outer" or not 0 < scope.start_line <= scope.end_line or (
                scope.end_line - scope.start_line > _MAX_DEFINITION):
            continue
        if added:
            start, end = _to_old(scope.start_line, unit), _to_old(scope.end_line, unit)
        else:
            start, end = scope.start_line, scope.end_line
        if start <= end:
            spans.append((start, end))
    return spans


def touched_spans(unit: ReviewUnit) -> list[tuple[int, int]]:
    """The old-side lines of the unit's hunks (changed lines and their context)."""
    return [(h.old_start, h.old_start + h.old_count - 1) for h in unit.hunks if h.old_count]


def _origins(unit: ReviewUnit, lines: Mapping[int, LineOrigin]
             ) -> tuple[list[LineOrigin], list[LineOrigin]]:
    """Where the unit's touched lines came from, and those plus its definitions' lines."""
    touched = [lines[n] for a, b in touched_spans(unit) for n in range(a, b + 1) if n in lines]
    around = touched + [lines[n] for a, b in definition_spans(unit)
                        for n in range(a, b + 1) if n in lines]
    return touched, around


def unit_history(unit: ReviewUnit, lines: Mapping[int, LineOrigin], author: str,
                 base_time: int) -> dict[str, float]:
    """The history features of ``unit`` from its file's blamed lines."""
    touched, around = _origins(unit, lines)
    if not around:
        return dict.fromkeys(FEATURES, 0.0)
    fixes = {o.commit: o.time for o in around if o.fix}
    latest = max(fixes.values(), default=None)
    features = {
        "fixed_before": 0.0, "recent_lines": 0.0, "many_authors": 0.0, "unfamiliar": 0.0,
        "definition_fixed": round(1.0 - 1.0 / (1.0 + len(fixes)), 3),
        "recent_fix": 0.0 if latest is None else round(
            0.5 ** (max(0, base_time - latest) / _HALF_LIFE), 3),
    }
    if touched:
        known = [o for o in touched if o.commit]
        authors = {o.author for o in known}
        features.update({
            "fixed_before": 1.0 - 1.0 / (1.0 + len({o.commit for o in touched if o.fix})),
            "recent_lines": round(sum(1 for o in touched if base_time - o.time <= _RECENT)
                                  / len(touched), 3),
            "many_authors": 1.0 - 1.0 / len(authors) if authors else 0.0,
            "unfamiliar": 0.0 if not author or not authors or author in authors else 1.0,
        })
    return features


def history_evidence(unit: ReviewUnit, lines: Mapping[int, LineOrigin],
                     base_time: int) -> dict[str, str]:
    """What gave ``unit`` its history features, for ``rules explain`` and the detail pane:
    the fix commits (newest first), the recently changed lines, the lines' authors."""
    touched, around = _origins(unit, lines)

    def fixes(origins: Sequence[LineOrigin]) -> str:
        seen = {o.commit: o for o in origins if o.fix}
        newest = sorted(seen.values(), key=lambda o: -o.time)
        text = ", ".join(f"{o.commit[:8]} {time.strftime('%Y-%m-%d', time.gmtime(o.time))} "
                         f"\"{o.summary[:50]}\"" for o in newest[:2])
        return text + (f" and {len(newest) - 2} more" if len(newest) > 2 else "")

    out = {"fixed_before": fixes(touched), "definition_fixed": fixes(around)}
    out["recent_fix"] = out["definition_fixed"].split(", ")[0]
    recent = [o for o in touched if o.commit and base_time - o.time <= _RECENT]
    if recent:
        out["recent_lines"] = (f"{len(recent)} of {len(touched)} lines changed in the 30 days "
                               "before")
    authors = sorted({o.author for o in touched if o.commit})
    if authors:
        out["many_authors"] = out["unfamiliar"] = "written by " + ", ".join(authors[:3]) + (
            f" and {len(authors) - 3} more" if len(authors) > 3 else "")
    return {name: text for name, text in out.items() if text}
