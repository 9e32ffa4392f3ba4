"""The first screen kept for the next open, without an App: what is kept, read back, refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.theme import BUILTIN_THEMES

from reviewtui.app.open_change import WorkbenchLoad, screen_name
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui import kept_screen
from reviewtui.tui.kept_screen import KeptScreen, kept_from_rows, read_kept, write_kept
from reviewtui.tui.triage import Filter, Row, Triage
from reviewtui.tui.widgets.kept_table import kept_cells
from reviewtui.tui.widgets.unit_table import cells_of_row, fit_columns
from tests.conftest import GitRepoBuilder


def _rows(repo: GitRepoBuilder, files: int = 6) -> list[Row]:
    for n in range(files):
        repo.write(f"app/deep/folder/name/m{n:02}.py", f"def f{n}():\n    return {n}\n")
    repo.commit("base")
    for n in range(files):
        repo.write(f"app/deep/folder/name/m{n:02}.py", f"def f{n}():\n    return {n + 1}\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    triage = Triage(loaded.units, loaded.plan(use_llm=False))
    uid = triage.rows(Filter())[1].unit.unit_id
    triage.toggle_skip(uid)  # a row that shows a decision (dim location, its glyph)
    return triage.rows(Filter())


def test_what_is_kept_reads_back_and_paints_as_the_table_does(repo: GitRepoBuilder,
                                                              tmp_path: Path) -> None:
    rows = _rows(repo)
    theme = BUILTIN_THEMES["nord"]
    path = tmp_path / "screens" / "x.json"
    assert write_kept(path, kept_from_rows(rows, len(rows), theme, "reviewtui — a title"))
    kept = read_kept(path)
    assert kept is not None and kept.title == "reviewtui — a title"
    assert [row.unit_id for row in kept.rows] == [row.unit.unit_id for row in rows]
    assert kept.total == len(rows) and kept.longest == max(len(r.unit.location) for r in rows)
    assert kept.theme == theme
    for width in (60, 90, 160):  # every width's columns: the same cells as the unit table's
        fit = fit_columns(width, kept.longest)
        for row, kept_row in zip(rows, kept.rows, strict=True):
            assert kept_cells(kept_row, fit) == cells_of_row(row, fit)
    assert not list(path.parent.glob(".screen-*"))  # no temporary file left


def test_only_the_first_rows_are_kept_but_the_count_is_all(repo: GitRepoBuilder,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _rows(repo)
    monkeypatch.setattr(kept_screen, "KEPT_ROWS", 4)
    longer = max(rows[4:], key=lambda row: len(row.unit.location))
    kept = kept_from_rows(rows, len(rows), None)
    assert len(kept.rows) == 4 and kept.total == len(rows)
    assert kept.longest >= len(longer.unit.location)  # the columns fit every row
    assert kept.theme is None


@pytest.mark.parametrize("damage", [
    lambda d: "not json {",
    lambda d: json.dumps({**d, "format": 0}),
    lambda d: json.dumps({**d, "columns": d["columns"][:-1]}),
    lambda d: json.dumps({**d, "total": True}),
    lambda d: json.dumps({**d, "total": 1}),  # fewer than the rows kept
    lambda d: json.dumps({**d, "rows": [["u", [["x", 1]] * len(d["columns"])]]}),
    lambda d: json.dumps({**d, "rows": [["u", [["x", ""]]]]}),
    lambda d: json.dumps({**d, "rows": "rows"}),
    lambda d: json.dumps([d]),
    lambda d: json.dumps({**d, "title": 3}),
])
def test_a_damaged_or_foreign_file_is_not_shown(repo: GitRepoBuilder, tmp_path: Path,
                                               damage: object) -> None:
    rows = _rows(repo)
    path = tmp_path / "x.json"
    write_kept(path, kept_from_rows(rows, len(rows), None))
    data = json.loads(path.read_text())
    assert callable(damage)
    path.write_text(damage(data))
    assert read_kept(path) is None
    assert read_kept(tmp_path / "missing.json") is None
    assert read_kept(None) is None


def test_a_theme_textual_cannot_paint_is_dropped_not_the_rows(repo: GitRepoBuilder,
                                                             tmp_path: Path) -> None:
    rows = _rows(repo)
    path = tmp_path / "x.json"
    write_kept(path, kept_from_rows(rows, len(rows), BUILTIN_THEMES["nord"]))
    data = json.loads(path.read_text())
    for theme in ({**data["theme"], "primary": "not a colour"}, {**data["theme"], "odd": 1},
                  {**data["theme"], "dark": "yes"}, "nord"):
        path.write_text(json.dumps({**data, "theme": theme}))
        kept = read_kept(path)
        assert kept is not None and kept.theme is None and len(kept.rows) == len(rows)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_folder_it_cannot_write_keeps_nothing_and_says_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        assert not write_kept(folder / "screens" / "x.json", KeptScreen(0, 0, (), None))
    finally:
        folder.chmod(0o700)


def test_a_file_in_the_way_keeps_nothing_and_says_nothing(tmp_path: Path) -> None:
    (tmp_path / "screens").write_text("a file where the folder would be")
    assert not write_kept(tmp_path / "screens" / "x.json", KeptScreen(0, 0, (), None))


def test_one_kept_screen_per_repository_and_selector(repo: GitRepoBuilder,
                                                     tmp_path: Path) -> None:
    a, b = Path("/r/a"), Path("/r/b")
    auto = ChangeSelector(SelectorMode.AUTO)
    names = {screen_name(a, auto), screen_name(b, auto),
             screen_name(a, ChangeSelector(SelectorMode.RANGE, ref="v1..v2")),
             screen_name(a, ChangeSelector(SelectorMode.RANGE, ref="v1..v3")),
             screen_name(a, ChangeSelector(SelectorMode.AUTO, include_untracked=False))}
    assert len(names) == 5
    assert screen_name(a, auto) == screen_name(a, ChangeSelector(SelectorMode.AUTO))
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    for selector, use_cache, kept in ((auto, True, True), (auto, False, False),
                                      (ChangeSelector(SelectorMode.PATCH, patch="-"), True,
                                       False)):
        opening = WorkbenchLoad(repo.root, selector, use_cache=use_cache)
        try:
            if kept:  # beside the analysis cache, in the repository's git folder
                assert opening.kept_path is not None
                assert opening.kept_path.parent == repo.root / ".git" / "reviewtui" / "screens"
            else:  # --no-cache, a patch: nothing kept, nothing shown
                assert opening.kept_path is None
        finally:
            opening.stop()


def test_only_the_most_recent_screens_are_kept(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_screen, "KEPT_FILES", 3)
    folder = tmp_path / "screens"
    for n in range(5):
        assert write_kept(folder / f"s{n}.json", KeptScreen(0, 0, (), None))
        os.utime(folder / f"s{n}.json", (1_000_000 + n, 1_000_000 + n))
    assert sorted(p.name for p in folder.glob("*.json")) == ["s2.json", "s3.json", "s4.json"]
    # the one just written stays, even when the others look newer (a clock set back)
    for name in ("s2.json", "s3.json", "s4.json"):
        os.utime(folder / name, (4_000_000_000, 4_000_000_000))
    assert write_kept(folder / "s9.json", KeptScreen(0, 0, (), None))
    assert (folder / "s9.json").exists() and len(list(folder.glob("*.json"))) == 3
