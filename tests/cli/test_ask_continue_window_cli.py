"""``reviewtui ask --continue`` when the unfinished answer no longer fits the prompt whole.

An answer that stopped at the token limit is as long as ``max_output_tokens``; with the review
context and the question that went with it, the continuation's prompt had no room for it whole,
and the packer moved the round to the summary layer: the model was asked to "continue exactly
where it stopped" without being shown where it stopped (the summary keeps the question and the
first sentences). The continued answer's end must reach the model.
"""

from __future__ import annotations

from reviewtui.conversation.packing import TRUNCATED_MARKER
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


def test_the_end_of_a_long_unfinished_answer_reaches_its_continuation(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    repo.write("app/service.py", "".join(f"def f{n}(x):\n    return x + {n}\n\n"
                                         for n in range(99)))
    repo.write(".reviewtui.toml", "[llm]\ncontext_window = 4000\nmax_output_tokens = 1400\n")
    repo.commit("base")
    repo.write("app/service.py", "".join(f"def f{n}(x):\n    return x * 2 + {n}\n\n"
                                         for n in range(99)))
    answer = " ".join(f"Step {n}: f{n} now doubles x before adding {n}." for n in range(99))
    answer += " The last step STOPPED-HERE"
    fake_llm.script(Reply.text(answer, finish_reason="length"), Reply.text(" and so on."))
    first = cli("ask", "--rules-plan", "Walk me through every function.", repo.root)
    assert first.code == 3, first.err
    going_on = cli("ask", "--rules-plan", "--continue", repo.root)
    assert going_on.code == 0, going_on.err
    request = fake_llm.chat_requests[-1].body["messages"]
    # where it stopped is shown, as the end of the model's own answer, said to be its end
    [shown] = [m["content"] for m in request
               if m["role"] == "assistant" and "STOPPED-HERE" in (m["content"] or "")]
    assert shown.startswith("[… the start of this answer is left out to fit the context "
                            "window; it goes on:]")
    assert shown.endswith(answer[-200:] + "\n\n" + TRUNCATED_MARKER)
    assert request[-2:][0]["role"] == "assistant" and request[-1]["role"] == "user"
    assert request[-1]["content"].endswith("do not start over.")
    assert "packed" in going_on.err
