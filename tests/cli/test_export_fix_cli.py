"""A finding's fix in the exported review: a GitHub suggestion block holding exactly the
replacement lines (Markdown), SARIF 2.1.0 ``fixes`` that rebuild the fixed file, the field in
JSON; a fix kept as text only is never offered as a suggestion or a SARIF fix."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reviewtui.agent.fixes import patched
from reviewtui.sessions.export import ExportedReview
from reviewtui.sessions.review_records import StoredFix
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.schemas import rdjson_errors, sarif_errors

BEFORE = "def rate():\n    value = 2\n    return value\n\n\ndef name():\n    return 'x'\n"
AFTER = BEFORE.replace("value = 2", "value = 3").replace("'x'", "'y'")

def _apply_sarif(text: str, replacement: dict[str, Any]) -> str:
    """Apply one SARIF replacement (line/column, ASCII text) to ``text``."""
    lines = text.split("\n")
    region = replacement["deletedRegion"]

    def offset(line: int, column: int) -> int:
        return sum(len(x) + 1 for x in lines[:line - 1]) + column - 1

    start = offset(region["startLine"], region.get("startColumn", 1))
    end_line = region.get("endLine", region["startLine"])
    end = offset(end_line, region.get("endColumn", len(lines[end_line - 1]) + 1))
    return text[:start] + replacement.get("insertedContent", {}).get("text", "") + text[end:]


def _apply_rdjson(text: str, suggestion: dict[str, Any]) -> str:
    """Apply one rdjson suggestion as reviewdog's format defines its range: line-wise (whole
    lines, the end line included) without columns, else from start to the exclusive end,
    columns counting UTF-8 bytes."""
    start, end = suggestion["range"]["start"], suggestion["range"]["end"]
    lines = text.split("\n")
    if "column" not in start and "column" not in end:
        new = suggestion["text"].split("\n") if suggestion["text"] else []
        lines[start["line"] - 1:end["line"]] = new
        return "\n".join(lines)
    data = text.encode()

    def offset(position: dict[str, int]) -> int:
        before = lines[:position["line"] - 1]
        return sum(len(x.encode()) + 1 for x in before) + position["column"] - 1

    return (data[:offset(start)] + suggestion["text"].encode() + data[offset(end):]).decode()


def _review(repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
            fixes: list[dict[str, Any]]) -> None:
    repo.write("calc.py", BEFORE)
    repo.commit("base")
    repo.write("calc.py", AFTER)
    findings = []
    for fix in fixes:
        line = 7 if fix["start_line"] == 7 else 2  # a changed line: the rate, or the name
        findings.append({"title": f"Changed line {line}", "body": "b", "severity": "P2",
                         "confidence": 0.8, "file_path": "calc.py", "start_line": line,
                         "end_line": line, "fix": fix})
    fake_llm.script(Reply.json({"verdict": "comment", "summary": "s", "findings": findings}))
    assert cli("review", "--rules-plan", repo.root).code == 0


def _suggestion(markdown: str) -> list[list[str]]:
    """Every suggestion block's lines, the fence's own indent (a list item's) removed."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    fence, indent = "", ""
    for line in markdown.split("\n"):
        if current is None and line.strip().endswith("suggestion") and line.strip(
                ).startswith("```"):
            fence, current = line.strip()[:-len("suggestion")], []
            indent = line[:len(line) - len(line.lstrip())]
        elif current is not None and line.strip() == fence:
            blocks.append(current)
            current = None
        elif current is not None:
            current.append(line[len(indent):] if line.startswith(indent) else line)
    return blocks


@pytest.mark.parametrize("fix", [
    {"start_line": 2, "end_line": 2, "replacement": "    value = 2  # the contract's rate\n"},
    {"start_line": 2, "end_line": 3, "replacement": "    return 2\n"},
    {"start_line": 7, "end_line": 7, "replacement": "    return 'x'"},  # the file's last line
    {"start_line": 6, "end_line": 7, "replacement": ""},  # deleting the end of the file
    {"start_line": 2, "end_line": 2, "replacement": ""},  # a deletion
    {"start_line": 4, "end_line": 5, "replacement": "\n"},  # one empty line for two
    {"start_line": 2, "end_line": 2,
     "replacement": "    value = 2\n    # ```not a fence```\n\n    value += 0\n"},
])
def test_fixes_export_as_suggestions_and_sarif_fixes(repo: GitRepoBuilder, cli: CliRunner,
                                                     fake_llm: ScriptedOpenAIServer,
                                                     fix: dict[str, Any]) -> None:
    _review(repo, cli, fake_llm, [fix])
    stored = StoredFix.model_validate(fix)
    markdown = cli("export", repo.root)
    assert markdown.code == 0, markdown.err
    assert f"Suggested fix ({stored.lines}):" in markdown.out
    assert _suggestion(markdown.out) == [stored.replacement_lines]

    sarif = json.loads(cli("export", "--format", "sarif", repo.root).out)
    assert sarif["version"] == "2.1.0"
    [result] = sarif["runs"][0]["results"]
    [sarif_fix] = result["fixes"]
    assert sarif_errors(sarif) == []  # the OASIS SARIF 2.1.0 schema
    [change] = sarif_fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "calc.py"
    [replacement] = change["replacements"]
    # applied as a SARIF consumer would, the fix gives the very bytes 'findings apply' writes
    exported = ExportedReview.model_validate_json(cli("export", "--format", "json",
                                                      repo.root).out)
    [finding] = exported.findings
    assert finding.fix is not None and finding.fix.applicable
    assert finding.fix.replacement == fix["replacement"]
    assert _apply_sarif(AFTER, replacement) == patched(AFTER.encode(), finding.fix).decode()

    # rdjson: reviewdog applies the suggestion to the same bytes, on the lines it replaces
    rdjson = json.loads(cli("export", "--format", "rdjson", repo.root).out)
    assert rdjson_errors(rdjson) == []
    [diagnostic] = rdjson["diagnostics"]
    [suggestion] = diagnostic["suggestions"]
    assert diagnostic["location"]["range"]["start"]["line"] == fix["start_line"]
    assert diagnostic["location"]["range"]["end"]["line"] == fix["end_line"]
    assert _apply_rdjson(AFTER, suggestion) == patched(AFTER.encode(), finding.fix).decode()


def test_a_text_only_fix_is_no_suggestion(repo: GitRepoBuilder, cli: CliRunner,
                                          fake_llm: ScriptedOpenAIServer) -> None:
    _review(repo, cli, fake_llm, [{"start_line": 50, "end_line": 52,
                                   "replacement": "    return 1\n"}])
    markdown = cli("export", repo.root).out
    assert "suggestion" not in markdown
    assert "Fix as text only (L50-52; lines 50-52 are outside calc.py (7 lines)):" in markdown
    sarif = json.loads(cli("export", "--format", "sarif", repo.root).out)
    assert "fixes" not in sarif["runs"][0]["results"][0]
    assert sarif_errors(sarif) == []
    data = json.loads(cli("export", "--format", "json", repo.root).out)
    assert data["findings"][0]["fix"]["applicable"] is False


def test_review_prints_fixes_as_export_does(repo: GitRepoBuilder, cli: CliRunner,
                                            fake_llm: ScriptedOpenAIServer) -> None:
    fix = {"start_line": 2, "end_line": 2, "replacement": "    value = 2\n"}
    _review(repo, cli, fake_llm, [fix])
    answer = {"verdict": "comment", "summary": "s", "findings": [
        {"title": "Changed line 2", "body": "b", "severity": "P2", "confidence": 0.8,
         "file_path": "calc.py", "start_line": 2, "end_line": 2, "fix": fix}]}
    fake_llm.script(Reply.json(answer), Reply.json(answer))
    sarif = json.loads(cli("review", "--rules-plan", "--format", "sarif", repo.root).out)
    exported = json.loads(cli("export", "--format", "sarif", repo.root).out)
    [reviewed] = sarif["runs"][0]["results"]
    assert sarif_errors(sarif) == [] and reviewed["fixes"]
    assert reviewed["fixes"] == exported["runs"][0]["results"][0]["fixes"]
    markdown = cli("review", "--rules-plan", repo.root).out
    assert _suggestion(markdown) == [["    value = 2"]]


@pytest.mark.parametrize(("line", "final_newline", "replacement"), [
    (2, True, "    pass  # fixed\n"), (7, True, "    pass  # fixed\n"),
    (7, False, "    pass  # fixed"), (6, False, ""), (6, True, "")])
def test_sarif_fixes_keep_crlf_line_endings(repo: GitRepoBuilder, cli: CliRunner,
                                            fake_llm: ScriptedOpenAIServer, line: int,
                                            final_newline: bool, replacement: str) -> None:
    before, after = BEFORE.replace("\n", "\r\n"), AFTER.replace("\n", "\r\n")
    if not final_newline:
        before, after = before.removesuffix("\r\n"), after.removesuffix("\r\n")
    repo.write("calc.py", before)
    repo.commit("base")
    repo.write("calc.py", after)
    fix = {"start_line": line, "end_line": 7, "replacement": replacement}
    fake_llm.script(Reply.json({"verdict": "comment", "summary": "s", "findings": [
        {"title": "t", "body": "b", "severity": "P2", "confidence": 0.8, "file_path": "calc.py",
         "start_line": 7, "end_line": 7, "fix": fix}]}))
    assert cli("review", "--rules-plan", repo.root).code == 0
    sarif = json.loads(cli("export", "--format", "sarif", repo.root).out)
    assert sarif_errors(sarif) == []
    [replacement] = sarif["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0][
        "replacements"]
    [finding] = ExportedReview.model_validate_json(
        cli("export", "--format", "json", repo.root).out).findings
    assert finding.fix is not None and finding.fix.line_ending == "\r\n"
    assert _apply_sarif(after, replacement) == patched(after.encode(), finding.fix).decode()
