"""``reviewtui eval --review``: the review agent on each case, through the real SDK and the
scripted server, on a generated history with a planted bug."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from typing import Any

import pytest

from reviewtui.app.eval_review import ReviewEstimate
from reviewtui.cli.eval_review import confirm_estimate
from reviewtui.cli.evaluate import run_eval_command
from reviewtui.cli.parser import parse
from reviewtui.config import Settings
from reviewtui.errors import EvalError, UsageError
from reviewtui.eval.review import near_target
from reviewtui.llm import resolve_llm, token_counter
from reviewtui.llm.metered import Account, MeteredClient
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.histories import PlantedBug, planted_bug
from tests.support.openai_server import Reply, ScriptedOpenAIServer

PRICING = "shop/pricing.py"
CONTEXT_SECTIONS = ("### Function context", "### File context", "### Full file",
                    "### Previous version", "### Callers", "### Search results")
USAGE = {"prompt_tokens": 1200, "completion_tokens": 80}


def _finding(path: str, line: int, title: str = "Discount subtracts the percentage") -> dict[
        str, Any]:
    return {"title": title, "body": "a percentage is not an amount", "severity": "P1",
            "confidence": 0.9, "file_path": path, "start_line": line, "end_line": line}


def _answer(*findings: dict[str, Any]) -> Reply:
    return Reply.json({"verdict": "request_changes", "summary": "The discount is wrong.",
                       "findings": list(findings)}, usage=USAGE)


def _user_text(body: dict[str, Any]) -> str:
    return str(next(m["content"] for m in body["messages"] if m["role"] == "user"))


def _review(report: dict[str, Any]) -> dict[str, Any]:
    review = report["review"]
    assert isinstance(review, dict)
    return review


def test_a_finding_on_the_bug_line_is_detected_in_both_context_modes(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    planted = planted_bug(repo)
    fake_llm.script(*[_answer(_finding(PRICING, planted.bug_line),
                              _finding("shop/scale5.py", 4, "Magic numbers"))] * 2)
    result = cli("eval", "--review", "--json", "--jobs", "1", repo.root)
    assert result.code == 0, result.err
    assert "eval: review estimate for test-model: 2 reviews of 1 cases" in result.err
    review = _review(result.json())
    [case] = review["cases"]
    assert case["bug"] == planted.bug
    for mode in ("planned", "diff_only"):
        outcome = case[mode]
        assert outcome["status"] == "ok" and outcome["detected"] is True, outcome
        assert outcome["holder_reviewed"] is True
        assert [f["near_target"] for f in outcome["findings"]] == [True, False]
        assert outcome["other_findings"] == 1
        assert outcome["requests"] == 1
        assert (outcome["prompt_tokens"], outcome["completion_tokens"]) == (1200, 80)
        assert outcome["tokens_estimated"] is False
        summary = review["summaries"][mode]
        assert summary["detected"] == 1.0 and summary["findings_per_case"] == 2.0
    estimate = review["estimate"]
    assert estimate["requests"] == 2 and estimate["prompt_tokens"] > 0
    assert estimate["output_tokens"] == 2 * 4096
    assert len(fake_llm.chat_requests) == 2
    # Nothing of the evaluation reaches the person's sessions.
    assert cli("sessions", "--json", repo.root).json() == []


def test_a_failed_review_still_counts_what_its_requests_cost(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    planted_bug(repo)
    nothing = Reply.text("I cannot say.", usage=USAGE)  # no JSON: asked again, then given up
    fake_llm.script(nothing, nothing)
    result = cli("eval", "--review", "--context", "planned", "--json", "--jobs", "1",
                 repo.root)
    assert result.code == 0, result.err
    review = _review(result.json())
    outcome = review["cases"][0]["planned"]
    assert outcome["status"] == "failed"
    assert (outcome["requests"], outcome["prompt_tokens"]) == (2, 2400)
    assert review["summaries"]["planned"]["prompt_tokens"] == 2400
    assert len(fake_llm.chat_requests) == 2


def test_a_finding_ten_lines_away_is_not_a_detection(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    planted = planted_bug(repo)
    # Line bug-10 is unchanged code (dropped: not on the change), bug-4 a changed line of the
    # same function: neither is within 3 lines.
    fake_llm.script(_answer(_finding(PRICING, planted.bug_line - 10),
                            _finding(PRICING, planted.bug_line - 4, "Docstring is vague")))
    result = cli("eval", "--review", "--context", "planned", "--max-tool-rounds", "0",
                 "--json", "--jobs", "1", repo.root)
    assert result.code == 0, result.err
    assert "tools" not in fake_llm.chat_requests[0].body
    review = _review(result.json())
    outcome = review["cases"][0]["planned"]
    assert outcome["detected"] is False and outcome["holder_reviewed"] is True
    assert outcome["dropped"] == 1 and outcome["other_findings"] == 1
    assert [f["start_line"] for f in outcome["findings"]] == [planted.bug_line - 4]
    assert "diff_only" not in review["cases"][0] and review["modes"] == ["planned"]
    assert review["summaries"]["planned"]["detected"] == 0.0
    assert len(fake_llm.chat_requests) == 1


def test_near_means_within_three_lines_of_a_target_in_the_same_file() -> None:
    targets = [("a.py", 20)]
    assert near_target("a.py", 17, 17, targets) and near_target("a.py", 23, 25, targets)
    assert near_target("a.py", 5, 30, targets)  # a range around the target
    assert not near_target("a.py", 16, 16, targets) and not near_target("a.py", 24, 30, targets)
    assert not near_target("b.py", 20, 20, targets)


def test_diff_only_requests_carry_the_diff_and_no_other_context(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    planted = planted_bug(repo)
    fake_llm.script(*[_answer(_finding(PRICING, planted.bug_line))] * 2)
    result = cli("eval", "--review", "--json", "--jobs", "1", repo.root)
    assert result.code == 0, result.err
    planned, diff_only = (_user_text(r.body) for r in fake_llm.chat_requests)
    # The planned levels add context to some unit; the diff-only run adds none to any.
    assert any(section in planned for section in CONTEXT_SECTIONS)
    assert not any(section in diff_only for section in CONTEXT_SECTIONS), diff_only
    assert '"final_context_level": "function"' in planned or (
        '"final_context_level": "file_context"' in planned)
    assert diff_only.count("### Diff") == planned.count("### Diff") >= 10
    assert '"final_context_level": "diff_only"' in diff_only
    assert "return price - percent" in diff_only


def _low_threshold(repo: GitRepoBuilder) -> PlantedBug:
    planted = planted_bug(repo)
    (repo.root / ".reviewtui.toml").write_text(
        "[eval]\nreview_confirm_tokens = 100\nprice_input_per_million = 2.0\n"
        "price_output_per_million = 8.0\n")
    return planted


def test_over_the_threshold_a_pipe_is_refused_and_yes_sends(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    planted = _low_threshold(repo)
    refused = cli("eval", "--review", "--jobs", "1", repo.root)
    assert refused.code == 2
    last = refused.err.strip().splitlines()[-1]
    assert last.startswith("reviewtui: error: eval --review would send about ")
    assert "review_confirm_tokens (100)" in last and "--yes" in last
    assert "eval: review estimate for test-model" in refused.err and "at [eval] prices" in (
        refused.err)
    assert refused.out == "" and fake_llm.chat_requests == []
    fake_llm.script(*[_answer(_finding(PRICING, planted.bug_line))] * 2)
    sent = cli("eval", "--review", "--yes", "--jobs", "1", repo.root)
    assert sent.code == 0, sent.err
    assert len(fake_llm.chat_requests) == 2
    assert "review by test-model (1 cases)" in sent.out
    assert "detected, 1 finding" in sent.out
    # 2 x (1200 x 2 + 80 x 8) / 1e6
    assert "cost ~0.01 at [eval] prices" in sent.out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_person_is_asked(repo: GitRepoBuilder,
                                           fake_llm: ScriptedOpenAIServer) -> None:
    planted = _low_threshold(repo)
    err = io.StringIO()
    args = parse("eval", ["--review", "--jobs", "1", str(repo.root)])
    with pytest.raises(EvalError, match="the review was not run"):
        run_eval_command(args, io.StringIO(), err, stdin=_Terminal("n\n"))
    assert "? [y/N] " in err.getvalue() and fake_llm.chat_requests == []
    fake_llm.script(*[_answer(_finding(PRICING, planted.bug_line))] * 2)
    out = io.StringIO()
    assert run_eval_command(args, out, io.StringIO(), stdin=_Terminal("y\n")) == 0
    assert len(fake_llm.chat_requests) == 2 and "review by test-model" in out.getvalue()


def test_the_estimate_alone_asks_nothing_below_the_threshold() -> None:
    estimate = ReviewEstimate(model="m", cases=1, runs=2, reused=0, requests=2,
                              prompt_tokens=500, output_tokens=1000, cost=None, threshold=2000)
    err = io.StringIO()
    assert confirm_estimate(estimate, yes=False, stdin=io.StringIO(), err=err)
    assert err.getvalue().count("\n") == 1
    over = replace(estimate, threshold=1000)
    with pytest.raises(UsageError, match="no terminal"):
        confirm_estimate(over, yes=False, stdin=io.StringIO(), err=io.StringIO())
    assert confirm_estimate(over, yes=True, stdin=io.StringIO(), err=io.StringIO())
    always = replace(estimate, threshold=0)
    assert always.needs_confirmation and not replace(always, runs=0).needs_confirmation


def test_without_a_model_review_says_how_to_configure_one_before_mining(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    planted_bug(repo)
    result = cli("eval", "--review", repo.root)
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1
    assert "no LLM model is configured" in result.err and "REVIEWTUI_MODEL" in result.err
    assert not (repo.root / ".git" / "reviewtui" / "eval").exists()
    assert result.out == ""


def test_review_options_need_review(repo: GitRepoBuilder, cli: CliRunner) -> None:
    planted_bug(repo)
    result = cli("eval", "--yes", repo.root)
    assert result.code == 2 and "--yes only applies with --review" in result.err


def test_a_second_run_reuses_the_reviews_and_sends_nothing(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    planted = planted_bug(repo)
    fake_llm.script(*[_answer(_finding(PRICING, planted.bug_line))] * 2)
    first = cli("eval", "--review", "--json", "--jobs", "1", repo.root)
    assert first.code == 0, first.err
    kept = sorted(p.name.split("-")[0] for p in
                  (repo.root / ".git" / "reviewtui" / "eval").glob("*.jsonl"))
    assert kept == ["mined", "results", "reviews", "reviews"]
    again = cli("eval", "--review", "--json", repo.root)
    assert again.code == 0, again.err
    assert "all 2 reviews reused" in again.err
    assert len(fake_llm.chat_requests) == 2
    assert _review(again.json())["cases"] == _review(first.json())["cases"]


def test_a_malformed_answer_fails_the_case_not_the_run(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    planted = planted_bug(repo)
    fake_llm.script(Reply.text("no idea"), Reply.text("still no idea"),
                    _answer(_finding(PRICING, planted.bug_line)))
    result = cli("eval", "--review", "--markdown", "--jobs", "1", repo.root)
    assert result.code == 0, result.err
    assert "## review by test-model (1 cases)" in result.out
    assert f"| {planted.bug[:12]} | failed: the model gave no usable review" in result.out
    assert "| diff_only | 100% |" in result.out and "1 failed" in result.out
    folder = repo.root / ".git" / "reviewtui" / "eval"
    lines = [json.loads(line) for p in folder.glob("reviews-*.jsonl")
             for line in p.read_text().splitlines()]
    assert [o["mode"] for o in lines] == ["diff_only"]  # the failure is tried again next time


def test_a_server_without_usage_is_counted_locally(fake_llm: ScriptedOpenAIServer) -> None:
    body = {"id": "c1", "object": "chat.completion", "created": 0, "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "four words of answer"}}]}
    fake_llm.script(Reply.raw(json.dumps(body).encode()), Reply.text("two words",
                                                                     usage=USAGE))
    counter = token_counter("test-model")
    client = MeteredClient(resolve_llm(Settings().llm), counter)
    messages = [{"role": "user", "content": "a question of some length " * 20}]
    try:
        client.chat(messages)
        account = client.take()
        assert account.requests == 1 and account.estimated
        assert account.prompt_tokens == counter.count_messages(messages) > 100
        assert account.completion_tokens == counter.count("four words of answer")
        client.chat(messages)
        assert client.take() == Account(1, 1200, 80, False)
    finally:
        client.close()


def test_a_bug_unit_over_the_review_budget_is_reported_as_such(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    planted_bug(repo)
    (repo.root / ".reviewtui.toml").write_text("[context]\nreview_budget = 1000\n")
    # weights of the repository's own that put units with control flow (the bug's) last
    (repo.root / ".reviewtui").mkdir()
    (repo.root / ".reviewtui" / "triage_weights.toml").write_text(
        "[weights]\ncontrol_flow = -10.0\n")
    fake_llm.script(_answer())
    result = cli("eval", "--review", "--context", "diff_only", "--jobs", "1", repo.root)
    assert result.code == 0, result.err
    assert "missed" not in result.out
    assert "bug unit over the review budget, 0 findings" in result.out
    body = _user_text(fake_llm.chat_requests[0].body)
    assert "shop/pricing.py" not in body.split("## Context bundles", 1)[1]
    outcome = cli("eval", "--review", "--context", "diff_only", "--json", repo.root).json()[
        "review"]["cases"][0]["diff_only"]
    assert outcome["units_deferred"] > 0 and not outcome["holder_reviewed"]
    assert not outcome["holder_skipped"]


def test_the_agent_reads_the_bug_commit_never_the_fix(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    planted = planted_bug(repo)

    def after_tools(request: dict[str, Any]) -> Reply:
        tools = [str(m["content"]) for m in request["messages"] if m["role"] == "tool"]
        assert len(tools) == 2 and "return price - percent" in tools[0]
        assert "def discounted" in tools[1]
        return _answer(_finding(PRICING, planted.bug_line))

    fake_llm.script(
        Reply.tool_calls([{"name": "read_file_hunk",
                           "arguments": {"path": PRICING, "start": 1, "end": 40}},
                          {"name": "search_in_project", "arguments": {"query": "percent"}}]),
        after_tools)
    result = cli("eval", "--review", "--context", "planned", "--json", "--jobs", "1",
                 repo.root)
    assert result.code == 0, result.err
    outcome = _review(result.json())["cases"][0]["planned"]
    assert outcome["detected"] and outcome["requests"] == 2
    sent = json.dumps([r.body for r in fake_llm.chat_requests])
    assert "100 - percent" not in sent and "later_only" not in sent


def test_an_endpoint_error_stops_the_run_and_the_next_continues(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    planted = planted_bug(repo)
    fake_llm.script(_answer(_finding(PRICING, planted.bug_line)),
                    Reply.error(401, "Incorrect API key provided"))
    stopped = cli("eval", "--review", "--jobs", "1", repo.root)
    assert stopped.code == 2 and stopped.out == ""
    assert stopped.err.strip().splitlines()[-1].startswith("reviewtui: error: ")
    assert "Traceback" not in stopped.err
    fake_llm.script(_answer())
    again = cli("eval", "--review", "--json", repo.root)
    assert again.code == 0, again.err
    assert "1 reviews of 1 cases (1 reused)" in again.err
    assert len(fake_llm.chat_requests) == 3
    case = _review(again.json())["cases"][0]
    assert case["planned"]["detected"] and not case["diff_only"]["detected"]
