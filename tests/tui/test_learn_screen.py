"""``L``: the learning screen through Pilot -- candidates from real evidence (the scripted planner
through the openai SDK, the person's keys), accept re-scores the table, reject remembers."""

from __future__ import annotations

import json
from pathlib import Path

from textual.pilot import Pilot

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextLevel
from reviewtui.pipeline import load_change
from reviewtui.plan import read_conflicts
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.screens.learn import LearnScreen
from tests.conftest import GitRepoBuilder
from tests.support import learning
from tests.support.openai_server import ScriptedOpenAIServer


def _history(repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    """Three changes the scripted planner planned, and a fourth left in the working tree."""
    learning.base(repo, 4)
    for n in range(3):
        rev = learning.change(repo, n)
        fake_llm.script(learning.planner)
        plan = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref=rev)).plan()
        assert plan.planner.status == "ok"
    learning.change(repo, 3, commit=False)


def _cell(app: ReviewApp, unit_id: str, column: str) -> str:
    return str(app.table.get_cell(unit_id, column))


async def _press_and_settle(app: ReviewApp, pilot: Pilot[None], key: str) -> None:
    """Press ``key`` and wait for the learning worker it starts and the screen it updates."""
    await pilot.press(key)
    await app.workers.wait_for_complete()
    await pilot.pause()


async def _open(app: ReviewApp, pilot: Pilot[None]) -> LearnScreen:
    await _press_and_settle(app, pilot, "L")
    screen = app.screen
    assert isinstance(screen, LearnScreen)
    return screen


async def test_accepting_a_candidate_rescores_the_table(repo: GitRepoBuilder, tmp_path: Path,
                                                        fake_llm: ScriptedOpenAIServer) -> None:
    _history(repo, fake_llm)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    test_unit = next(u.unit_id for u in loaded.units if u.file_path.startswith("tests/"))
    app_unit = next(u.unit_id for u in loaded.units if u.file_path.startswith("app/"))
    app = ReviewApp(loaded, store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert _cell(app, test_unit, "final") == "function"
        screen = await _open(app, pilot)
        [candidate] = screen.report.candidates
        assert candidate.status == "ready" and candidate.samples == 3
        assert screen.highlighted() == candidate
        await _press_and_settle(app, pilot, "a")
        assert app.screen is screen and screen.report.candidates == []
        # The table behind is re-scored at once: the test unit only, the other untouched.
        assert _cell(app, test_unit, "final") == "diff_only"
        assert _cell(app, test_unit, "rule") == "diff_only"
        assert _cell(app, app_unit, "final") == "function"
        assert app.triage.item(test_unit).rule_confidence == candidate.confidence
        assert f"accepted {candidate.id}" in str(app.query_one("#status").render())
        assert "1 unit re-scored" in str(app.query_one("#status").render())
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LearnScreen)
    written = (repo.root / ".reviewtui" / "learned_rules.toml").read_text()
    assert f'candidate = "{candidate.id}"' in written


async def test_rejecting_and_the_persons_keys_are_evidence(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _history(repo, fake_llm)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    test_unit = next(u.unit_id for u in loaded.units if u.file_path.startswith("tests/"))
    app = ReviewApp(loaded, store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        while app.current() != test_unit:
            await pilot.press("j")
        await pilot.press("1")  # the person: the test unit needs only the diff
        await pilot.pause()
        log = repo.root / ".git" / "reviewtui" / "conflicts.jsonl"
        [mine] = [r for r in read_conflicts(log) if r.source == "user"]
        assert (mine.unit_id, mine.user_level, mine.rule_context_level) == (
            test_unit, ContextLevel.DIFF_ONLY, ContextLevel.FUNCTION)
        screen = await _open(app, pilot)
        [candidate] = screen.report.candidates
        assert (candidate.samples, candidate.user) == (4, 1)
        await _press_and_settle(app, pilot, "x")
        [kept_out] = screen.report.candidates
        assert kept_out.status == "rejected"
        assert _cell(app, test_unit, "rule") == "function"  # nothing learned
    rejected = json.loads((repo.root / ".git" / "reviewtui" / "rejected_rules.json").read_text())
    assert rejected["rejected"][candidate.id]["samples"] == 4
    assert not (repo.root / ".reviewtui").exists()
