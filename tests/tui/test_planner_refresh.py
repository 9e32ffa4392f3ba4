"""The planner (P) and a refresh (r, --watch) that lands while it runs: the plan, made for the
units the planner read, is carried onto the units there are now — by unit id, an edited unit
taking the plan of the unit it was (same file, nearest lines), a unit the plan never saw
decided by the rules — so that every unit keeps its row (and R reviews them all), and the
status line says the plan was made for an earlier version. Whichever lands first."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reviewtui.models import ContextLevel
from reviewtui.pipeline import LoadedChange
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.triage import Row
from reviewtui.units import ReviewUnit
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.tui.test_finish_review import BILLING, _app, _repo, _until

EDITED = BILLING.replace("amount * 3", "amount * 4")  # the charge unit, lines 1-3
LEVELS = {"charge": "full_file", "refund": "file_context", "tidy": "diff_only"}


def _status(app: ReviewApp) -> str:
    return str(app.query_one("#status").render())


def _named(units: list[ReviewUnit]) -> dict[str, str]:
    """charge / refund / tidy -> unit id."""
    found = {}
    for unit in units:
        name = "tidy" if unit.file_path == "app/util.py" else (
            "charge" if unit.covers(2, 2) else "refund")
        found[name] = unit.unit_id
    return found


def _plan_reply(units: list[ReviewUnit]) -> Reply:
    return Reply.json({"plan": [{"unit_id": uid, "llm_context_level": LEVELS[name]}
                                for name, uid in _named(units).items()]})


def _row(app: ReviewApp, path: str, line: int | None = None) -> Row:
    return next(r for r in app.rows if r.unit.file_path == path
                and (line is None or r.unit.covers(line, line)))


def _carried(app: ReviewApp, read: dict[str, str]) -> None:
    """The plan on the units there are now: every unit has its row; the edited charge took
    the plan of the charge the planner read, the unchanged units keep theirs, the new file
    (never seen by the planner) has the rules' level."""
    assert {r.unit.unit_id for r in app.rows} == {u.unit_id for u in app.loaded.units}
    assert len(app.rows) == 4
    charge = _row(app, "app/billing.py", 2)
    assert charge.unit.unit_id != read["charge"]
    assert charge.item.llm_context_level is ContextLevel.FULL_FILE
    assert charge.item.provenance.level == "llm"
    refund = _row(app, "app/billing.py", 17)
    assert refund.unit.unit_id == read["refund"]
    assert refund.item.llm_context_level is ContextLevel.FILE_CONTEXT
    assert _row(app, "app/util.py").item.llm_context_level is ContextLevel.DIFF_ONLY
    extra = _row(app, "app/extra.py")
    assert extra.item.llm_context_level is None
    assert extra.item.provenance.level == "rule" and extra.item.reason.startswith("rules_only")


async def test_a_plan_that_arrives_after_a_refresh_keeps_every_unit_in_the_table(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    read = _named(app.loaded.units)
    fake_llm.script(Reply.delay(2.0, _plan_reply(app.loaded.units)))
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("P")
        assert await _until(pilot, lambda: bool(fake_llm.chat_requests))
        repo.write("app/billing.py", EDITED)  # while the planner reads the change
        repo.write("app/extra.py", "def extra():\n    return 1\n")
        await pilot.press("r")
        assert await _until(pilot, lambda: "refreshed:" in _status(app))
        assert app.jobs.running("planner")  # the refresh landed first
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.triage.plan.planner.status == "ok"
        _carried(app, read)
        assert ("the plan was made for an earlier version of the change (1 edited unit took "
                "the plan of the version it read; 1 unit it did not cover keeps the rules' "
                "level)") in _status(app)
        assert "4 units" in _status(app)  # R reviews the kept units shown: all of them


async def test_a_plan_that_arrives_while_a_refresh_reads_the_files_is_not_lost(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The refresh carried the plan it started with; the planner's, shown meanwhile, is the
    one carried to the refreshed change."""
    running, release = threading.Event(), threading.Event()
    collect = LoadedChange.refresh

    def held(self: LoadedChange) -> LoadedChange:
        fresh = collect(self)
        running.set()
        release.wait(20)  # handed back only once the planner has answered
        return fresh

    monkeypatch.setattr(LoadedChange, "refresh", held)
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    read = _named(app.loaded.units)
    fake_llm.script(_plan_reply(app.loaded.units))
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        repo.write("app/billing.py", EDITED)
        repo.write("app/extra.py", "def extra():\n    return 1\n")
        await pilot.press("r")
        assert await _until(pilot, running.is_set)
        await pilot.press("P")
        assert await _until(pilot, lambda: "planned by test-model" in _status(app))
        release.set()
        assert await _until(pilot, lambda: "refreshed:" in _status(app))
        await app.workers.wait_for_complete()
        await pilot.pause()
        _carried(app, read)
        assert "planned by test-model: 2 levels" in _status(app)
