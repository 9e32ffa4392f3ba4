"""The workbench's first rows as the person last saw them, shown at once on the next open.

Opening a change again costs about a second of one core before the workbench can show a
row: the models and pipeline code it imports (pydantic's alone ~0.2 s), reading the change,
the session and the plan, composing the workbench. The first rows of the table as the
workbench last showed them are kept in a small file beside the analysis cache, one per
repository and selector (``app.open_change.WorkbenchLoad.kept_path``); the loading view
shows them at its first paint (the cursor moves on them, ``q`` quits) and the workbench
replaces them once the change is loaded -- the same rows when nothing changed, the current
ones when something did (an edit, a decision made from another terminal). The loading line
says they are the rows as last left.

The colours of the theme they were shown in come with them: the settings' theme cannot be
read before pydantic is imported, and rows painted in the default theme and then switched
would flash.

The file is read before pydantic is imported (that import is much of what this saves), so it
is checked by hand: anything unexpected and it is not used. It is a view, never an error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.theme import Theme

from reviewtui.tui.widgets.unit_table import COLUMNS, WIDTHS, ColumnFit, cells_of_row

if TYPE_CHECKING:
    from reviewtui.tui.triage import Row

FORMAT = 1  # bump when what a kept cell means changes
KEPT_ROWS = 200  # a tall terminal's first screen, and some to scroll
KEPT_FILES = 32  # screens kept per repository (the most recently written)
ALL_COLUMNS = ColumnFit(COLUMNS, WIDTHS["location"])
_THEME_FIELDS = frozenset(f.name for f in dataclasses.fields(Theme))
_THEME_KEYS = frozenset({"dark", "variables", "luminosity_spread", "text_alpha", "ansi"})


@dataclass(frozen=True)
class KeptRow:
    unit_id: str
    cells: tuple[tuple[str, str], ...]  # (text, style) for every column of ``COLUMNS``


@dataclass(frozen=True)
class KeptScreen:
    total: int  # units in the change then (the rows kept are the first of them)
    longest: int  # the longest location then: the columns fit as the workbench's did
    rows: tuple[KeptRow, ...]
    theme: Theme | None
    title: str = ""  # the header's line: the change and its stated purpose


def kept_from_rows(rows: Iterable[Row], total: int, theme: Theme | None,
                   title: str = "") -> KeptScreen:
    """The first ``KEPT_ROWS`` of ``rows`` as the table shows them, every column's cell."""
    kept: list[KeptRow] = []
    longest = 0
    for row in rows:
        longest = max(longest, len(row.unit.location))
        if len(kept) < KEPT_ROWS:
            cells = cells_of_row(row, ALL_COLUMNS)
            kept.append(KeptRow(row.unit.unit_id,
                                tuple((cell.plain, str(cell.style)) for cell in cells)))
    return KeptScreen(total, longest, tuple(kept), theme, title)


def write_kept(path: Path, screen: KeptScreen) -> bool:
    """Write ``screen`` to ``path`` whole (a reader never sees half a file); whether it was
    written (a read-only repository keeps nothing, and says nothing: it is only a view)."""
    data = {"format": FORMAT, "columns": list(COLUMNS), "total": screen.total,
            "longest": screen.longest,
            "rows": [[row.unit_id, [list(cell) for cell in row.cells]] for row in screen.rows],
            "theme": dataclasses.asdict(screen.theme) if screen.theme is not None else None,
            "title": screen.title}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=".screen-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out, ensure_ascii=False, separators=(",", ":"))
            Path(name).replace(path)
        except BaseException:
            with contextlib.suppress(OSError):
                Path(name).unlink()
            raise
    except OSError:
        return False
    _prune(path.parent, keep=path)
    return True


def _prune(folder: Path, keep: Path) -> None:
    """Only the ``KEPT_FILES`` most recently written screens stay (one per selector: a
    person who reviews many ranges would otherwise keep one file for each, forever)."""
    try:  # the one just written, and the most recent others
        others = [(entry.stat().st_mtime, entry) for entry in folder.glob("*.json")
                  if entry != keep]
    except OSError:
        return
    others.sort(key=lambda pair: pair[0], reverse=True)
    for _, entry in others[KEPT_FILES - 1:]:
        with contextlib.suppress(OSError):
            entry.unlink()


def read_kept(path: Path | None) -> KeptScreen | None:
    """The screen kept at ``path``; None when there is none or it is not one this version
    wrote whole."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    try:
        return _parse(data)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None


def _parse(data: Any) -> KeptScreen | None:
    if (not isinstance(data, dict) or data.get("format") != FORMAT
            or data.get("columns") != list(COLUMNS)):
        return None
    total, longest = data["total"], data["longest"]
    if not (_count(total) and _count(longest)):
        return None
    rows = []
    for unit_id, cells in data["rows"]:
        if not isinstance(unit_id, str) or len(cells) != len(COLUMNS):
            return None
        pairs = tuple((text, style) for text, style in cells)
        if not all(isinstance(text, str) and isinstance(style, str) for text, style in pairs):
            return None
        rows.append(KeptRow(unit_id, pairs))
    title = data.get("title", "")
    if len(rows) > total or not isinstance(title, str):
        return None
    return KeptScreen(total, longest, tuple(rows), _theme(data.get("theme")), title)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _theme(data: Any) -> Theme | None:
    """The kept theme, if Textual can make its colours (a theme that fails to would fail
    the first paint)."""
    if not isinstance(data, dict) or set(data) - _THEME_FIELDS:
        return None
    colours = {key: value for key, value in data.items() if key not in _THEME_KEYS}
    variables = data.get("variables", {})
    if (not isinstance(data.get("name"), str) or not isinstance(data.get("primary"), str)
            or not all(isinstance(value, str | None) for value in colours.values())
            or not isinstance(variables, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in variables.items())
            or not isinstance(data.get("dark", True), bool)
            or not isinstance(data.get("ansi", False), bool)):
        return None
    try:
        theme = Theme(**data)
        theme.to_color_system().generate()
    except Exception:  # any failure of Textual's: not a theme to paint in
        return None
    return theme
