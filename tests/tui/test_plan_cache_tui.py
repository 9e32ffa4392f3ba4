"""``P`` reads the plan kept for the change (``reviewtui plan`` made it, or an earlier
workbench) instead of asking the model again, says so with its age, and asks again when
pressed with the model's plan already shown."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from reviewtui.cli import main
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextLevel
from reviewtui.pipeline import load_change
from reviewtui.tui.app import ReviewApp
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/util.py", "def add(a, b):\n    return a + b\n")
    repo.write("README.md", "# util\n")
    repo.commit("base")
    repo.write("app/util.py", "def add(a, b):\n    return a + b + 0\n")
    repo.write("README.md", "# util\n\nadds\n")
    return repo


def _answer(level: str) -> Any:
    def answer(request: dict[str, Any]) -> Reply:
        ids = re.findall(r'"unit_id":"([^"]+)"', request["messages"][1]["content"])
        return Reply.json({"plan": [{"unit_id": uid, "llm_context_level": level}
                                    for uid in ids]})
    return answer


def _status(app: ReviewApp) -> str:
    return str(app.query_one("#status").render())


async def test_p_reads_the_kept_plan_then_asks_again(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer,
        capsys: pytest.CaptureFixture[str]) -> None:
    _repo(repo)
    fake_llm.script(_answer("full_file"), _answer("function"))
    assert main(["plan", str(repo.root)]) == 0  # reviewtui plan, then the workbench
    assert len(fake_llm.chat_requests) == 1
    app = ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)),
                    store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        assert "P asks test-model" in _status(app)
        await pilot.press("P")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(fake_llm.chat_requests) == 1  # the kept plan: no request
        assert app.triage.plan.planner.cached_at is not None
        assert all(r.item.llm_context_level is ContextLevel.FULL_FILE for r in app.rows)
        assert re.search(r"planned by test-model \(kept plan, made \d+ s ago; P asks "
                         r"again\)", _status(app))
        await pilot.press("P")  # the model's plan is shown: P asks it anew
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(fake_llm.chat_requests) == 2
        assert app.triage.plan.planner.cached_at is None
        assert all(r.item.llm_context_level is ContextLevel.FUNCTION for r in app.rows)
        assert "kept plan" not in _status(app) and "planned by test-model" in _status(app)
    assert main(["plan", "--json", str(repo.root)]) == 0
    assert len(fake_llm.chat_requests) == 2  # P's new plan was kept in place of the first
    assert '"llm_context_level": "full_file"' not in capsys.readouterr().out


async def test_without_the_caches_p_asks_the_model(repo: GitRepoBuilder, tmp_path: Path,
                                                   fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(_answer("full_file"), _answer("function"))
    assert main(["plan", str(repo.root)]) == 0
    app = ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO), use_cache=False),
                    store_path=tmp_path / "s.sqlite3")  # reviewtui --no-cache
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        await pilot.press("P")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(fake_llm.chat_requests) == 2
        assert all(r.item.llm_context_level is ContextLevel.FUNCTION for r in app.rows)
        assert "kept plan" not in _status(app)
