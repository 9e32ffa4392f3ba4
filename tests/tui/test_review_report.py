"""The review (R) as the chat shows it: the units the review budget left out are counted, and a
few named, not listed one per line -- on a 2,200-unit change the list was ~1,800 Markdown items,
and laying them out froze the workbench for over a minute after the review had finished."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Markdown

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.chat_pane import ChatPane
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

UNITS = 40


def _module(i: int, version: int) -> str:
    body = "".join(f"    total_{k} = amount * {k + version}\n" for k in range(8))
    return f"def compute_{i}(amount):\n{body}    return total_0\n"


async def test_units_left_out_of_the_review_are_counted_not_listed_whole(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    repo.write(".reviewtui.toml", "[context]\nreview_budget = 1000\n")
    for i in range(UNITS):
        repo.write(f"app/m{i:02}.py", _module(i, 1))
    repo.commit("base")
    for i in range(UNITS):
        repo.write(f"app/m{i:02}.py", _module(i, 2))
    app = ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)),
                    store_path=tmp_path / "s.sqlite3")
    fake_llm.script(*[Reply.json({"verdict": "comment", "summary": "s", "findings": []})] * 5)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("R")
        await app.workers.wait_for_complete()
        await pilot.pause()
        answer = app.query_one(ChatPane).query_one(".chat-answer", Markdown)
        text = answer.source
        left_out = text.split("## Not reviewed", 1)[1]
        listed = [line for line in left_out.splitlines() if line.startswith("- `u_")]
        total = int(left_out.split(" unit", 1)[0].split()[-1])  # "31 units not reviewed (...)"
        assert total > 25  # most units were over the budget...
        assert 0 < len(listed) <= 10  # ...a few are named
        assert f"and {total - len(listed)} more" in left_out
        # the way to review them is one the workbench has (it has no --all-batches option)
        assert "R again with only them shown" in left_out
        assert "review them with --all-batches" not in left_out
