"""After ``b``, the detail pane shows the allocation: this unit in or deferred (and why), and the
included / deferred units and tokens per risk class."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from tests.conftest import GitRepoBuilder


def _module(i: int, version: int) -> str:
    body = "".join(f"    total_{k} = amount * {k + version}\n" for k in range(20))
    return f"def compute_{i}(amount):\n{body}    return total_0\n"


def _text(widget: Static) -> str:
    console = Console(width=160, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


async def test_the_bundle_view_shows_the_allocation(repo: GitRepoBuilder,
                                                    tmp_path: Path) -> None:
    repo.write(".reviewtui.toml", "[context]\nreview_budget = 1200\n")
    for i in range(3):
        repo.write(f"app/m{i}.py", _module(i, 1))
    repo.commit("base")
    for i in range(3):
        repo.write(f"app/m{i}.py", _module(i, 2))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    app = ReviewApp(loaded, store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        account = app.query_one("#account", Static)
        assert "press b to build it" in _text(account)
        await pilot.press("b")
        await app.workers.wait_for_complete()
        await pilot.pause()
        allocation = app.allocation
        assert allocation is not None and allocation.included and allocation.deferred
        assert "units deferred" in str(app.query_one("#status").render())
        texts = []
        for _ in range(3):
            texts.append(_text(account))
            await pilot.press("j")
            await pilot.pause()
        shown = "\n".join(texts)
        assert "in the review: batch 1" in shown
        assert "deferred: over the review budget: needs" in shown
        title = (f"allocation at the last build: {len(allocation.included)} in the review "
                 f"({allocation.used}/1200 tokens), {len(allocation.deferred)} deferred")
        assert title in shown.replace("\n", " ").replace("  ", " ")
        (risk,) = allocation.by_risk
        (row,) = [line.replace("│", " ").split() for line in texts[0].splitlines()
                  if line.replace("│", " ").split()[:1] == [risk.risk]]
        assert row[1:] == [str(len(allocation.included)), str(allocation.used), "1", "2",
                           f"~{risk.deferred_tokens}"]
