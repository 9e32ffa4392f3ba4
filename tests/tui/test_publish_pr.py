"""``X`` → publish in the workbench of a pull request opened with ``--pr``: the same
``publish_review`` as ``reviewtui publish``, in a worker, against the local GitHub API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from reviewtui.app.open_pr import open_pull_request
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.screens.export_modal import PUBLISH, ExportModal
from tests.conftest import GitRepoBuilder
from tests.support.forge_world import PullWorld, build_world, seed_review
from tests.support.github_server import GitHubServer


@pytest.fixture
def world(make_repo: type[GitRepoBuilder], tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[PullWorld]:
    with GitHubServer() as server:
        built = build_world(make_repo, tmp_path, monkeypatch, server)
        built.open_pull(7, built.head_sha, title="Charge three times")
        yield built
        assert server.fake.violations == []


async def test_x_publishes_the_review_to_the_pull_request(world: PullWorld) -> None:
    opened = open_pull_request(world.local, "7")
    seed_review(world)
    app = ReviewApp(load_change(world.local, opened.selector), pull="7",
                    description=opened.description)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("X")
        assert isinstance(app.screen, ExportModal)
        app.screen.query_one("#export-format", Select).value = PUBLISH
        await pilot.pause()
        assert app.screen.query_one("#export-path", Input).disabled
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        [post] = world.fake.ops("POST")
        assert post.body["event"] == "REQUEST_CHANGES"
        assert {c["line"] for c in post.body["comments"]} == {2, 3}
        messages = [str(n.message) for n in app._notifications]
        assert any("2 line comments posted" in m for m in messages), messages
        # again: nothing is posted twice
        await pilot.press("X")
        app.screen.query_one("#export-format", Select).value = PUBLISH
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(world.fake.ops("POST")) == 1 and len(world.fake.ops("PUT")) == 1


async def test_export_offers_no_publishing_without_a_pull_request(world: PullWorld) -> None:
    opened = open_pull_request(world.local, "7")
    app = ReviewApp(load_change(world.local, opened.selector))
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("X")
        assert isinstance(app.screen, ExportModal)
        select = app.screen.query_one("#export-format", Select)
        assert PUBLISH not in [value for _label, value in select._options]
