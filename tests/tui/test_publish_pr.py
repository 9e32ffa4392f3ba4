"""``X`` → publish in the workbench of a pull request opened with ``--pr``: the same
``publish_review`` as ``reviewtui publish``, in a worker, against the local GitHub API."""

from __future__ import annotations

from textual.widgets import Input, Select, Static

from reviewtui.app.open_pr import open_pull_request
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.screens.export_modal import PUBLISH, ExportModal
from tests.support.forge_world import PullWorld, seed_review
from tests.support.opening import published
from tests.support.rendered import static_text


async def test_x_publishes_the_review_to_the_pull_request(pull_world: PullWorld) -> None:
    opened = open_pull_request(pull_world.local, "7")
    seed_review(pull_world)
    app = ReviewApp(load_change(pull_world.local, opened.selector), pull="7",
                    description=opened.description, description_source="pull request")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        intent = app.loaded.intent
        assert intent is not None and intent.description_source == "pull request"
        assert intent.headline().startswith("Charge three times")
        await pilot.press("X")
        assert isinstance(app.screen, ExportModal)
        app.screen.query_one("#export-format", Select).value = PUBLISH
        await pilot.pause()
        assert app.screen.query_one("#export-path", Input).disabled
        await pilot.press("ctrl+s")
        await published(app, pilot)
        [post] = pull_world.fake.ops("POST")
        assert post.body["event"] == "REQUEST_CHANGES"
        assert {c["line"] for c in post.body["comments"]} == {2, 3}
        messages = [str(n.message) for n in app._notifications]
        assert any("2 line comments posted" in m for m in messages), messages
        # again: nothing is posted twice
        await pilot.press("X")
        app.screen.query_one("#export-format", Select).value = PUBLISH
        await pilot.press("ctrl+s")
        await published(app, pilot)
        assert len(pull_world.fake.ops("POST")) == 1 and len(pull_world.fake.ops("PUT")) == 1


async def test_export_offers_no_publishing_without_a_pull_request(pull_world: PullWorld) -> None:
    opened = open_pull_request(pull_world.local, "7")
    app = ReviewApp(load_change(pull_world.local, opened.selector))
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("X")
        assert isinstance(app.screen, ExportModal)
        select = app.screen.query_one("#export-format", Select)
        assert PUBLISH not in [value for _label, value in select._options]


async def test_the_pull_requests_review_threads_show_beside_their_lines(
        pull_world: PullWorld) -> None:
    opened = open_pull_request(pull_world.local, "7")
    pull_world.fake.add_comment(7, path="app/service.py", line=2, body="Why 3?\nmore",
                                user="colleague")
    pull_world.fake.add_comment(7, path="app/service.py", line=30, body="Unrelated line")
    app = ReviewApp(load_change(pull_world.local, opened.selector), pull="7")
    async with app.run_test(size=(140, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [t.line for t in app.pull_threads] == [2, 30]
        shown = {app.current(): static_text(app.screen.query_one("#review", Static))}
        await pilot.press("down")
        await pilot.pause()
        shown[app.current()] = static_text(app.screen.query_one("#review", Static))
        [first] = [text for unit, text in shown.items()
                   if unit and app.loaded.unit(unit).covers(2, 2)]  # type: ignore[union-attr]
        assert "on the pull request (1, read-only)" in first
        assert "@colleague Why 3?" in first and "more" not in first
        assert all("Unrelated line" not in text for text in shown.values())
