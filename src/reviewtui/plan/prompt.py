"""The planner's prompt, its JSON schema, and how units are cut into batches that fit.

The planner sees the slim planner_index (seed 001: no diff text, no notes) and answers with an
llm_plan. Large changes are cut into batches so that both the request (the units' JSON) and the
reply (one plan item per unit) fit the model's context and output limits.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from reviewtui.models import ContextLevel, PlannerIndex, PlannerUnit

REQUEST_TYPES = ("previous_version", "callers", "search", "search_callers",
                 "search_config_usage", "search_implementations", "search_model_usage",
                 "search_class_methods", "scanner_issues")

# The prompt's version: part of a kept plan's key (``plan.cache``), with the prompt's text. Raise
# it when what the planner sends changes in a way its text does not show (the message layout).
PROMPT_VERSION = 1

SYSTEM_PROMPT = """\
You are the planning agent of a code review tool. For every review unit of a change you decide \
how much surrounding code the reviewer needs, which extra context to fetch, and whether the unit \
can be skipped.

Context levels, smallest first:
- diff_only: the diff alone (typos, comments, trivial edits)
- function: the diff plus the enclosing function(s) (logic inside one function)
- file_context: a wider window of the file (changes that affect several functions or a class)
- full_file: the whole file (configuration, routing, security-sensitive or structural changes)

Extra requests, each {"type": ..., "details": ...}:
- previous_version (details null): the code before the change
- callers (details: the function or method name): call sites of that symbol
- search (details: a literal text): where that text occurs in the project
- search_callers, search_implementations, search_model_usage, search_class_methods, \
search_config_usage (details: a symbol name, or null to use the unit's changed definitions)
- scanner_issues (details null): linter findings for the unit

The rules already suggested a level (rule_context_level) with a confidence (rule_confidence) and \
extra requests; raise the level when the rules look too narrow, lower it when they look too \
wide, and say why in one short sentence. Only skip units that need no review at all (formatting, \
generated files, lockfiles); never skip security, configuration or routing changes.

When the change's stated purpose is given (commit messages, description, linked issues), mark a \
unit that has nothing to do with it "unrelated": true with a short unrelated_reason (what it \
does instead). Being off-topic is never a reason to lower a level or skip: a change nobody asked \
for deserves at least as much attention as the rest.

Answer with one JSON object and nothing else:
{"plan": [{"unit_id": "...", "llm_context_level": "function", "extra_requests": \
[{"type": "callers", "details": "name"}], "skip_review": false, "reason": "...", \
"unrelated": false, "unrelated_reason": ""}]}
Include exactly one item for every unit_id you are given, and no other unit_id."""

REPAIR_PROMPT = """\
Your previous reply could not be used: {problem}. Reply again with only the JSON object \
{{"plan": [...]}} described above, one item per unit_id, no prose and no code fences."""


def plan_schema() -> dict[str, Any]:
    """JSON schema of the reply, for endpoints that support structured output."""
    request = {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": list(REQUEST_TYPES)},
                       "details": {"type": ["string", "null"]}},
        "required": ["type", "details"],
        "additionalProperties": False,
    }
    item = {
        "type": "object",
        "properties": {
            "unit_id": {"type": "string"},
            "llm_context_level": {"type": "string", "enum": [lv.value for lv in ContextLevel]},
            "extra_requests": {"type": "array", "items": request},
            "skip_review": {"type": "boolean"},
            "reason": {"type": "string"},
            "unrelated": {"type": "boolean"},
            "unrelated_reason": {"type": "string"},
        },
        "required": ["unit_id", "llm_context_level", "extra_requests", "skip_review", "reason",
                     "unrelated", "unrelated_reason"],
        "additionalProperties": False,
    }
    return {"type": "object", "properties": {"plan": {"type": "array", "items": item}},
            "required": ["plan"], "additionalProperties": False}


def unit_json(unit: PlannerUnit) -> str:
    return json.dumps(unit.model_dump(mode="json", exclude_none=True), ensure_ascii=False,
                      separators=(",", ":"))


def header_json(index: PlannerIndex) -> str:
    data = index.model_dump(mode="json", exclude={"units"})
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def user_message(header: str, units: Sequence[str], batch: int, batches: int,
                 intent: str = "") -> str:
    """The batch's request: the change's metadata, its stated purpose (``intent``, the
    Markdown of ``git.intent_text``; may be empty), and the units to plan."""
    part = f" (batch {batch} of {batches}; plan only these units)" if batches > 1 else ""
    purpose = f"{intent}\n\n" if intent else ""
    return (f"Change metadata and summary:\n{header}\n\n{purpose}Units{part}:\n["
            + ",\n".join(units) + "]\n\nReturn the plan JSON.")


# Tokens one plan item takes in the reply (an id, a level, a request or two, a short reason).
REPLY_TOKENS_PER_UNIT = 80


def make_batches(units: Sequence[PlannerUnit], count: Callable[[str], int], *,
                 input_budget: int, output_budget: int) -> list[list[PlannerUnit]]:
    """Consecutive groups of units whose JSON fits ``input_budget`` tokens and whose reply
    fits ``output_budget`` tokens; every batch has at least one unit."""
    per_batch = max(1, output_budget // REPLY_TOKENS_PER_UNIT)
    batches: list[list[PlannerUnit]] = []
    current: list[PlannerUnit] = []
    used = 0
    for unit in units:
        cost = count(unit_json(unit)) + 2
        if current and (used + cost > input_budget or len(current) >= per_batch):
            batches.append(current)
            current, used = [], 0
        current.append(unit)
        used += cost
    if current:
        batches.append(current)
    return batches
