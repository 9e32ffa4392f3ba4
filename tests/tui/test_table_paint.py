"""The unit table paints a cell once per look and keeps its rows when only its height changes.

``FixedWidthTable`` keeps painted cells by what they show (text, styles, width) across the
focus changes and refills that made Textual paint every visible cell again; these tests hold
it to Textual's own painting, cell by cell, and to what the person does with it: opening and
leaving the filter, then clicking a row.
"""

from __future__ import annotations

from pathlib import Path

from rich.segment import Segment
from rich.style import Style
from textual.widgets import DataTable

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.unit_table import UnitTable
from tests.conftest import GitRepoBuilder


def _app(repo: GitRepoBuilder, store: Path) -> ReviewApp:
    for n in range(30):
        repo.write(f"app/module_{n:02}.py", f"def f{n}(x):\n    return x + {n}\n")
    repo.write("app/tags_that_do_not_fit.py", "import os\n\n\ndef g():\n    return 1\n")
    repo.commit("base")
    for n in range(30):
        repo.write(f"app/module_{n:02}.py", f"def f{n}(x):\n    return x * {n} + 1\n")
    repo.write("app/tags_that_do_not_fit.py",
               "import os\nimport subprocess\n\n\ndef g(cmd):\n"
               "    return subprocess.run(cmd, shell=True)\n")
    return ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)),
                     store_path=store)


def _looks(lines: list[list[Segment]]) -> list[list[tuple[str, Style | None, object]]]:
    """Each segment's text, style (Rich compares colours, attributes, links and the
    row/column meta) and control codes."""
    return [[(s.text, s.style, s.control) for s in line] for line in lines]


def _textual_and_ours(table: UnitTable, base: Style) -> tuple[list[object], list[object]]:
    """Every visible cell painted by Textual and by the table, with and without the cursor
    and the hover on it, at widths that crop some texts."""
    textual, ours = [], []
    for row in range(min(table.row_count, table.size.height)):
        for column in range(len(table.columns)):
            for cursor in (False, True):
                for hover in (False, True):
                    width = 6 + 3 * column
                    table._cell_render_cache.clear()
                    textual.append(_looks(DataTable._render_cell(
                        table, row, column, base, width, cursor, hover)))
                    table._cell_render_cache.clear()
                    ours.append(_looks(table._render_cell(row, column, base, width, cursor,
                                                          hover)))
    return textual, ours


async def test_cells_are_painted_as_textual_paints_them(repo: GitRepoBuilder,
                                                        tmp_path: Path) -> None:
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.pause()
        table = app.query_one(UnitTable)
        assert table.row_count > 20
        for _ in range(2):  # painted for the first time, then from the looks kept
            textual, ours = _textual_and_ours(table, table.rich_style)
            assert ours == textual
        await pilot.press("slash")  # the table loses the focus: another look
        await pilot.pause()
        textual, ours = _textual_and_ours(table, table.rich_style)
        assert ours == textual
        textual, ours = _textual_and_ours(table, Style(bgcolor="red", bold=True))
        assert ours == textual


async def test_the_filter_opens_and_closes_over_rows_that_stay(repo: GitRepoBuilder,
                                                               tmp_path: Path) -> None:
    """Opening the filter takes lines from the table and Escape gives them back: the rows
    are not painted again from scratch for it, and a click still lands on the row under it."""
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        table = app.query_one(UnitTable)
        painted = table._update_count
        height = table.size.height
        await pilot.press("slash")
        await pilot.pause()
        assert table.size.height < height
        await pilot.press("escape")
        await pilot.pause()
        assert table.size.height == height
        assert table._update_count == painted  # Textual's resize would have forgotten them
        await pilot.click(UnitTable, offset=(10, 4))  # the header, then rows 0, 1, 2, 3
        await pilot.pause()
        assert table.cursor_row == 3
        assert app.current() == table.current_unit


async def test_rows_put_back_after_a_filter_show_what_changed_meanwhile(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """Leaving a filter puts every row back with the cells it had (not made again: ~1 s for
    5,000 rows), except a row decided while the filter was on, which shows the decision."""
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        table = app.query_one(UnitTable)
        before = {key.value: table.get_row(key) for key in table.rows}
        await pilot.press("slash", *"module_07", "enter")
        await pilot.pause()
        assert table.row_count == 1
        skipped = table.current_unit
        assert skipped is not None and "module_07" in str(table.get_row(skipped)[1])
        await pilot.press("s")  # skip it, filtered
        await pilot.pause()
        await pilot.press("slash", "escape")
        await pilot.pause()
        assert table.row_count == len(before)
        for key in table.rows:
            cells = table.get_row(key)
            if key.value == skipped:
                assert str(cells[0]) == "–" and str(before[key.value][0]) == "●"
            else:  # the very cells shown before the filter
                assert all(a is b for a, b in zip(cells, before[key.value], strict=True))


async def test_plain_cells_made_directly_are_what_richs_layout_paints() -> None:
    """Cells of one style and one line are painted without Rich's layout: the very segments
    it gives, for wide, combining and emoji text, cut or filled, in any styles."""
    import random

    from rich.padding import Padding
    from rich.text import Text
    from textual.app import App, ComposeResult
    from textual.renderables.styled import Styled

    from reviewtui.tui.widgets.fixed_width_table import FixedWidthTable

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield FixedWidthTable()

    pieces = ["a", "Z", "/", ".", "_", " ", "7", "日", "本", "é", "e\u0301", "😀", "ｶ",
              "\u200d", "\t", "[b]"]
    styles = ["", "red", "bold", "dim", "magenta", "bold red on blue", "underline #00ff00"]
    pres = [Style(color="#eeeeee", bgcolor="#111111"), Style(bold=True, bgcolor="#202020"),
            Style(reverse=True, color="red"), Style()]
    posts = [Style(), Style(color="#ff0000"), Style(italic=True, bgcolor="#000080")]
    chance = random.Random(7)
    app = One()
    async with app.run_test():
        table = app.query_one(FixedWidthTable)
        made = 0
        for _ in range(3000):
            text = "".join(chance.choice(pieces) for _ in range(chance.randint(0, 16)))
            cell = Text(text, style=chance.choice(styles))
            pre, post, width = chance.choice(pres), chance.choice(posts), chance.randint(3, 20)
            direct = table._paint_plain(cell, pre, post, width)
            if direct is None:  # a tab, a joiner, a null style: left to Rich
                assert not text.isprintable() or not pre
                continue
            made += 1
            options = app.console_options.update_dimensions(width, 1).update(no_wrap=True)
            rich = app.console.render_lines(Styled(Padding(cell, (0, 1)), pre_style=pre,
                                                   post_style=post), options)
            assert _looks(direct) == _looks(rich), (text, cell.style, pre, post, width)
        assert made > 600  # (most texts hold a tab or a joiner: those are left to Rich)
