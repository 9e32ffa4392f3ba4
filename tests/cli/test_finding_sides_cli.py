"""A finding on removed lines (numbered before the change, as the review prompt asks for removed
code) is kept on the old side: quoted from the old version, placed on no line of the new file
in rdjson and SARIF (which name the old lines instead), on the left side of a pull request, and
fingerprinted from the old text -- through the real command line, a real repository and
session store, and the scripted model."""

from __future__ import annotations

import json
from typing import Any

from reviewtui.agent.findings import Finding, fingerprint
from reviewtui.agent.record import line_hash
from reviewtui.sessions import SessionStore
from reviewtui.sessions.review_records import StoredFinding
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.schemas import rdjson_errors, sarif_errors

CALC = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(30))


def _answer(start: int, end: int, **extra: Any) -> dict[str, Any]:
    return {"verdict": "request_changes", "summary": "s", "findings": [
        {"title": "f11 removed but still called", "body": "callers break", "severity": "P1",
         "confidence": 0.9, "file_path": "calc.py", "start_line": start, "end_line": end,
         **extra}]}


def _removed(repo: GitRepoBuilder) -> str:
    """A commit that removes f10 and f11 (old lines 31-36); its sha."""
    repo.write("calc.py", CALC)
    repo.commit("base")
    lines = CALC.split("\n")
    del lines[30:36]
    repo.write("calc.py", "\n".join(lines))
    return repo.commit("remove f10 f11")


def test_a_finding_on_removed_lines_is_exported_on_the_old_side(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    sha = _removed(repo)
    fake_llm.script(Reply.json(_answer(34, 35)))
    review = cli("review", "--rules-plan", "--commit", sha, "--format", "sarif", repo.root)
    assert review.code == 0, review.err
    [result] = json.loads(review.out)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "calc.py", "uriBaseId": "%SRCROOT%"}}  # no new-file lines
    assert "On removed lines L34-35 (before the change)" in result["message"]["text"]

    listed = cli("findings", "--commit", sha, repo.root)
    assert "calc.py:L34-35 (removed lines)" in listed.out, listed.out
    with SessionStore() as store:
        [finding] = store.findings(store.list_sessions()[0].session_id)
    assert finding.side == "old"

    markdown = cli("export", "--commit", sha, repo.root).out
    assert "**P1 · f11 removed but still called** (removed lines L34-35, open)" in markdown
    assert "   34 | def f11(x):\n     35 |     return x + 11" in markdown  # the old text
    assert "f13" not in markdown  # what the new file has at 34-35

    rdjson = json.loads(cli("export", "--commit", sha, "--format", "rdjson", repo.root).out)
    assert rdjson_errors(rdjson) == []
    [diagnostic] = rdjson["diagnostics"]
    assert diagnostic["location"] == {"path": "calc.py"}
    assert "On removed lines L34-35 (before the change)." in diagnostic["message"]
    assert diagnostic["original_output"] == "calc.py: [P1] f11 removed but still called"

    sarif = json.loads(cli("export", "--commit", sha, "--format", "sarif", repo.root).out)
    assert sarif_errors(sarif) == []
    [exported] = sarif["runs"][0]["results"]
    assert "region" not in exported["locations"][0]["physicalLocation"]
    assert exported["properties"]["side"] == "old"
    assert exported["partialFingerprints"] == result["partialFingerprints"]

    data = json.loads(cli("export", "--commit", sha, "--format", "json", repo.root).out)
    assert data["findings"][0]["side"] == "old"
    assert data["findings"][0]["quote"] == ["   34 | def f11(x):", "   35 |     return x + 11"]


def test_the_fingerprint_and_line_hash_are_the_old_texts(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    sha = _removed(repo)
    fake_llm.script(Reply.json(_answer(34, 35)))
    assert cli("review", "--rules-plan", "--commit", sha, repo.root).code == 0
    with SessionStore() as store:
        [finding] = store.findings(store.list_sessions()[0].session_id)
    old = CALC.split("\n")
    said = Finding(title=finding.title, file_path="calc.py", start_line=34, end_line=35)
    assert finding.fingerprint == fingerprint(said, lambda _p, n: old[n - 1])
    assert finding.line_hash == line_hash("calc.py", 34, 35, lambda _p, n: old[n - 1])


def test_records_without_a_side_read_as_the_new_side() -> None:
    old = {"fingerprint": "f1", "title": "t", "file_path": "a.py", "start_line": 2,
           "end_line": 2}
    assert StoredFinding.model_validate_json(json.dumps(old)).side == "new"
