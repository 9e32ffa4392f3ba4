"""``X`` → publish in the workbench of a GitLab merge request opened with ``--pr``: the same
``publish_review`` as ``reviewtui publish``, in a worker, against the local GitLab API; and the
merge request's diff threads beside their lines."""

from __future__ import annotations

from textual.widgets import Select, Static

from reviewtui.app.open_pr import open_pull_request
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.screens.export_modal import PUBLISH, ExportModal
from tests.support.forge_world import seed_review
from tests.support.gitlab_world import MergeRequestWorld
from tests.support.opening import published
from tests.support.rendered import static_text


async def test_x_publishes_the_review_to_the_merge_request(mr_world: MergeRequestWorld) -> None:
    opened = open_pull_request(mr_world.local, "7")
    seed_review(mr_world)
    app = ReviewApp(load_change(mr_world.local, opened.selector), pull="7",
                    description=opened.description, description_source="pull request")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("X")
        assert isinstance(app.screen, ExportModal)
        app.screen.query_one("#export-format", Select).value = PUBLISH
        await pilot.pause()
        await pilot.press("ctrl+s")
        await published(app, pilot)
        lines = sorted(n["position"]["new_line"] for n in mr_world.fake.ours(7) if "position" in n)
        assert lines == [2, 3]
        messages = [str(n.message) for n in app._notifications]
        assert any("2 line comments posted" in m for m in messages), messages
        # again: nothing is posted twice, the summary is edited
        await pilot.press("X")
        app.screen.query_one("#export-format", Select).value = PUBLISH
        await pilot.press("ctrl+s")
        await published(app, pilot)
        assert len(mr_world.fake.ours(7)) == 3 and len(mr_world.fake.ops("PUT")) == 1


async def test_the_merge_requests_diff_threads_show_beside_their_lines(
        mr_world: MergeRequestWorld) -> None:
    opened = open_pull_request(mr_world.local, "7")
    thread = mr_world.fake.add_comment(7, path="app/service.py", line=2, body="Why 3?\nmore")
    thread["notes"].append(mr_world.fake.note(7, "Because.", "author"))
    mr_world.fake.add_comment(7, path="app/service.py", line=30, body="Unrelated line")
    app = ReviewApp(load_change(mr_world.local, opened.selector), pull="7")
    async with app.run_test(size=(140, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [(t.line, t.reply) for t in app.pull_threads] == [(2, False), (2, True),
                                                                 (30, False)]
        shown = static_text(app.screen.query_one("#review", Static))
        for _ in range(3):
            if "Why 3?" in shown:
                break
            await pilot.press("down")
            await pilot.pause()
            shown = static_text(app.screen.query_one("#review", Static))
        assert "@colleague Why 3?" in shown and "more" not in shown
        assert "@author Because." in shown
