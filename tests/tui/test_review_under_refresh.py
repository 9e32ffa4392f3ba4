"""A refresh (r, --watch) while the review agent reads the change: the finished review is not
attached to the new lines as if the model had read them. Its findings stay, as findings about
the text it read ("fixed?" where their lines changed since), the status line says which units
changed under it, and the detail pane marks them as reviewed on an earlier version until R
reviews them again — whether the refresh was adopted before the review ended or after."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import Static

from reviewtui.plan import FusedPlan
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.review_versions import EARLIER_REVIEW
from reviewtui.tui.session import Refreshed, TuiSession
from reviewtui.tui.triage import Row
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.rendered import static_text
from tests.tui.test_finish_review import BILLING, FINDINGS, _app, _findings, _repo, _until

EDITED = BILLING.replace("amount * 3", "amount * 4")  # line 2, the charge finding's line
NOTE = "changed while the review ran"


def _status(app: ReviewApp) -> str:
    return str(app.query_one("#status").render())


def _billing_row(app: ReviewApp, line: int) -> Row:
    return next(r for r in app.rows
                if r.unit.file_path == "app/billing.py" and r.unit.covers(line, line))


async def _detail_of(app: ReviewApp, pilot: object, row: Row) -> str:
    app.table.move_cursor(row=app.rows.index(row))
    await pilot.pause()  # type: ignore[attr-defined]
    return " ".join(static_text(app.query_one("#review", Static), width=400).split())


async def _review_started(app: ReviewApp, pilot: object, fake_llm: ScriptedOpenAIServer,
                          seconds: float) -> None:
    """R, the model answering after ``seconds``: returns once it has the request."""
    fake_llm.script(Reply.delay(seconds, Reply.json(FINDINGS)))
    await pilot.press("R")  # type: ignore[attr-defined]
    assert await _until(pilot, lambda: bool(fake_llm.chat_requests))
    assert app.jobs.running("review")


async def test_a_refresh_adopted_while_the_review_runs_leaves_its_findings_on_the_earlier_text(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        read = _billing_row(app, 2).unit.unit_id
        await _review_started(app, pilot, fake_llm, 3.0)
        repo.write("app/billing.py", EDITED)  # the charge's line 2 changes under the review
        await pilot.press("r")
        assert await _until(pilot, lambda: "refreshed:" in _status(app))
        assert app.jobs.running("review")  # the refresh came in while the model read
        await app.workers.wait_for_complete()
        await pilot.pause()
        # Kept, both: the one on a line that changed since is "fixed?", not open on it.
        states = _findings(store)
        assert states == {"Charge rate tripled": ("fixed", None),
                          "Refund sign flipped": ("open", None)}
        status = _status(app)
        assert "review: 2 findings (2 new" in status
        assert f"app/billing.py:L2 {NOTE}" in status and "R reviews it again" in status
        charge = _billing_row(app, 2)
        assert charge.unit.unit_id != read  # the unit as it is now, not the one reviewed
        assert [(f.title, f.label) for f in charge.review] == [("Charge rate tripled",
                                                                "fixed?")]
        assert charge.findings == 0  # nothing open counted on the new lines
        shown = await _detail_of(app, pilot, charge)
        assert shown.startswith(EARLIER_REVIEW) and "fixed? L2" in shown
        refund = _billing_row(app, 17)  # its text did not change: no mark, still open
        assert [f.label for f in refund.review] == ["open"]
        assert EARLIER_REVIEW not in await _detail_of(app, pilot, refund)
        # R reviews it again, on its current text: the mark goes.
        fake_llm.script(Reply.json(FINDINGS))
        await pilot.press("R")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert NOTE not in _status(app)
        assert EARLIER_REVIEW not in await _detail_of(app, pilot, _billing_row(app, 2))
        assert _findings(store)["Charge rate tripled"] == ("open", None)  # found on it again


async def test_a_refresh_that_read_the_files_during_the_review_but_lands_after_it(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The refresh read the edited file while the review ran, and is adopted only once the
    review has ended: the check happens then."""
    release = threading.Event()
    collect = TuiSession.refresh

    def held(self: TuiSession, plan: FusedPlan) -> Refreshed:
        refreshed = collect(self, plan)  # the files as they are now
        release.wait(20)  # ...handed to the workbench only once the review is done
        return refreshed

    monkeypatch.setattr(TuiSession, "refresh", held)
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _review_started(app, pilot, fake_llm, 1.0)
        repo.write("app/billing.py", EDITED)
        await pilot.press("r")
        assert await _until(pilot, lambda: "review: 2 findings" in _status(app))
        assert NOTE not in _status(app)  # the change it knows of is still the one reviewed
        release.set()
        assert await _until(pilot, lambda: "refreshed:" in _status(app))
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _findings(store) == {"Charge rate tripled": ("fixed", None),
                                    "Refund sign flipped": ("open", None)}
        assert f"app/billing.py:L2 {NOTE}" in _status(app)
        charge = _billing_row(app, 2)
        assert [f.label for f in charge.review] == ["fixed?"]
        assert (await _detail_of(app, pilot, charge)).startswith(EARLIER_REVIEW)
