"""Findings and comments follow their lines' text when other lines move in the working tree:
``reviewtui findings``, ``findings apply``, ``export`` (Markdown suggestions, rdjson suggestions,
SARIF fixes) and the session all use the lines where the text is now; a finding whose text is
gone is "fixed?" and no export offers its fix -- through the real command line, a real
repository and session store, and the scripted model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewtui.git.contents import SideLines
from reviewtui.sessions import SessionStore
from reviewtui.sessions.review_records import ReviewComment
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.schemas import rdjson_errors, sarif_errors

CALC = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(30))
CHANGED = CALC.replace("return x + 20", "return x * 20  # changed")  # line 62
HEADER = "# header 1\n# header 2\n# header 3\n"  # moves line 62 to 65


def _answer(fix: dict[str, Any] | None = None) -> dict[str, Any]:
    fix = fix or {"start_line": 62, "end_line": 62, "replacement": "    return x + 20"}
    return {"verdict": "request_changes", "summary": "s", "findings": [
        {"title": "multiplies instead of adding", "body": "x*20", "severity": "P1",
         "confidence": 0.9, "file_path": "calc.py", "start_line": 62, "end_line": 62,
         "category": "bug", "fix": fix}]}


def _reviewed(repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
              answer: dict[str, Any] | None = None) -> None:
    repo.write("calc.py", CALC)
    repo.commit("base")
    repo.write("calc.py", CHANGED)
    fake_llm.script(Reply.json(answer or _answer()))
    assert cli("review", "--rules-plan", repo.root).code == 0


def _comment(repo: GitRepoBuilder, line: int, body: str) -> None:
    """A comment of the person's, kept as the workbench keeps it (with its lines' text)."""
    from reviewtui.agent.follow import anchored
    from reviewtui.git import ChangeSelector, SelectorMode
    from reviewtui.pipeline import load_change

    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    lines = SideLines(loaded.change_set, loaded.reader)
    with SessionStore() as store:
        [session] = store.list_sessions()
        store.save_comment(session.session_id, anchored(ReviewComment(
            file_path="calc.py", start_line=line, end_line=line, body=body), lines.line))


def _listed(cli: CliRunner, root: Path) -> dict[str, Any]:
    [finding] = cli("findings", "--json", root).json()["findings"]
    return dict(finding)


def test_findings_comments_and_fixes_follow_lines_inserted_above(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _reviewed(repo, cli, fake_llm)
    _comment(repo, 62, "Why times?")
    repo.write("calc.py", HEADER + CHANGED)  # an unrelated edit above

    table = cli("findings", repo.root)
    assert "open      P1  calc.py:L65  fix: fix" in table.out, table.out
    finding = _listed(cli, repo.root)
    assert (finding["start_line"], finding["fix"]["start_line"]) == (65, 65)
    assert finding["state"] == "open" and finding["fix"]["applicable"]

    markdown = cli("export", repo.root).out
    assert "1 comments · 1 findings" in markdown
    assert "**L65** — Why times?" in markdown
    assert "(L65, open)" in markdown and "   65 |     return x * 20  # changed" in markdown
    assert "Suggested fix (L65):\n\n  ```suggestion\n      return x + 20\n  ```" in markdown

    rdjson = json.loads(cli("export", "--format", "rdjson", repo.root).out)
    assert rdjson_errors(rdjson) == []
    diagnostic = next(d for d in rdjson["diagnostics"] if "suggestions" in d)
    assert diagnostic["location"]["range"] == {"start": {"line": 65}, "end": {"line": 65}}
    assert diagnostic["suggestions"][0]["range"]["start"] == {"line": 65}

    sarif = json.loads(cli("export", "--format", "sarif", repo.root).out)
    assert sarif_errors(sarif) == []
    result = next(r for r in sarif["runs"][0]["results"] if "fixes" in r)
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 65
    [change] = result["fixes"][0]["artifactChanges"]
    assert change["replacements"][0]["deletedRegion"]["startLine"] == 65

    # applying writes where the reviewed line is now, never over line 62
    applied = cli("findings", "apply", finding["id"], repo.root)
    assert applied.code == 0, applied.err
    assert (repo.root / "calc.py").read_text() == HEADER + CALC
    assert "now fixed" in applied.err


def test_a_finding_whose_text_is_gone_is_fixed_and_offers_no_fix(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _reviewed(repo, cli, fake_llm)
    repo.write("calc.py", HEADER + CHANGED.replace("x * 20  # changed", "x * 20  # on purpose"))

    finding = _listed(cli, repo.root)
    assert finding["state"] == "fixed" and finding["start_line"] == 62
    assert "0 findings" in cli("export", repo.root).out  # fixed: only with --all-findings
    every = cli("export", "--all-findings", repo.root).out
    assert "(L62, fixed?)" in every and "```suggestion" not in every
    assert "Fix as text only (L62; the file moved on: calc.py L62 are no longer the reviewed " \
           "lines)" in every
    rdjson = json.loads(cli("export", "--all-findings", "--format", "rdjson", repo.root).out)
    assert all("suggestions" not in d for d in rdjson["diagnostics"])
    sarif = json.loads(cli("export", "--all-findings", "--format", "sarif", repo.root).out)
    assert all("fixes" not in r for r in sarif["runs"][0]["results"])
    data = json.loads(cli("export", "--all-findings", "--format", "json", repo.root).out)
    assert data["findings"][0]["fix"]["applicable"] is False
    before = (repo.root / "calc.py").read_bytes()
    refused = cli("findings", "apply", finding["id"], repo.root)
    assert refused.code == 2 and "the working tree moved on" in refused.err
    assert (repo.root / "calc.py").read_bytes() == before


def test_a_fix_whose_own_lines_changed_is_not_offered(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # the finding is on line 62, its fix replaces lines 61-62: line 61 is edited since
    _reviewed(repo, cli, fake_llm, _answer({"start_line": 61, "end_line": 62,
                                            "replacement": "def f20(x):\n    return x + 20"}))
    repo.write("calc.py", CHANGED.replace("def f20(x):", "def f20(x):  # edited"))
    finding = _listed(cli, repo.root)
    assert finding["state"] == "open" and finding["start_line"] == 62  # its own line is there
    markdown = cli("export", repo.root).out
    assert "```suggestion" not in markdown and "the file moved on: calc.py L61-62" in markdown
