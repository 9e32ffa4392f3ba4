"""The workbench's chat sees the plan as the person has it now (no App here)."""

from __future__ import annotations

import threading
from pathlib import Path

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.plan import FusedPlan
from reviewtui.tui.session import TuiSession
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


def _ask(session: TuiSession, plan: FusedPlan, question: str) -> None:
    session.ask(plan, question, on_delta=lambda _: None, on_tool=lambda _: None,
                cancel=threading.Event())


def test_a_unit_skipped_after_the_first_question_leaves_the_chat_context(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """The chat kept the plan of its first question: a unit the person skipped afterwards was
    still sent to the model as one to review (and one let back in stayed out)."""
    repo.write("app/pay.py", "def charge(amount):\n    return amount * 2\n")
    repo.write("app/mail.py", "def send(to):\n    return to\n")
    repo.commit("base")
    repo.write("app/pay.py", "def charge(amount):\n    return amount * 3  # PAY_MARK\n")
    repo.write("app/mail.py", "def send(to):\n    return to.strip()  # MAIL_MARK\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    plan = loaded.plan(use_llm=False)
    assert not any(item.skip_review for item in plan.plan)
    session = TuiSession(loaded, tmp_path / "s.sqlite3")
    fake_llm.script(Reply.text("first"), Reply.text("second"))
    _ask(session, plan, "what changed?")
    first = str(fake_llm.chat_requests[0].body["messages"])
    assert "PAY_MARK" in first and "MAIL_MARK" in first
    mail = next(u.unit_id for u in loaded.units if u.file_path == "app/mail.py")
    skipped = plan.model_copy(update={"plan": [
        item.model_copy(update={"skip_review": True}) if item.unit_id == mail else item
        for item in plan.plan]})
    _ask(session, skipped, "and now?")
    second = fake_llm.chat_requests[1].body["messages"]
    context = str([m for m in second if m["role"] == "system"])
    assert "PAY_MARK" in context and "MAIL_MARK" not in context
