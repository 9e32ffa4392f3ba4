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

