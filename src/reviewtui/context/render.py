"""Context bundles as the review prompt sees them: seed 000's JSON + Markdown hybrid.

The metadata goes in a ```json block (machine-checkable), the code in Markdown fences (no JSON
escaping, which models read badly). A fence is always longer than any backtick run inside the
code, so a snippet that itself contains ``` cannot end the fence early. Empty sections are left
out: a model should not wonder about a "Callers" heading with nothing under it.

``write_bundles`` streams a whole bundle set (JSON, JSON Lines or Markdown) as it is built, the
allocation last, so memory does not grow with the number of units.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, TextIO

from reviewtui.code.languages import language_for_path
from reviewtui.models import Allocation, CodeSnippet, ContextBundle, ScannerFinding

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
    for status in ("clipped", "dropped", "not_fetched"):
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


class BundleSource(Protocol):
    """Bundles to iterate (once), then the allocation that chose them (``BundleStream``)."""

    def __iter__(self) -> Iterator[ContextBundle]: ...

    @property
    def allocation(self) -> Allocation: ...


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def allocation_summary(allocation: Allocation) -> str:
    """The allocation in a few lines: totals, then included / deferred per risk class."""
    included = len(allocation.included)
    deferred = len(allocation.deferred)
    budgets = (f"{allocation.batches} review budgets of {allocation.review_budget:,}"
               if allocation.batches > 1 else f"the review budget of {allocation.review_budget:,}")
    lines = [f"allocation: {_count(included, 'unit')} in {budgets} tokens "
             f"({allocation.used:,} used, {allocation.counter}, at most "
             f"{min(allocation.unit_budget, allocation.review_budget):,} per unit); "
             f"{_count(deferred, 'unit')} deferred"]
    rows = [("risk", "included", "tokens", "complete", "deferred", "would need")]
    rows += [(r.risk, f"{r.included_units:,}", f"{r.included_tokens:,}", f"{r.complete_units:,}",
              f"{r.deferred_units:,}", f"~{r.deferred_tokens:,}") for r in allocation.by_risk]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:],
                                                                          strict=True))]
        lines.append("  " + "  ".join(cells))
    return "\n".join(lines) + "\n"


def _deferred_markdown(allocation: Allocation) -> str:
    if not allocation.deferred:
        return ""
    rows = ["| unit | location | risk | level | needs | reason |", "|---|---|---|---|---|---|"]
    rows += [f"| {d.unit_id} | {d.location} | {d.risk} | {d.final_context_level.value} | "
             f"{'' if d.measured else '~'}{d.tokens} | {d.reason} |" for d in allocation.deferred]
    return "\n\n## Deferred units\n\n" + "\n".join(rows)


def write_bundles(source: BundleSource, fmt: str, out: TextIO) -> None:
    """Write each bundle as soon as it is built, then the allocation: ``fmt`` is ``json`` (one
    ``BundleSet`` document), ``jsonl`` (``BundleLine`` records) or ``markdown``."""
    if fmt == "json":
        out.write('{\n"bundles": [')
        for n, bundle in enumerate(source):
            out.write(("," if n else "") + "\n" + bundle.model_dump_json(indent=2))
        out.write('\n],\n"allocation": ' + source.allocation.model_dump_json(indent=2) + "\n}\n")
    elif fmt == "jsonl":
        for bundle in source:
            out.write('{"record":"bundle","bundle":' + bundle.model_dump_json() + "}\n")
        out.write('{"record":"allocation","allocation":'
                  + source.allocation.model_dump_json() + "}\n")
    else:
        out.write("# Context bundles\n")
        for bundle in source:
            out.write("\n---\n\n" + render_bundle_markdown(bundle))
        allocation = source.allocation
        out.write("\n---\n\n## Allocation\n\n" + fenced(allocation_summary(allocation))
                  + _deferred_markdown(allocation) + "\n")
    out.flush()
