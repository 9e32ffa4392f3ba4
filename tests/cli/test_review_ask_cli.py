"""``reviewtui review``, ``ask`` and ``sessions`` through the real SDK and a scripted server."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from reviewtui.conversation.packing import CUT_OFF_MARKER, FILTERED_MARKER
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.schemas import sarif_errors

SERVICE = "def charge(amount):\n    return amount * 2\n"
VIEWS = "from app.service import charge\n\n\ndef pay():\n    return charge(10)\n"


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", SERVICE)
    repo.write("app/views.py", VIEWS)
    repo.commit("base")
    repo.write("app/service.py", SERVICE.replace("amount * 2", "amount * 3"))
    return repo


def _findings(request: dict[str, Any]) -> Reply:
    # The tool result came back to the model before it answers.
    tool = next(m for m in request["messages"] if m["role"] == "tool")
    assert "return charge(10)" in tool["content"]
    return Reply.text("Here is my review:\n```json\n" + json.dumps({
        "verdict": "request_changes", "summary": "The rate changed without callers knowing.",
        "findings": [
            {"title": "Charge rate tripled", "body": "pay() now charges 30, not 20.",
             "severity": "P1", "confidence": 0.85, "file_path": "app/service.py",
             "start_line": 2, "end_line": 2},
            {"title": "Unrelated", "body": "", "severity": "P3", "confidence": 0.2,
             "file_path": "app/views.py", "start_line": 5, "end_line": 5},
        ]}) + "\n```")


def test_review_runs_tools_and_prints_sarif(repo: GitRepoBuilder, installed: CliRunner,
                                           fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(
        Reply.tool_calls([{"name": "read_file_hunk",
                           "arguments": {"path": "app/views.py", "start": 1, "end": 5}}]),
        _findings)
    result = installed("review", "--rules-plan", "--format", "sarif", "--fail-on", "P1",
                       cwd=repo.root)
    assert result.code == 1, result.err  # a P1 finding: CI fails
    assert "findings at P1 or worse" in result.err
    sarif = json.loads(result.out)
    assert sarif_errors(sarif) == []  # the OASIS SARIF 2.1.0 schema
    results = sarif["runs"][0]["results"]
    assert [r["message"]["text"].splitlines()[0] for r in results] == ["Charge rate tripled"]
    assert results[0]["level"] == "error"
    assert "tool read_file_hunk" in result.err
    first = fake_llm.chat_requests[0].body
    assert {t["function"]["name"] for t in first["tools"]} >= {
        "read_file_hunk", "search_in_project", "list_project_files", "get_dependencies",
        "get_scanner_issues", "get_unit", "get_bundle"}
    assert "## Review index" in first["messages"][1]["content"]
    assert "### Diff" in first["messages"][1]["content"]


def test_review_markdown_and_a_bad_answer_is_repaired(repo: GitRepoBuilder, cli: CliRunner,
                                                      fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.text("Looks mostly fine to me!"),
                    Reply.json({"verdict": "approve", "summary": "Fine.", "findings": []}))
    result = cli("review", "--rules-plan", repo.root)
    assert result.code == 0, result.err
    assert result.out.startswith("# Review: Approve") and "No findings." in result.out
    repair = fake_llm.chat_requests[1].body
    assert "could not be used" in repair["messages"][-1]["content"]


@pytest.mark.parametrize(("said", "shown"), [
    ("REQUEST_CHANGES", "Request changes"), ("changes-requested", "Request changes"),
    ("reject", "Request changes"), ("Approved", "Approve"), ("maybe", "Comment"),
    (None, "Comment")])
def test_the_verdict_is_the_one_the_model_named_and_never_approve_when_not_understood(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
        said: str | None, shown: str) -> None:
    _repo(repo)
    fake_llm.script(Reply.json({"verdict": said, "summary": "This must not be merged.",
                                "findings": []}))
    result = cli("review", "--rules-plan", repo.root)
    assert result.code == 0, result.err
    assert result.out.startswith(f"# Review: {shown}\n"), result.out[:80]


def test_an_approval_whose_findings_were_all_dropped_is_only_a_comment(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.json({"verdict": "approve", "summary": "Fine.", "findings": [
        {"title": None, "severity": "P9", "file_path": "app/service.py", "start_line": "a"}]}))
    result = cli("review", "--rules-plan", repo.root)
    assert result.code == 0, result.err
    assert result.out.startswith("# Review: Comment\n"), result.out[:80]


def test_a_review_answer_stopped_at_the_token_limit_says_so(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.text(json.dumps({"verdict": "comment", "summary": "So far.",
                                           "findings": []}), finish_reason="length"))
    result = cli("review", "--rules-plan", repo.root)
    assert result.code == 0, result.err
    assert ("review: part 1: the answer stopped at the model's output token limit; its "
            "findings may be incomplete") in result.err


def test_review_without_a_model_says_how_to_configure_one(repo: GitRepoBuilder,
                                                          cli: CliRunner) -> None:
    _repo(repo)
    result = cli("review", repo.root)
    assert result.code == 2
    assert "REVIEWTUI_MODEL" in result.err.splitlines()[-1]
    assert "Traceback" not in result.err


@pytest.mark.parametrize("question", ["", "   "])
def test_an_empty_question_is_refused_before_anything_is_sent(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
        question: str) -> None:
    _repo(repo)
    result = cli("ask", "--rules-plan", question, repo.root)
    assert result.code == 2 and fake_llm.chat_requests == []
    assert result.err.splitlines()[-1].startswith("reviewtui: error: ask needs a QUESTION")


@pytest.mark.parametrize("rounds", [0, 1])
def test_ask_keeps_to_max_tool_rounds(repo: GitRepoBuilder, cli: CliRunner,
                                      fake_llm: ScriptedOpenAIServer, rounds: int) -> None:
    _repo(repo)
    search = Reply.tool_calls([{"name": "search_in_project", "arguments": {"query": "pay"}}])
    fake_llm.script(*[search] * rounds, Reply.text("done"))
    result = cli("ask", "--rules-plan", "--max-tool-rounds", str(rounds), "Who pays?",
                 repo.root)
    assert result.code == 0, result.err
    offered = [bool(r.body.get("tools")) for r in fake_llm.chat_requests]
    assert offered == [True] * rounds + [False]  # then it answers with what it has


def test_a_session_of_another_repository_is_refused(
        make_repo: type[GitRepoBuilder], cli: CliRunner,
        fake_llm: ScriptedOpenAIServer) -> None:
    first, other = _repo(make_repo()), _repo(make_repo())
    fake_llm.script(Reply.text("X is the launch code"))
    asked = cli("ask", "--rules-plan", "What is X?", first.root)
    session = asked.err.split("session ", 1)[1].split()[0]
    refused = cli("ask", "--rules-plan", "--session", session, "Who calls charge?", other.root)
    assert refused.code == 2 and len(fake_llm.chat_requests) == 1  # nothing sent
    assert f"session {session} is about another repository" in refused.err.splitlines()[-1]


def test_an_error_event_mid_answer_keeps_the_answer_so_far_to_continue(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
             "choices": [{"index": 0, "delta": {"content": "The first half"},
                          "finish_reason": None}]}
    error = {"error": {"message": "overloaded mid-stream", "type": "server_error"}}
    fake_llm.script(Reply.raw(f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(error)}\n\n"
                              .encode(), content_type="text/event-stream"))
    cut = cli("ask", "--rules-plan", "Explain charge", repo.root)
    assert cut.code == 2 and cut.out.startswith("The first half\n[answer cut off"), cut.out
    fake_llm.script(lambda request: Reply.text(
        "and the rest." if any("The first half" in str(m.get("content"))
                               for m in request["messages"]) else "history lost"))
    rest = cli("ask", "--rules-plan", "--continue", repo.root)
    assert (rest.code, rest.out) == (0, "and the rest.\n"), rest.err


def test_a_server_that_sends_no_usage_gets_its_tokens_counted_here(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    chunks = [{"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
               "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}
              for text, finish in (("The charge tripled.", None), ("", "stop"))]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    fake_llm.script(Reply.raw(body.encode(), content_type="text/event-stream"))
    result = cli("ask", "--rules-plan", "What changed?", repo.root)
    assert result.code == 0, result.err
    [line] = [ln for ln in result.err.splitlines() if ln.startswith("round 1:")]
    prompt = int(line.split()[2])
    assert prompt > 100 and "counted here: the server sent no usage" in line, line


def test_a_failed_question_is_not_called_complete_by_continue(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(*[Reply.error(500, "down")] * 4)
    assert cli("ask", "--rules-plan", "Explain charge", repo.root).code == 2
    again = cli("ask", "--rules-plan", "--continue", repo.root)
    assert again.code == 2
    assert "the last question of session" in again.err and "has no answer" in again.err


def test_an_answer_the_content_filter_stopped_is_marked_incomplete(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(Reply.text("The answer is that", finish_reason="content_filter"))
    result = cli("ask", "--rules-plan", "Explain charge", repo.root)
    assert result.code == 2
    assert result.out == ("The answer is that\n"
                          "[answer stopped by the provider's content filter]\n")
    assert "content filter" in result.err.splitlines()[-1]
    # continued, the model is told the filter ended it, not that the connection dropped
    fake_llm.script(Reply.text("a shorter way."))
    rest = cli("ask", "--rules-plan", "--continue", repo.root)
    assert rest.code == 0, rest.err
    sent = json.dumps(fake_llm.chat_requests[-1].body)
    assert json.dumps(FILTERED_MARKER)[1:-1] in sent
    assert json.dumps(CUT_OFF_MARKER)[1:-1] not in sent


def test_no_secret_is_sent_to_the_model(repo: GitRepoBuilder, cli: CliRunner,
                                        fake_llm: ScriptedOpenAIServer,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # a key the change adds, one pasted in the question, and the configured key itself
    # (short, so no pattern knows it): the model sees [REDACTED] where each stood
    monkeypatch.setenv("OPENAI_API_KEY", "local-key-42x")
    aws = "AKIA" + "ABCDEFGHIJKLMNOP"
    repo.write("app/service.py", SERVICE)
    repo.commit("base")
    repo.write("app/service.py", SERVICE + f"AWS_KEY = '{aws}'\n")
    fake_llm.script(Reply.text("noted"))
    pasted = "sk-" + "proj" + "a1B2c3D4e5F6g7H8i9J0k1L2"
    result = cli("ask", "--rules-plan", f"Is {pasted} or local-key-42x safe here?", repo.root)
    assert result.code == 0, result.err
    sent = json.dumps(fake_llm.chat_requests[0].body)
    assert aws not in sent and pasted not in sent and "local-key-42x" not in sent
    assert sent.count("[REDACTED]") >= 3


def test_surrogate_halves_from_the_model_are_joined_or_replaced(
        repo: GitRepoBuilder, installed: CliRunner, fake_llm: ScriptedOpenAIServer,
        tmp_path: Path) -> None:
    # JSON escapes a rocket as two halves of a UTF-16 pair; a server may cut between them,
    # or send half of one: printing, storing or validating such text failed on it
    _repo(repo)
    fake_llm.script(Reply.text("Rocket \ud83d\ude80 done",
                               chunks=["Rocket ", "\ud83d", "\ude80", " done"]))
    asked = installed("ask", "--rules-plan", "split pair?", cwd=repo.root)
    assert (asked.code, asked.out) == (0, "Rocket \U0001f680 done\n"), asked.err
    fake_llm.script(Reply.json({
        "verdict": "request_changes", "summary": "half \ud83d a pair", "findings": [
            {"title": "Rate \udc00 tripled", "body": "", "severity": "P1", "confidence": 0.9,
             "file_path": "app/service.py", "start_line": 2, "end_line": 2}]}))
    target = tmp_path / "review.json"
    reviewed = installed("review", "--rules-plan", "--format", "json", "-o", str(target),
                         cwd=repo.root)
    assert reviewed.code == 0, reviewed.err
    report = json.loads(target.read_text(encoding="utf-8"))
    assert report["summary"] == "half \ufffd a pair"
    assert [f["title"] for f in report["findings"]] == ["Rate \ufffd tripled"]


def test_ask_streams_continues_the_session_and_lists_it(
        repo: GitRepoBuilder, installed: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    fake_llm.script(
        Reply.tool_calls([{"name": "search_in_project", "arguments": {"query": "charge("}}]),
        Reply.text("pay() in app/views.py:5 calls charge(10), so it now pays 30.",
                   chunks=["pay() in app/views.py:5 ", "calls charge(10), ", "so it now pays 30."]))
    first = installed("ask", "--rules-plan", "Who calls charge?", cwd=repo.root)
    assert first.code == 0, first.err
    assert first.out == "pay() in app/views.py:5 calls charge(10), so it now pays 30.\n"
    assert "tool search_in_project" in first.err and "round 1:" in first.err
    session = first.err.split("session ", 1)[1].split()[0]

    def second_answer(request: dict[str, Any]) -> Reply:
        contents = [str(m.get("content")) for m in request["messages"]]
        assert any("Who calls charge?" in c for c in contents)  # the earlier round is there
        assert any("so it now pays 30" in c for c in contents)
        return Reply.text("The charge change affects app/views.py only.")

    fake_llm.script(second_answer)
    second = installed("ask", "--rules-plan", "Does the charge change break pay?",
                       cwd=repo.root)
    assert second.code == 0, second.err
    assert f"session {session}" in second.err and "round 2:" in second.err
    assert "inherited: app/views.py" in second.err
    listing = installed("sessions", "--json", cwd=repo.root)
    sessions = json.loads(listing.out)
    assert [(s["session_id"], s["rounds"]) for s in sessions] == [(session, 2)]
    fake_llm.script(Reply.text("fresh"))
    third = installed("ask", "--rules-plan", "--new", "hello", cwd=repo.root)
    assert third.code == 0 and f"session {session}" not in third.err
    assert len(json.loads(installed("sessions", "--json", cwd=repo.root).out)) == 2


def test_a_failed_continuation_lets_the_answer_be_continued_again(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """The run that continues a round claims it; when its request fails the claim is given
    back, so the next ``--continue`` goes on with the same round instead of being refused."""
    _repo(repo)
    repo.write(".reviewtui.toml", "[llm]\nmax_retries = 0\n")
    fake_llm.script(Reply.text("It triples the charge, which breaks", finish_reason="length"))
    assert cli("ask", "--rules-plan", "Explain charge", repo.root).code == 3
    fake_llm.script(Reply.error(500, "down"))
    failed = cli("ask", "--rules-plan", "--continue", repo.root)
    assert failed.code == 2 and "continuing round 1" in failed.err
    fake_llm.script(Reply.text(" every caller."))
    again = cli("ask", "--rules-plan", "--continue", repo.root)
    assert (again.code, again.out) == (0, " every caller.\n"), again.err
    assert "continuing round 1" in again.err


@pytest.mark.parametrize("replies", [
    [Reply.text("")],  # the model streamed nothing
    # past --max-tool-rounds it is offered no tools, and asks for one anyway: no text
    [Reply.tool_calls([{"name": "search_in_project", "arguments": {"query": "pay"}}])] * 2,
], ids=["nothing", "tool-calls-after-the-cap"])
def test_an_answer_with_no_text_is_an_error_not_a_silent_success(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
        replies: list[Reply]) -> None:
    """The user saw a blank line and exit status 0, as if the model had answered."""
    _repo(repo)
    fake_llm.script(*replies)
    result = cli("ask", "--rules-plan", "--max-tool-rounds", "1", "Who pays?", repo.root)
    assert result.code == 2, result.err
    session = result.err.split("session ", 1)[1].split()[0]
    last = result.err.splitlines()[-1]
    assert last.startswith("reviewtui: error: the model sent no answer") and session in last
    assert fake_llm.pending == 0


def test_review_keeps_only_findings_on_changed_lines_and_cuts_long_titles(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    repo.write("calc.py", "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(30)))
    repo.commit("base")
    calc = (repo.root / "calc.py").read_text().replace("return x + 20", "return x * 20")
    repo.write("calc.py", calc)  # line 62 changes; the diff shows 59-65 around it
    base = {"body": "b", "severity": "P1", "confidence": 0.9, "file_path": "calc.py"}
    fake_llm.script(Reply.json({"verdict": "comment", "summary": "s", "findings": [
        {**base, "title": "on unchanged line 59", "start_line": 59, "end_line": 59},
        {**base, "title": "T" * 201, "start_line": 62, "end_line": 62}]}))
    result = cli("review", "--rules-plan", "--format", "json", repo.root)
    assert result.code == 0, result.err
    review = result.json()
    assert [(f["title"], f["start_line"]) for f in review["findings"]] == [
        ("T" * 199 + "…", 62)]
    [dropped] = review["dropped"]
    assert "calc.py:59-59 'on unchanged line 59': not on a changed line" in dropped


def test_a_file_edited_between_questions_is_named_to_the_model(
        repo: GitRepoBuilder, installed: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    # The chat about the working tree keeps its session while the person edits: the first
    # round's answer quoted the old line, and the second question went out with nothing to say
    # that it no longer holds.
    _repo(repo)
    fake_llm.script(Reply.text("app/service.py:2 returns amount * 3."))
    first = installed("ask", "--rules-plan", "What does charge return?", cwd=repo.root)
    assert first.code == 0, first.err
    later = time.time() + 5  # past the round's end whatever the clock's grain
    repo.write("app/service.py", SERVICE.replace("amount * 2", "amount * 4"))
    os.utime(repo.root / "app/service.py", (later, later))
    seen: list[str] = []

    def second_answer(request: dict[str, Any]) -> Reply:
        seen.extend(str(m.get("content")) for m in request["messages"])
        return Reply.text("Now it returns amount * 4.")

    fake_llm.script(second_answer)
    second = installed("ask", "--rules-plan", "And now?", cwd=repo.root)
    assert second.code == 0, second.err
    assert any("- app/service.py (edited after round 1)" in c for c in seen)
    assert not any("app/views.py (edited" in c for c in seen)  # not edited since
