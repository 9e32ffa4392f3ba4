"""Tolerant extraction of the plan from what models write."""

from __future__ import annotations

import pytest

from reviewtui.plan.extract import PlanParseError, extract_plan_items
from reviewtui.plan.requests import parse_level, planner_request

ITEM = '{"unit_id": "u1", "llm_context_level": "function", "extra_requests": []}'


@pytest.mark.parametrize(("text", "how", "count"), [
    ('{"plan": [' + ITEM + "]}", "json", 1),
    ("[" + ITEM + "]", "json", 1),
    (ITEM, "json", 1),
    ('{"result": {"plan": [' + ITEM + "]}}", "json", 1),
    ("Here you go:\n```json\n{\"plan\": [" + ITEM + "]}\n```\nDone.", "fenced", 1),
    ("The plan is {\"plan\": [" + ITEM + "]} as requested.", "embedded", 1),
    ('{"plan": [' + ITEM + ", " + ITEM.replace("u1", "u2") + ', {"unit_id": "u3", "llm',
     "salvaged", 2),
])
def test_extraction(text: str, how: str, count: int) -> None:
    extracted = extract_plan_items(text)
    assert (extracted.how, len(extracted.items)) == (how, count)


@pytest.mark.parametrize(("text", "why"), [
    ("", "empty reply"),
    ("   \n", "empty reply"),
    ('{"answer": 42}', "no 'plan' list"),
    ("I cannot do that.", "no JSON plan"),
    ('{"plan": [{"unit_', "cut off"),
])
def test_unusable_replies_say_why(text: str, why: str) -> None:
    with pytest.raises(PlanParseError, match=why):
        extract_plan_items(text)


@pytest.mark.parametrize(("raw", "level"), [
    ("function", "function"), ("FILE", "file_context"), ("full-file", "full_file"),
    ("diff", "diff_only"), ("local", "diff_only"), ("whole file", "full_file"),
    ("repo", None), (3, None), (None, None),
])
def test_levels_are_normalised(raw: object, level: str | None) -> None:
    parsed = parse_level(raw)
    assert (parsed.value if parsed else None) == level


@pytest.mark.parametrize(("raw", "expected"), [
    ({"type": "previous_version", "details": None}, {"type": "previous_version"}),
    ({"type": "callers", "details": "login"}, {"type": "callers", "symbol": "login"}),
    ({"type": "callers", "details": ""}, {"type": "search_callers", "symbol": None}),
    ({"type": "search", "details": "TOKEN"}, {"type": "search", "keyword": "TOKEN"}),
    ({"type": "search", "text": "x y"}, {"type": "search", "keyword": "x y"}),
    ({"type": "search_model_usage", "details": "Order"},
     {"type": "search_model_usage", "symbol": "Order"}),
    ({"type": "search_config_usage"}, {"type": "search_config_usage", "symbol": None}),
    ("scanner_issues", {"type": "scanner_issues"}),
    ({"type": "lint"}, {"type": "scanner_issues"}),
])
def test_planner_requests_become_typed(raw: object, expected: dict[str, object]) -> None:
    request, problem = planner_request(raw)
    assert problem is None and request is not None
    assert request.model_dump() == expected


@pytest.mark.parametrize("raw", [{"type": "teleport"}, {"details": "x"}, 42,
                                 {"type": "search"}])
def test_unusable_requests_are_dropped_with_a_reason(raw: object) -> None:
    request, problem = planner_request(raw)
    assert request is None and problem


@pytest.mark.parametrize("text", [
    '{"plan": {"u1": {"unit_id": "u1", "llm_context_level": "function"},'
    ' "u2": {"unit_id": "u2", "llm_context_level": "full_file"}}}',
    '{"plan": {"u1": {"llm_context_level": "function"}, "u2": {"skip_review": true}}}',
    '{"u1": {"llm_context_level": "function"}, "u2": {"unit_id": "u2", "reason": "x"}}',
], ids=["plan-keyed-with-ids", "plan-keyed-without-ids", "bare-keyed"])
def test_a_plan_keyed_by_unit_id_keeps_every_item(text: str) -> None:
    """Not just its first item: the others would read as units the model left out."""
    extracted = extract_plan_items(text)
    assert [item["unit_id"] for item in extracted.items] == ["u1", "u2"]
