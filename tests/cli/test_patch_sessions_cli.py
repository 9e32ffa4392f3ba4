"""``--patch``: each patch its own conversation and review, whatever it is called."""

from __future__ import annotations

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

_PATCH = ("--- a/app/service.py\n+++ b/app/service.py\n@@ -1,2 +1,2 @@\n"
          " def charge(amount):\n-    return amount * 2\n+    return amount * {}\n")


def test_two_patches_under_one_name_are_two_sessions_and_one_patch_again_is_its_own(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # Both were "review.diff" (or, piped in, "standard input"): the second patch continued the
    # first one's conversation (its question and answer sent as history) and its findings.
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.commit("base")
    fake_llm.script(Reply.text("It triples."), Reply.text("It quadruples."),
                    Reply.text("Still triples."))
    patch = repo.root.parent / "review.diff"
    ask = ("ask", "--rules-plan", "--patch", patch)
    patch.write_text(_PATCH.format(3))
    assert cli(*ask, "What does it do?", repo.root).code == 0
    patch.write_text(_PATCH.format(4))
    assert cli(*ask, "And this one?", repo.root).code == 0
    sent = fake_llm.chat_requests[-1].body["messages"]
    assert not any("It triples." in str(m.get("content")) for m in sent)
    patch.write_text(_PATCH.format(3))
    assert cli(*ask, "Again?", repo.root).code == 0  # the first patch's own session
    again = fake_llm.chat_requests[-1].body["messages"]
    assert any("It triples." in str(m.get("content")) for m in again)
    assert not any("It quadruples." in str(m.get("content")) for m in again)
