"""``reviewtui ask --session`` on a session whose change moved on (amended, rebased, deleted)."""

from __future__ import annotations

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


def test_a_session_of_a_rewritten_branch_is_told_apart_from_this_change(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # Both changes are 'pr: merge-base(main) -> HEAD': the refusal named the session's change
    # by that title alone -- the very words that describe the change being asked about.
    repo.write("m.py", "def f():\n    return 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feat")
    repo.write("m.py", "def f():\n    return 2\n")
    repo.commit("feat: two")
    before = repo.head()
    fake_llm.script(Reply.text("ok"))
    asked = cli("ask", "--rules-plan", "Why two?", repo.root)
    assert asked.code == 0, asked.err
    session = asked.err.split("session ", 1)[1].split()[0]
    repo.git("commit", "-q", "--amend", "-m", "feat: two (amended)")
    after = repo.head()
    refused = cli("ask", "--rules-plan", "--session", session, "And now?", repo.root)
    assert refused.code == 2 and len(fake_llm.chat_requests) == 1  # nothing sent
    last = refused.err.splitlines()[-1]
    assert f"session {session} is about another change" in last
    assert f"..{before[:7]}" in last and f"..{after[:7]}" in last, last
    assert "leave --session out" in last
