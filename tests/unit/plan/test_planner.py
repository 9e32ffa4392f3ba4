"""The LLM planner through the real openai SDK against the scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import CallersRequest, ContextLevel, SearchRequest
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.plan import read_conflicts
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

AUTH = "def login(user, password):\n    return check(user, password)\n"
UTIL = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
DOCS = "# Title\n\nSome words.\n"


def _ids(request: dict[str, Any]) -> list[str]:
    text = request["messages"][-1]["content"]
    if "Units" not in text:  # a repair request: take the ids from the first user message
        text = request["messages"][1]["content"]
    return re.findall(r'"unit_id":"([^"]+)"', text)


def _change(repo: GitRepoBuilder, settings: str = "") -> LoadedChange:
    repo.write("app/auth.py", AUTH)
    repo.write("app/util.py", UTIL)
    repo.write("README.md", DOCS)
    if settings:
        repo.write(".reviewtui.toml", settings)
    repo.commit("base")
    repo.write("app/auth.py", AUTH.replace("return check", "if not user:\n        return False\n"
                                                          "    return check"))
    repo.write("app/util.py", UTIL.replace("a + b", "a + b + 0"))
    repo.write("README.md", DOCS + "More words.\n")
    return load_change(repo.root, ChangeSelector(SelectorMode.AUTO))


def _unit(loaded: LoadedChange, path: str) -> str:
    return next(u.unit_id for u in loaded.units if u.file_path == path)


FAST = "[llm]\ntimeout = 1.0\nmax_retries = 1\n"


def test_a_valid_plan_is_fused(repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    loaded = _change(repo, FAST)
    util, auth = _unit(loaded, "app/util.py"), _unit(loaded, "app/auth.py")

    def answer(request: dict[str, Any]) -> Reply:
        plan = [{"unit_id": uid, "llm_context_level": "file_context",
                 "extra_requests": [{"type": "callers", "details": "add"},
                                    {"type": "search", "details": "sub("}],
                 "skip_review": uid != util, "reason": f"because {uid}"} for uid in _ids(request)]
        return Reply.json({"plan": plan})

    fake_llm.script(answer)
    plan = loaded.plan()
    assert plan.planner.status == "ok" and plan.planner.model == "test-model"
    items = {i.unit_id: i for i in plan.plan}
    assert items[util].llm_context_level is ContextLevel.FILE_CONTEXT
    assert items[util].extra_requests[:2] == [CallersRequest(symbol="add"),
                                               SearchRequest(keyword="sub(")]
    assert items[util].reason == f"because {util}"
    # The LLM asked to skip the login change: high risk, so it stays in.
    assert items[auth].skip_review is False and items[auth].reason == "high_risk_cannot_skip"
    body = fake_llm.chat_requests[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert "diff" not in body["messages"][1]["content"].lower().split('"tags"')[0]
    # The disagreement went to the repository's evidence log, stamped with the rule pack and
    # the change; the LLM's other verdicts went there too.
    log = loaded.conflict_log()
    assert log is not None and str(log.path).startswith(str(repo.root / ".git"))
    records = read_conflicts(log.path)
    assert any(r.kind == "rule_high_vs_llm_skip" and r.unit_id == auth for r in records)
    assert {r.unit_id for r in records} == {u.unit_id for u in loaded.units}
    assert {(r.source, r.pack, r.change) for r in records} == {
        ("llm", log.pack, loaded.change_set.key)}


def test_unknown_ids_invalid_levels_and_bad_requests_are_dropped_with_reasons(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    loaded = _change(repo, FAST)
    util = _unit(loaded, "app/util.py")
    fake_llm.script(Reply.json({"plan": [
        {"unit_id": "u_doesnotexist", "llm_context_level": "function"},
        {"unit_id": util, "llm_context_level": "entire_repo",
         "extra_requests": [{"type": "teleport"}, {"type": "search", "details": ""},
                            {"type": "callers", "details": None}]},
    ]}))
    plan = loaded.plan()
    messages = "\n".join(plan.planner.messages)
    assert "unknown unit 'u_doesnotexist'" in messages
    assert "invalid level 'entire_repo'" in messages
    assert "unknown request type 'teleport'" in messages
    assert "search request without a keyword" in messages
    item = next(i for i in plan.plan if i.unit_id == util)
    assert item.llm_context_level is None
    assert item.final_context_level is item.rule_context_level
    # callers without a symbol becomes search_callers (symbols come from the unit).
    assert item.extra_requests[0].type == "search_callers"


def test_prose_around_json_is_accepted(repo: GitRepoBuilder,
                                       fake_llm: ScriptedOpenAIServer) -> None:
    loaded = _change(repo, FAST)

    def answer(request: dict[str, Any]) -> Reply:
        plan = [{"unit_id": uid, "llm_context_level": "full_file"} for uid in _ids(request)]
        return Reply.text("Sure! Here is the plan:\n```json\n" + json.dumps({"plan": plan})
                          + "\n```\nLet me know if you need more.")

    fake_llm.script(answer)
    plan = loaded.plan()
    assert plan.planner.status == "ok"
    assert all(i.llm_context_level is ContextLevel.FULL_FILE for i in plan.plan)
    assert any("code block" in m for m in plan.planner.messages)


def test_truncated_json_keeps_the_complete_items_and_the_rest_fall_back(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    loaded = _change(repo, FAST)
    order: list[str] = []

    def answer(request: dict[str, Any]) -> Reply:
        ids = order[:] = _ids(request)
        first = {"unit_id": ids[0], "llm_context_level": "full_file", "skip_review": False,
                 "reason": "ok", "extra_requests": []}
        text = '{"plan": [' + json.dumps(first) + ', {"unit_id": "' + ids[1] + '", "llm_con'
        return Reply.text(text, finish_reason="length")

    fake_llm.script(answer)
    plan = loaded.plan()
    items = {i.unit_id: i for i in plan.plan}
    first, rest = items[order[0]], [items[u] for u in order[1:]]
    assert first.llm_context_level is ContextLevel.FULL_FILE
    assert all(i.llm_context_level is None for i in rest)
    # Not "dropped by fusion": the reply was cut off, so the rules decide these units.
    assert all(i.reason.startswith("rules_only") for i in rest)
    assert any("cut off; 1 complete items salvaged" in m for m in plan.planner.messages)


def test_an_empty_reply_is_repaired_once(repo: GitRepoBuilder,
                                         fake_llm: ScriptedOpenAIServer) -> None:
    loaded = _change(repo, FAST)

    def repaired(request: dict[str, Any]) -> Reply:
        assert "could not be used: the model returned an empty reply" in (
            request["messages"][-1]["content"])
        return Reply.json({"plan": [{"unit_id": uid, "llm_context_level": "function"}
                                    for uid in _ids(request)]})

    fake_llm.script(Reply.text(""), repaired)
    plan = loaded.plan()
    assert plan.planner.status == "ok"
    assert len(fake_llm.chat_requests) == 2


def test_a_plan_that_stays_broken_falls_back_to_the_rules(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    loaded = _change(repo, FAST)
    fake_llm.script(Reply.text("I cannot help with that."), Reply.text("Still no JSON."))
    plan = loaded.plan()
    assert plan.planner.status == "failed"
    assert any("no usable plan after one repair attempt" in m for m in plan.planner.messages)
    assert all(i.reason.startswith("rules_only") for i in plan.plan)
    assert all(i.provenance.level == "rule" for i in plan.plan)


def test_429_then_success(repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    loaded = _change(repo, FAST)
    fake_llm.script(Reply.error(429, "slow down", headers={"Retry-After": "0"}),
                    lambda r: Reply.json({"plan": [{"unit_id": u, "llm_context_level": "function"}
                                                   for u in _ids(r)]}))
    plan = loaded.plan()
    assert plan.planner.status == "ok" and len(fake_llm.chat_requests) == 2


@pytest.mark.parametrize("reply", [Reply.delay(3.0), Reply.error(500, "boom")],
                         ids=["timeout", "server-error"])
def test_timeouts_and_server_errors_fall_back_to_the_rules(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer, reply: Reply) -> None:
    loaded = _change(repo, "[llm]\ntimeout = 0.5\nmax_retries = 0\n")
    fake_llm.script(reply)
    plan = loaded.plan()
    assert plan.planner.status == "failed"
    assert any("fall back to the rules" in m for m in plan.planner.messages)
    assert len(plan.plan) == 3 and not any(i.skip_review for i in plan.plan
                                           if i.risk in ("medium", "high"))


def _thirty_units(repo: GitRepoBuilder, settings: str) -> LoadedChange:
    for n in range(30):
        repo.write(f"pkg/mod{n}.py", f"def f{n}(x):\n    return x\n")
    repo.write(".reviewtui.toml", settings)
    repo.commit("base")
    for n in range(30):
        repo.write(f"pkg/mod{n}.py", f"def f{n}(x):\n    return x + {n}\n")
    return load_change(repo.root, ChangeSelector(SelectorMode.AUTO))


def test_large_changes_are_planned_in_batches(repo: GitRepoBuilder,
                                              fake_llm: ScriptedOpenAIServer) -> None:
    loaded = _thirty_units(repo, "[llm]\nmax_output_tokens = 800\ncontext_window = 2000\n")
    seen: list[list[str]] = []

    def answer(request: dict[str, Any]) -> Reply:
        ids = _ids(request)
        seen.append(ids)
        return Reply.json({"plan": [{"unit_id": u, "llm_context_level": "file_context"}
                                    for u in ids]})

    fake_llm.script(*([answer] * 10))
    plan = loaded.plan()
    assert plan.planner.status == "ok" and plan.planner.batches == len(seen) >= 3
    assert sorted(u for batch in seen for u in batch) == sorted(u.unit_id for u in loaded.units)
    assert all(len(batch) <= 10 for batch in seen)  # 800 output tokens / 80 per item
    assert all(i.llm_context_level is ContextLevel.FILE_CONTEXT for i in plan.plan)


def test_a_bad_key_stops_after_the_first_batch(repo: GitRepoBuilder,
                                               fake_llm: ScriptedOpenAIServer) -> None:
    loaded = _thirty_units(repo, "[llm]\nmax_output_tokens = 800\n")
    fake_llm.script(Reply.error(401, "invalid api key"))
    plan = loaded.plan()
    assert plan.planner.status == "failed"
    assert len(fake_llm.chat_requests) == 1
    assert any("remaining batches not sent" in m for m in plan.planner.messages)
    assert "test-key" not in "\n".join(plan.planner.messages)


def test_an_endpoint_lost_after_the_first_batch_stops_the_batches_not_sent_yet(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    # only the first batch was a gate: every queued batch then waited out its own timeout
    # (54 batches, 54 timeouts) against an endpoint that had gone away
    loaded = _thirty_units(repo, "[llm]\nmax_output_tokens = 240\ncontext_window = 2000\n"
                                 "max_retries = 0\n")

    def first(request: dict[str, Any]) -> Reply:
        return Reply.json({"plan": [{"unit_id": u, "llm_context_level": "function"}
                                    for u in _ids(request)]})

    fake_llm.script(first, *[Reply.error(401, "the key was revoked")] * 12)
    plan = loaded.plan()
    total = plan.planner.batches
    assert total >= 8  # 30 units, 3 a batch
    sent = len(fake_llm.chat_requests)
    assert sent <= 1 + 4  # the first, then at most the four already on their way
    assert plan.planner.status == "partial"
    assert f"{total - sent} remaining batches not sent after that error" in (
        plan.planner.messages)


def test_no_model_configured_plans_on_the_rules(repo: GitRepoBuilder) -> None:
    loaded = _change(repo)
    plan = loaded.plan()
    assert plan.planner.status == "not_configured"
    assert "REVIEWTUI_MODEL" in plan.planner.messages[0]
    assert len(plan.plan) == 3


def test_unrelated_is_read_tolerantly(repo: GitRepoBuilder,
                                      fake_llm: ScriptedOpenAIServer) -> None:
    """The flag with its reason, a reason in place of the flag, a bare flag, and nothing."""
    loaded = _change(repo).with_intent("Guard login against empty users.")
    auth, util, docs = (_unit(loaded, p) for p in ("app/auth.py", "app/util.py", "README.md"))

    def answer(request: dict[str, Any]) -> Reply:
        assert "### Description\nGuard login against empty users." in (
            request["messages"][1]["content"])
        return Reply.json({"plan": [
            {"unit_id": auth, "llm_context_level": "function", "unrelated": False},
            {"unit_id": util, "llm_context_level": "function",
             "unrelated": "adds zero to a sum; nothing to do with login"},
            {"unit_id": docs, "llm_context_level": "diff_only", "unrelated": "true"}]})

    fake_llm.script(answer)
    plan = {item.unit_id: item for item in loaded.plan().plan}
    assert plan[auth].unrelated is None
    assert plan[util].unrelated == "adds zero to a sum; nothing to do with login"
    assert plan[docs].unrelated == "not part of the stated purpose"


@pytest.mark.parametrize("first", [
    Reply.json({"plan": []}),
    Reply.json({"plan": [{"unit_id": "u_nothere00000", "llm_context_level": "function"}]}),
], ids=["empty-plan", "only-unknown-ids"])
def test_a_plan_with_no_item_for_any_unit_is_repaired_then_left_to_the_rules(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer, first: Reply) -> None:
    """A reply that plans none of the batch's units is no verdict on them: not "ok", and the
    low-risk units are not dropped as "not in the LLM plan"."""
    loaded = _change(repo, FAST)
    docs = _unit(loaded, "README.md")
    fake_llm.script(first, Reply.json({"plan": []}))
    plan = loaded.plan()
    assert len(fake_llm.chat_requests) == 2
    assert "no item for any of the 3 units" in (
        fake_llm.chat_requests[1].body["messages"][-1]["content"])
    assert plan.planner.status == "failed"
    items = {i.unit_id: i for i in plan.plan}
    assert items[docs].skip_review is False
    assert all(i.reason.startswith("rules_only") for i in plan.plan)


def test_a_repaired_empty_plan_is_used(repo: GitRepoBuilder,
                                       fake_llm: ScriptedOpenAIServer) -> None:
    loaded = _change(repo, FAST)
    fake_llm.script(Reply.json({"plan": []}),
                    lambda r: Reply.json({"plan": [{"unit_id": u, "llm_context_level": "full_file"}
                                                   for u in _ids(r)]}))
    plan = loaded.plan()
    assert plan.planner.status == "ok"
    assert all(i.llm_context_level is ContextLevel.FULL_FILE for i in plan.plan)


def test_a_plan_given_as_a_tool_call_is_used(repo: GitRepoBuilder,
                                             fake_llm: ScriptedOpenAIServer) -> None:
    """Some endpoints deliver structured output as a function call with empty content."""
    loaded = _change(repo, FAST)

    def answer(request: dict[str, Any]) -> Reply:
        plan = [{"unit_id": u, "llm_context_level": "full_file"} for u in _ids(request)]
        return Reply.tool_calls([{"name": "llm_plan", "arguments": {"plan": plan}}])

    fake_llm.script(answer)
    plan = loaded.plan()
    assert len(fake_llm.chat_requests) == 1
    assert plan.planner.status == "ok"
    assert all(i.llm_context_level is ContextLevel.FULL_FILE for i in plan.plan)
    assert any("tool call 'llm_plan'" in m for m in plan.planner.messages)
    assert not any("empty reply" in m for m in plan.planner.messages)


def test_unit_id_prefixes_the_model_shortened_are_resolved(
        repo: GitRepoBuilder, fake_llm: ScriptedOpenAIServer) -> None:
    """A model that shortens the ids (as the tables and --unit do) still plans its units; the
    evidence log names each unit by its full id."""
    loaded = _change(repo, FAST)

    def answer(request: dict[str, Any]) -> Reply:
        return Reply.json({"plan": [{"unit_id": u[:8].upper(), "llm_context_level": "full_file"}
                                    for u in _ids(request)] + [
            {"unit_id": "u_", "llm_context_level": "diff_only"}]})

    fake_llm.script(answer)
    plan = loaded.plan()
    assert all(i.llm_context_level is ContextLevel.FULL_FILE for i in plan.plan)
    assert any("unknown unit 'u_'" in m for m in plan.planner.messages)  # too short
    log = loaded.conflict_log()
    assert log is not None
    assert {r.unit_id for r in read_conflicts(log.path)} == {u.unit_id for u in loaded.units}


def test_an_ambiguous_unit_id_prefix_is_dropped_with_its_reason() -> None:
    from reviewtui.plan.planner import _BatchResult, validate_items

    wanted: dict[str, Any] = {"u_abcd11110000": None, "u_abcd22220000": None}
    result = _BatchResult()
    validate_items([{"unit_id": "u_abcd", "llm_context_level": "function"},
                    {"unit_id": "U_ABCD2", "llm_context_level": "full_file"}], wanted, result)
    assert list(result.items) == ["u_abcd22220000"]
    assert result.messages == ["dropped the plan item for unit 'u_abcd': it matches 2 units"]


def test_a_single_request_not_in_a_list_is_kept() -> None:
    from reviewtui.plan.planner import _BatchResult, validate_items

    wanted: dict[str, Any] = {"u_abcd11110000": None, "u_abcd22220000": None}
    result = _BatchResult()
    validate_items([{"unit_id": "u_abcd11110000",
                     "extra_requests": {"type": "callers", "details": "charge"}},
                    {"unit_id": "u_abcd22220000", "extra_requests": "previous_version"}],
                   wanted, result)
    assert result.items["u_abcd11110000"].extra_requests == [CallersRequest(symbol="charge")]
    assert [r.type for r in result.items["u_abcd22220000"].extra_requests] == ["previous_version"]
    assert result.messages == []
