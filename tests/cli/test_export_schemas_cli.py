"""The exports against the formats' published JSON schemas (``tests/data/schemas``): SARIF
2.1.0 (OASIS) and the Reviewdog Diagnostic Format, produced through ``reviewtui export`` from a
real session whose findings have a fix, none, or one kept as text only, with a dismissed
finding, comments on both sides and a verdict. A deliberately broken copy of each document is
rejected, so the validation cannot pass vacuously."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from reviewtui.sessions import SessionStore
from reviewtui.sessions.review_records import ReviewComment, ReviewVerdict
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.schemas import rdjson_errors, sarif_errors

BEFORE = ("def rate():\n    value = 2\n    return value\n\n\n"
          "def name():\n    return 'x'\n")
AFTER = BEFORE.replace("value = 2", "value = 3").replace("'x'", "'é ✓'")


def _finding(title: str, line: int, fix: dict[str, Any] | None) -> dict[str, Any]:
    finding: dict[str, Any] = {"title": title, "body": "why it matters", "severity": "P1",
                               "confidence": 0.8, "file_path": "calc.py",
                               "start_line": line, "end_line": line}
    if fix is not None:
        finding["fix"] = fix
    return finding


@pytest.fixture
def reviewed(repo: GitRepoBuilder, cli: CliRunner,
             fake_llm: ScriptedOpenAIServer) -> GitRepoBuilder:
    """A reviewed change: a finding with a fix, one without, one whose fix is text only (out
    of the file), one dismissed; a comment on each side; a verdict."""
    repo.write("calc.py", BEFORE)
    repo.commit("base")
    repo.write("calc.py", AFTER)
    fake_llm.script(Reply.json({"verdict": "request_changes", "summary": "s", "findings": [
        _finding("Rate changed", 2, {"start_line": 2, "end_line": 3,
                                     "replacement": "    return 2\n"}),
        _finding("Name changed", 7, None),
        _finding("Far away", 2, {"start_line": 40, "end_line": 41, "replacement": "x\n"}),
        _finding("Dismissed one", 2, None)]}))  # a changed line: kept
    assert cli("review", "--rules-plan", repo.root).code == 0
    with SessionStore() as store:
        [session] = store.list_sessions()
        sid = session.session_id
        dismissed = next(f for f in store.findings(sid) if f.title == "Dismissed one")
        store.set_finding_state(sid, dismissed.fingerprint, "dismissed", "on purpose")
        store.save_comment(sid, ReviewComment(file_path="calc.py", start_line=2, end_line=3,
                                              body="A test, please."))
        store.save_comment(sid, ReviewComment(file_path="calc.py", side="old", start_line=7,
                                              end_line=7, body="Why did 'x' go?"))
        store.set_verdict(sid, ReviewVerdict(verdict="request_changes", summary="One blocker."))
    return repo


def test_sarif_export_validates_against_the_oasis_schema(reviewed: GitRepoBuilder,
                                                         cli: CliRunner) -> None:
    for args in (("--all-findings",), ()):
        result = cli("export", "--format", "sarif", *args, reviewed.root)
        assert result.code == 0, result.err
        log = json.loads(result.out)
        assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    with_fixes = [r for r in results if "fixes" in r]
    assert len(results) == 5 and len(with_fixes) == 1  # 3 findings (not the dismissed), 2 notes
    everything = json.loads(cli("export", "--format", "sarif", "--all-findings",
                                reviewed.root).out)
    assert any("suppressions" in r for r in everything["runs"][0]["results"])

    broken_documents = []
    for breaks in (
        lambda log: log.update(version="2.2.0"),
        lambda log: log["runs"][0]["tool"].pop("driver"),
        lambda log: with_fix(log)["fixes"][0]["artifactChanges"][0].pop("artifactLocation"),
        lambda log: with_fix(log)["fixes"][0]["artifactChanges"][0].update(replacements=[]),
        lambda log: with_fix(log)["fixes"][0]["artifactChanges"][0]["replacements"][0][
            "deletedRegion"].update(startLine=0),
        lambda log: with_fix(log).update(level="fatal"),
    ):
        broken = copy.deepcopy(everything)
        breaks(broken)
        broken_documents.append(broken)
    for broken in broken_documents:
        assert sarif_errors(broken), "a broken SARIF log passed the schema"


def with_fix(log: dict[str, Any]) -> dict[str, Any]:
    return next(r for r in log["runs"][0]["results"] if "fixes" in r)


def test_rdjson_export_validates_against_reviewdogs_schema(reviewed: GitRepoBuilder,
                                                           cli: CliRunner) -> None:
    result = cli("export", "--format", "rdjson", reviewed.root)
    assert result.code == 0, result.err
    rdjson = json.loads(result.out)
    assert rdjson_errors(rdjson) == []
    assert rdjson["source"]["name"] == "reviewtui"
    by_message = {d["message"].split("\n")[0]: d for d in rdjson["diagnostics"]}
    assert sorted(by_message) == ["A test, please.", "Far away", "Name changed",
                                  "On removed lines L7 (before the change): Why did 'x' go?",
                                  "Rate changed"]

    rate = by_message["Rate changed"]  # sits on the lines its suggestion replaces
    assert rate["location"] == {"path": "calc.py", "range": {"start": {"line": 2},
                                                             "end": {"line": 3}}}
    assert "(Found at L2; the suggestion replaces L2-3.)" in rate["message"]
    assert rate["suggestions"] == [{"range": {"start": {"line": 2}, "end": {"line": 3}},
                                    "text": "    return 2"}]
    assert rate["severity"] == "ERROR"
    sarif = json.loads(cli("export", "--format", "sarif", reviewed.root).out)
    assert rate["code"]["value"] == with_fix(sarif)["ruleId"]

    far = by_message["Far away"]  # a fix kept as text only is no suggestion
    assert "suggestions" not in far and "Fix as text only (L40-41;" in far["message"]
    assert "suggestions" not in by_message["Name changed"]
    assert by_message["Name changed"]["location"]["range"]["start"] == {"line": 7}
    removed = by_message["On removed lines L7 (before the change): Why did 'x' go?"]
    assert removed["location"] == {"path": "calc.py"} and removed["severity"] == "INFO"
    assert "Dismissed one" not in result.out
    every = json.loads(cli("export", "--format", "rdjson", "--all-findings",
                           reviewed.root).out)
    assert rdjson_errors(every) == []
    assert any(d["message"].startswith("Dismissed one (dismissed: on purpose)")
               for d in every["diagnostics"])

    breakers = (
        lambda doc: doc.update(diagnostics={}),
        lambda doc: doc["diagnostics"][0].update(severity="CRITICAL"),
        lambda doc: doc["diagnostics"][0]["location"]["range"]["start"].update(line="2"),
        lambda doc: doc["diagnostics"][0].update(message=["not", "a", "string"]),
        lambda doc: rate_of(doc)["suggestions"][0].update(text=None),
        lambda doc: doc["source"].update(name=7),
    )
    for breaks in breakers:
        broken = copy.deepcopy(rdjson)
        breaks(broken)
        assert rdjson_errors(broken), "a broken rdjson document passed the schema"


def rate_of(doc: dict[str, Any]) -> dict[str, Any]:
    return next(d for d in doc["diagnostics"] if "suggestions" in d)


URIS = {"sub dir/my file.py": "sub%20dir/my%20file.py",
        "ünï_模块.py": "%C3%BCn%C3%AF_%E6%A8%A1%E5%9D%97.py",
        "notes #1 (100%).py": "notes%20%231%20%28100%25%29.py"}


def test_sarif_uris_are_uri_references_whatever_the_file_name(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """``artifactLocation.uri`` is a URI reference (the schema's ``uri-reference`` format,
    checked): spaces, ``#``, ``%`` and non-ASCII characters percent-encoded (UTF-8), in
    ``review --format sarif``, ``export --format sarif`` and their fixes."""
    repo.write("base.py", "x = 1\n")
    repo.commit("base")
    for path in URIS:
        repo.write(path, "def f(x):\n    return x + 1\n")
    fake_llm.script(Reply.json({"verdict": "comment", "summary": "s", "findings": [
        {**_finding(f"In {path}", 2, {"start_line": 2, "end_line": 2,
                                      "replacement": "    return x + 2\n"}), "file_path": path}
        for path in URIS]}))
    review = cli("review", "--rules-plan", "--format", "sarif", repo.root)
    assert review.code == 0, review.err
    exported = cli("export", "--format", "sarif", repo.root)
    assert exported.code == 0, exported.err
    for log in (json.loads(review.out), json.loads(exported.out)):
        assert sarif_errors(log) == []
        results = log["runs"][0]["results"]
        located = [loc["physicalLocation"]["artifactLocation"]["uri"]
                   for r in results for loc in r["locations"]]
        fixed = [change["artifactLocation"]["uri"]
                 for r in results for fix in r["fixes"] for change in fix["artifactChanges"]]
        assert sorted(located) == sorted(fixed) == sorted(URIS.values())
    # the unencoded name is what the schema rejects: the check is real
    raw = json.loads(exported.out)
    raw["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"][
        "uri"] = "sub dir/my file.py"
    assert any("uri-reference" in error for error in sarif_errors(raw))
