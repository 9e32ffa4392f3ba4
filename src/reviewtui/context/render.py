"""Context bundles as the review prompt sees them: seed 000's JSON + Markdown hybrid.

The metadata goes in a ```json block (machine-checkable), the code in Markdown fences (no JSON
escaping, which models read badly). A fence is always longer than any backtick run inside the
code, so a snippet that itself contains ``` cannot end the fence early. Empty sections are left
out: a model should not wonder about a "Callers" heading with nothing under it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from reviewtui.code.languages import language_for_path
from reviewtui.models import CodeSnippet, ContextBundle, ScannerFinding

_BACKTICKS = re.compile(r"`+")

_LEVEL_SECTIONS = (
    ("function_context", "Function context"),
    ("file_context", "File context"),
    ("full_file", "Full file"),
)


def fenced(code: str, language: str | None = None) -> str:
    """``code`` in a backtick fence longer than any backtick run it contains."""
    longest = max((len(run) for run in _BACKTICKS.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)
    body = code.rstrip("\n")
    return f"{fence}{language or ''}\n{body}\n{fence}"


def _metadata(bundle: ContextBundle) -> dict[str, Any]:
    data = bundle.model_dump(mode="json")
    budget = bundle.budget
    summary: dict[str, Any] = {"limit": budget.limit, "used": budget.used,
                               "counter": budget.counter}
    for status in ("clipped", "dropped"):
        names = [p.name for p in budget.pieces if p.status == status]
        if names:
            summary[status] = names
    return {
        "unit_id": data["unit_id"],
        "meta": data["meta"],
        "final_context_level": data["final_context_level"],
        "extra_requests": data["extra_requests"],
        "budget": summary,
    }


def _snippets(snippets: Sequence[CodeSnippet], fallback: str | None) -> str:
    parts: list[str] = []
    for snippet in snippets:
        label = f"{snippet.file_path}:L{snippet.line}"
        if snippet.symbol:
            label += f" ({snippet.kind}: {snippet.symbol})"
        language = language_for_path(snippet.file_path) or fallback
        parts.append(f"{label}\n\n{fenced(snippet.snippet, language)}")
    return "\n\n".join(parts)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _issues(findings: Sequence[ScannerFinding]) -> str:
    return "\n".join(
        f"- L{f.line}:{f.column} {f.severity} {f.tool} {f.rule_id}: {_one_line(f.message)}"
        for f in findings
    )


def render_bundle_markdown(bundle: ContextBundle) -> str:
    """One unit's bundle: the JSON metadata block, then the non-empty sections."""
    language = bundle.meta.language
    meta = json.dumps(_metadata(bundle), indent=2, ensure_ascii=False)
    sections: list[tuple[str, str]] = [("Diff", fenced(bundle.diff, "diff"))]
    for field, title in _LEVEL_SECTIONS:
        text = getattr(bundle, field)
        if text:
            sections.append((title, fenced(text, language)))
    if bundle.previous_version:
        sections.append(("Previous version", fenced(bundle.previous_version, language)))
    if bundle.callers:
        sections.append(("Callers", _snippets(bundle.callers, language)))
    if bundle.search_results:
        sections.append(("Search results", _snippets(bundle.search_results, language)))
    if bundle.scanner_issues:
        sections.append(("Scanner issues", _issues(bundle.scanner_issues)))
    if bundle.notes:
        sections.append(("Notes", "\n".join(f"- {_one_line(n)}" for n in bundle.notes)))
    parts = [f"## Unit {bundle.unit_id}: {bundle.meta.location}", fenced(meta, "json")]
    parts += [f"### {title}\n\n{body}" for title, body in sections]
    return "\n\n".join(parts) + "\n"


def render_bundles_markdown(bundles: Sequence[ContextBundle]) -> str:
    """Every unit's bundle under a short header with the totals."""
    if not bundles:
        return "# Context bundles\n\nNo units to review.\n"
    used = sum(b.budget.used for b in bundles)
    limit = sum(b.budget.limit for b in bundles)
    counters = sorted({b.budget.counter for b in bundles})
    plural = "s" if len(bundles) != 1 else ""
    head = (f"# Context bundles\n\n{len(bundles)} unit{plural}, {used} of {limit} tokens "
            f"({', '.join(counters)}).\n")
    return "\n---\n\n".join([head, *(render_bundle_markdown(b) for b in bundles)])


def bundles_json(bundles: Sequence[ContextBundle]) -> str:
    """The bundles as a JSON array of ``ContextBundle.model_dump(mode="json")``."""
    return json.dumps([b.model_dump(mode="json") for b in bundles], indent=2,
                      ensure_ascii=False)
