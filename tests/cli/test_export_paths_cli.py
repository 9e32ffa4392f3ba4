"""The review's Markdown names a file whose path holds a backtick in one code span."""

from __future__ import annotations

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

NAME = "tick`ed.py"


def test_a_backtick_in_a_path_stays_inside_its_code_span(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """'### `tick`ed.py`' closed the span after 'tick' and showed 'ed.py' as text, an
    unclosed backtick after it (so did the review's '`tick`ed.py:2`')."""
    repo.write(NAME, "def f():\n    return 1\n")
    repo.commit("base")
    repo.write(NAME, "def f():\n    return 2\n")
    finding = {"title": "Changed", "body": "b", "severity": "P2", "confidence": 0.8,
               "file_path": NAME, "start_line": 2, "end_line": 2}
    fake_llm.script(Reply.json({"verdict": "comment", "summary": "s", "findings": [finding]}))
    review = cli("review", "--rules-plan", "--format", "markdown", repo.root)
    assert review.code == 0, review.err
    assert "``tick`ed.py:2`` · unit" in review.out
    export = cli("export", repo.root)
    assert export.code == 0, export.err
    assert "### ``tick`ed.py``\n" in export.out
