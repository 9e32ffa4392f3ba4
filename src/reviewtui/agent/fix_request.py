"""Asking the model for a fix to one finding (the workbench's fix key, ``/fix``, and
``reviewtui findings fix ID``).

The model gets the finding, the numbered lines of its file around it (as reviewed) and the same
read-only tools as the review; it answers with one JSON object holding ``fix``. It proposes only:
nothing here writes, and the fix is checked like a review's (``agent.fixes.check_fix``) by the
caller before anyone can apply it. A reply without usable JSON is repaired once, like a review's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reviewtui.agent.findings import FIX_SCHEMA
from reviewtui.agent.fixes import parse_fix
from reviewtui.agent.loop import AgentLoop, ToolRun
from reviewtui.agent.memory import ToolMemory
from reviewtui.agent.workspace import Workspace
from reviewtui.llm import LLMClient, TokenCounter
from reviewtui.plan.extract import PlanParseError, extract_object
from reviewtui.sessions.review_records import StoredFinding, StoredFix

CONTEXT_LINES = 15

FIX_SYSTEM_PROMPT = """\
You write the fix for one finding of a code review. You are given the finding and the numbered \
lines of its file after the change. You can call read-only tools to read more of the project \
(read_file_hunk, search_in_project, list_project_files, get_dependencies, get_scanner_issues, \
get_unit, get_bundle, get_tool_result). You cannot write files: the person previews your fix \
and applies it.

Make the smallest change that fixes the finding; keep the file's style and indentation. \
Finish with one JSON object and nothing else:
{"fix": {"start_line": 10, "end_line": 12, "replacement": "the complete new text of lines \
10-12"}, "explanation": "one sentence"}
start_line and end_line are line numbers of the file as shown (after the change); \
replacement replaces those lines entirely (an empty string deletes them). When no safe fix \
exists, answer {"fix": null, "explanation": "why"}."""

REPAIR = ("Your answer could not be used: {problem}. Answer again with only the JSON object "
          "{{\"fix\": {{\"start_line\", \"end_line\", \"replacement\"}}, \"explanation\"}}.")


@dataclass(frozen=True)
class FixAnswer:
    """What the model proposed: the fix (not yet checked) or why there is none."""

    fix: StoredFix | None
    explanation: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


def fix_prompt(ws: Workspace, finding: StoredFinding) -> str:
    """The user message: the finding and its file's lines around it, numbered (a finding on
    removed lines: the file before the change; the fix's lines are still lines after it)."""
    first = max(1, finding.start_line - CONTEXT_LINES)
    numbered: list[str] = []
    for number in range(first, finding.end_line + CONTEXT_LINES + 1):
        text = ws.side_line(finding.file_path, finding.side, number)
        if text is None:
            break
        numbered.append(f"{number:>5} | {text.rstrip(chr(13))}")
    body = f"\n\n{finding.body}" if finding.body else ""
    hint = f"\n\nThe reviewer suggested: {finding.suggestion}" if finding.suggestion else ""
    when = "after the change" if finding.side == "new" else (
        "before the change; the fix's lines are lines after it: read_file_hunk reads them")
    return (f"Finding ({finding.severity}) on {finding.file_path} {finding.place}: "
            f"{finding.title}{body}{hint}\n\n"
            f"## {finding.file_path} (lines {first}-{first + len(numbered) - 1}, {when})"
            "\n\n```\n" + "\n".join(numbered) + "\n```")


def ask_fix(ws: Workspace, client: LLMClient, counter: TokenCounter, finding: StoredFinding,
            *, max_tool_rounds: int = 8, on_tool: Callable[[ToolRun], None] | None = None,
            cancel: threading.Event | None = None) -> FixAnswer:
    """The model's fix for ``finding``; ``PlanParseError`` when even the repair was unusable,
    ``LLMError`` when the model cannot be reached."""
    memory = ToolMemory()
    loop = AgentLoop(client, ws.toolbox(memory), memory, max_tool_rounds=max_tool_rounds,
                     counter=counter)
    messages: list[dict[str, Any]] = [{"role": "system", "content": FIX_SYSTEM_PROMPT},
                                      {"role": "user", "content": fix_prompt(ws, finding)}]
    turn = loop.run(messages, on_tool=on_tool, cancel=cancel)
    tokens = [turn.prompt_tokens, turn.completion_tokens]
    try:
        value, _ = extract_object(turn.answer, "fix")
    except PlanParseError as problem:
        retry = loop.repair_request(messages, turn, REPAIR.format(problem=problem))
        schema = {"type": "object", "properties": {
            "fix": {"anyOf": [FIX_SCHEMA, {"type": "null"}]},
            "explanation": {"type": "string"}}, "required": ["fix", "explanation"]}
        reply = client.chat(retry, json_schema=schema, schema_name="fix", cancel=cancel)
        if reply.usage is not None:
            tokens[0] += reply.usage.prompt_tokens
            tokens[1] += reply.usage.completion_tokens
        value, _ = extract_object(reply.content, "fix")
    explanation = str(value.get("explanation") or "").strip()
    fix, unusable = parse_fix(value.get("fix"))
    if unusable is not None:
        explanation = unusable + (f" ({explanation})" if explanation else "")
    return FixAnswer(fix, explanation, tokens[0], tokens[1])
