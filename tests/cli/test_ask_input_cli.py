"""What a person types reaches the model as text: ``ask``'s question, ``--session``,
``review --prompt``."""

from __future__ import annotations

import json

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

# Python reads a byte of argv that the locale cannot decode (a Latin-1 'é' in a UTF-8
# terminal) as a lone surrogate: this is what `reviewtui ask $'caf\xe9?'` hands main().
LATIN1_E = "\udce9"


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.commit("base")
    repo.write("app/service.py", "def charge(amount):\n    return amount * 3\n")
    return repo


def test_bytes_of_another_encoding_in_the_question_are_replaced_not_a_traceback(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # UnicodeEncodeError ('surrogates not allowed') from the question's keywords, exit 1
    _repo(repo)
    fake_llm.script(Reply.text("ok"))
    asked = cli("ask", "--rules-plan", f"caf{LATIN1_E} 日本 🚀 ok?", repo.root)
    assert (asked.code, asked.out) == (0, "ok\n"), asked.err
    sent = fake_llm.chat_requests[0].body["messages"][-1]["content"]
    assert sent == "caf\ufffd 日本 🚀 ok?"
    refused = cli("ask", "--rules-plan", "--session", f"s_{LATIN1_E}", "x", repo.root)
    assert refused.code == 2 and len(fake_llm.chat_requests) == 1, refused.err
    assert refused.err.splitlines()[-1].startswith("reviewtui: error: no session 's_\ufffd'")


def test_bytes_of_another_encoding_in_the_review_prompt_are_replaced(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.json({"verdict": "approve", "summary": "ok", "findings": []}))
    result = cli("review", "--rules-plan", "--prompt", f"caf{LATIN1_E} only", repo.root)
    assert result.code == 0, result.err
    assert "caf\ufffd only" in json.dumps(fake_llm.chat_requests[0].body, ensure_ascii=False)


def test_a_repository_whose_path_is_not_utf8_keeps_its_sessions(
        make_repo: type[GitRepoBuilder], cli: CliRunner,
        fake_llm: ScriptedOpenAIServer) -> None:
    # The store is keyed by the repository's path: one not in UTF-8 ('/src/caf\xe9') made
    # every store access a UnicodeEncodeError traceback (ask, review, sessions, export)
    repo = _repo(make_repo(f"caf{LATIN1_E}"))
    fake_llm.script(Reply.text("first"), Reply.text("second"), Reply.text("third"))
    first = cli("ask", "--rules-plan", "Why?", repo.root)
    assert (first.code, first.out) == (0, "first\n"), first.err
    session = first.err.split("session ", 1)[1].split()[0]
    second = cli("ask", "--rules-plan", "And?", repo.root)
    assert second.code == 0 and f"session {session}" in second.err, second.err
    third = cli("ask", "--rules-plan", "--session", session, "So?", repo.root)
    assert third.code == 0 and "round 3:" in third.err, third.err
    [listed] = cli("sessions", "--json", repo.root).json()
    assert (listed["session_id"], listed["rounds"]) == (session, 3)
    other = _repo(make_repo("caf\ufffd"))  # not mistaken for the other: another repository
    assert cli("sessions", "--json", other.root).json() == []
