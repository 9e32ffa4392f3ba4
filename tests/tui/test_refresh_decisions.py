"""A decision made while a refresh runs (r, or a save under --watch) stays: the overrides the
refreshed change gets are the person's decisions when the workbench adopts it, not the ones it
had when the refresh started — on screen and in the session store."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reviewtui.models import ContextLevel
from reviewtui.pipeline import LoadedChange
from reviewtui.plan import OverrideSet
from reviewtui.sessions.store import SessionStore
from reviewtui.tui.app import ReviewApp
from tests.conftest import GitRepoBuilder
from tests.tui.test_finish_review import BILLING, _app, _repo, _until


def _stored(store: Path) -> OverrideSet:
    with SessionStore(store) as opened:
        [session] = opened.list_sessions()
        return opened.overrides(session.session_id)


def _status(app: ReviewApp) -> str:
    return str(app.query_one("#status").render())


async def test_a_decision_made_while_the_refresh_runs_is_kept_on_screen_and_in_the_store(
        repo: GitRepoBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    running, release = threading.Event(), threading.Event()
    collect = LoadedChange.refresh

    def held(self: LoadedChange) -> LoadedChange:
        fresh = collect(self)  # the files read...
        running.set()
        release.wait(20)  # ...and handed back only once the person has decided meanwhile
        return fresh

    monkeypatch.setattr(LoadedChange, "refresh", held)
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        charge = next(r.unit for r in app.rows if r.unit.file_path == "app/billing.py"
                      and r.unit.covers(2, 2))
        tidy = next(r.unit for r in app.rows if r.unit.file_path == "app/util.py")
        # A decision before the refresh, on the unit the refresh will see edited.
        app.table.move_cursor(row=app.table.get_row_index(charge.unit_id))
        await pilot.press("1")
        repo.write("app/billing.py", BILLING.replace("amount * 3", "amount * 4"))
        await pilot.press("r")
        assert await _until(pilot, running.is_set)
        # While it runs: a decision on another unit (persisted at once, as every key is).
        app.table.move_cursor(row=app.table.get_row_index(tidy.unit_id))
        await pilot.press("4")
        assert _stored(store).units[tidy.unit_id].level is ContextLevel.FULL_FILE
        release.set()
        assert await _until(pilot, lambda: "refreshed:" in _status(app))
        await app.workers.wait_for_complete()
        await pilot.pause()
        # Both decisions stand: the one made during the refresh, and the earlier one, which
        # followed its unit to its new id.
        new_charge = next(r for r in app.rows if r.unit.file_path == "app/billing.py"
                          and r.unit.covers(2, 2))
        assert new_charge.unit.unit_id != charge.unit_id
        tidy_row = next(r for r in app.rows if r.unit.unit_id == tidy.unit_id)
        assert tidy_row.item.final_context_level is ContextLevel.FULL_FILE
        assert tidy_row.item.provenance.level == "user"
        assert new_charge.item.final_context_level is ContextLevel.DIFF_ONLY
        stored = _stored(store)
        assert stored.units[tidy.unit_id].level is ContextLevel.FULL_FILE
        assert stored.units[new_charge.unit.unit_id].level is ContextLevel.DIFF_ONLY
        assert stored == app.triage.overrides
