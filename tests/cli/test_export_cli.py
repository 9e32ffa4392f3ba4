"""``reviewtui review`` keeps its findings in the change's session; ``reviewtui export`` hands
over the person's review: Markdown to paste, JSON by schema, SARIF with the same fingerprints."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reviewtui.sessions import SessionStore
from reviewtui.sessions.export import ExportedReview
from reviewtui.sessions.review_records import ReviewComment, ReviewVerdict
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

SERVICE = ("def charge(amount):\n    total = amount * 3\n    return total\n\n\n"
           "def refund(amount):\n    return -amount\n")
FINDINGS = {"verdict": "request_changes", "summary": "The rate changed.", "findings": [
    {"title": "Charge rate tripled", "body": "pay() now charges 30, not 20.", "severity": "P1",
     "confidence": 0.9, "file_path": "app/service.py", "start_line": 2, "end_line": 2},
    {"title": "Refund sign", "body": "Refunds are negative now.", "severity": "P3",
     "confidence": 0.4, "file_path": "app/service.py", "start_line": 7, "end_line": 7},
]}


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", SERVICE.replace("amount * 3", "amount * 2").replace(
        "-amount", "amount"))
    repo.commit("base")
    repo.write("app/service.py", SERVICE)
    return repo


def _session(store: SessionStore) -> str:
    [session] = store.list_sessions()
    return session.session_id


def test_review_findings_are_kept_and_exported(repo: GitRepoBuilder, cli: CliRunner,
                                               fake_llm: ScriptedOpenAIServer,
                                               tmp_path: Path) -> None:
    _repo(repo)
    fake_llm.script(Reply.json(FINDINGS))
    review = cli("review", "--rules-plan", "--format", "sarif", repo.root)
    assert review.code == 0, review.err
    assert "findings kept in session s_" in review.err and "2 new" in review.err
    sarif_prints = [r["partialFingerprints"]["reviewtuiFinding/v1"]
                    for r in json.loads(review.out)["runs"][0]["results"]]

    with SessionStore() as store:
        sid = _session(store)
        charge, refund = store.findings(sid)
        assert (charge.title, charge.state, charge.unit_key) == (
            "Charge rate tripled", "open", "app/service.py::charge")
        store.set_finding_state(sid, charge.fingerprint, "accepted")
        store.set_finding_state(sid, refund.fingerprint, "dismissed", "intended: a refund")
        store.save_comment(sid, ReviewComment(file_path="app/service.py", start_line=2,
                                              end_line=3, body="Please add a test for 30."))
        store.set_verdict(sid, ReviewVerdict(verdict="request_changes",
                                             summary="One blocker."))

    markdown = cli("export", repo.root)
    assert markdown.code == 0, markdown.err
    text = markdown.out
    # the stated purpose first (a working-tree change: the branch alone), then the verdict
    assert text.startswith("## Review: Request changes\n\n**Stated purpose:** branch main\n\n"
                           "One blocker.")
    assert "### `app/service.py`" in text
    assert "**L2-3** — Please add a test for 30." in text
    assert "    2 |     total = amount * 3" in text  # the lines are quoted
    assert "**P1 · Charge rate tripled** (L2)" in text
    assert "Refund sign" not in text  # dismissed: only with --all-findings
    assert "units reviewed** · 0 skipped" in text

    every = cli("export", "--all-findings", "--format", "json", repo.root)
    review_json = ExportedReview.model_validate_json(every.out)
    states = {f.title: (f.state, f.reason) for f in review_json.findings}
    assert states == {"Charge rate tripled": ("accepted", None),
                      "Refund sign": ("dismissed", "intended: a refund")}
    assert review_json.verdict == "request_changes" and review_json.comments[0].quote

    target = tmp_path / "out" / "review.sarif"
    sarif = cli("export", "--all-findings", "--format", "sarif", "-o", target, repo.root)
    assert sarif.code == 0 and f"written to {target}" in sarif.err
    results = json.loads(target.read_text())["runs"][0]["results"]
    exported = [r["partialFingerprints"]["reviewtuiFinding/v1"] for r in results
                if r["ruleId"] != "reviewtui/comment"]
    assert sorted(exported) == sorted(sarif_prints)  # the same fingerprints as `review`
    suppressed = [r for r in results if r.get("suppressions")]
    assert suppressed[0]["suppressions"][0]["justification"] == "intended: a refund"
    assert any(r["ruleId"] == "reviewtui/comment" for r in results)


def test_a_second_review_merges_by_fingerprint(repo: GitRepoBuilder, cli: CliRunner,
                                               fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.json(FINDINGS))
    assert cli("review", "--rules-plan", repo.root).code == 0
    with SessionStore() as store:
        sid = _session(store)
        _, refund = store.findings(sid)
        store.set_finding_state(sid, refund.fingerprint, "dismissed", "intended")
    only_charge = {**FINDINGS, "findings": []}
    fake_llm.script(Reply.json(only_charge))
    second = cli("review", "--rules-plan", repo.root)
    assert "0 new, 0 seen before, 0 back, 1 gone" in second.err
    with SessionStore() as store:
        states = {f.title: f.state for f in store.findings(sid)}
    assert states == {"Charge rate tripled": "gone", "Refund sign": "dismissed"}
    fake_llm.script(Reply.json(FINDINGS))
    third = cli("review", "--rules-plan", repo.root)
    assert "0 new, 1 seen before, 1 back, 0 gone" in third.err
    with SessionStore() as store:
        states = {f.title: f.state for f in store.findings(sid)}
    assert states == {"Charge rate tripled": "open", "Refund sign": "dismissed"}


def test_export_without_a_review_says_so(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _repo(repo)
    result = cli("export", repo.root)
    assert result.code == 0
    assert "no review kept for this change yet" in result.err
    assert result.out.startswith("## Review: No verdict yet")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="needs POSIX permissions and a non-root user")
def test_export_to_an_unwritable_folder_is_one_line(repo: GitRepoBuilder, cli: CliRunner,
                                                    tmp_path: Path) -> None:
    _repo(repo)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    result = cli("export", "-o", locked / "review.md", repo.root)
    assert result.code == 2
    assert result.err.splitlines()[-1].startswith("reviewtui: error: cannot write")


def test_export_to_a_path_that_is_a_folder_is_one_line(repo: GitRepoBuilder, cli: CliRunner,
                                                       tmp_path: Path) -> None:
    _repo(repo)
    result = cli("export", "-o", tmp_path, repo.root)
    assert result.code == 2
    assert result.err.splitlines()[-1].startswith(f"reviewtui: error: cannot write {tmp_path}")
    assert "Traceback" not in result.err


def test_dash_is_stdout_and_an_empty_path_is_refused(repo: GitRepoBuilder,
                                                     installed: CliRunner) -> None:
    _repo(repo)
    to_stdout = installed("export", "-o", "-", cwd=repo.root)
    assert to_stdout.code == 0 and to_stdout.out.startswith("## Review: No verdict yet")
    assert not (repo.root / "-").exists()
    empty = installed("export", "-o", "", repo.root)
    assert empty.code == 2 and empty.out == ""
    assert "an empty path (- is stdout)" in empty.err.splitlines()[-1]


def test_an_unknown_export_format_is_refused(repo: GitRepoBuilder, installed: CliRunner) -> None:
    _repo(repo)
    result = installed("export", "--format", "pdf", repo.root)
    assert result.code == 2
    assert "invalid choice: 'pdf'" in result.err.splitlines()[-1]


SECRET = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"
LOCAL_KEY = "zq-local-KEY-998877"  # the configured key: no known shape


def test_no_secret_and_not_the_configured_key_is_written_in_an_export(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The quoted lines are read from the files at export time: they are redacted like every
    other field, in every format."""
    monkeypatch.setenv("OPENAI_API_KEY", LOCAL_KEY)
    repo.write("app.py", "def connect():\n    return 1\n")
    repo.commit("base")
    repo.write("app.py", f'def connect():\n    key = "{SECRET}"\n    token = "{LOCAL_KEY}"\n'
                         "    return 1\n")
    fake_llm.script(Reply.json({"verdict": "request_changes", "summary": "s", "findings": [
        {"title": "Hardcoded key", "body": f"{LOCAL_KEY} is committed", "severity": "P0",
         "confidence": 0.9, "file_path": "app.py", "start_line": 2, "end_line": 3,
         "category": "security",
         "fix": {"start_line": 3, "end_line": 3, "replacement": f'    token = "{LOCAL_KEY}"\n'}}]}))
    assert cli("review", "--rules-plan", "--format", "json", repo.root).code == 0
    for fmt in ("markdown", "json", "sarif", "rdjson"):
        result = cli("export", "--format", fmt, repo.root)
        assert result.code == 0, result.err
        assert SECRET not in result.out and LOCAL_KEY not in result.out, fmt
        assert "[REDACTED]" in result.out, fmt
    [finding] = cli("export", "--format", "json", repo.root).json()["findings"]
    assert finding["quote"] == ['    2 |     key = "[REDACTED]"',
                                '    3 |     token = "[REDACTED]"']


def test_export_under_a_file_says_it_is_a_file(repo: GitRepoBuilder, cli: CliRunner,
                                               tmp_path: Path) -> None:
    # The OS's "File exists" left the person to guess which part of the path was wrong.
    _repo(repo)
    (tmp_path / "notes").write_text("mine\n")
    for target in (tmp_path / "notes" / "review.md", tmp_path / "notes" / "sub" / "review.md"):
        result = cli("export", "-o", target, repo.root)
        assert result.code == 2
        assert result.err.splitlines()[-1] == (
            f"reviewtui: error: cannot write {target}: {tmp_path / 'notes'} is a file, "
            "not a folder")
    assert (tmp_path / "notes").read_text() == "mine\n"
