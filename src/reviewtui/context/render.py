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
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TextIO

from reviewtui.code.languages import language_for_path
from reviewtui.models import Allocation, CodeSnippet, ContextBundle, ScannerFinding

_BACKTICKS = re.compile(r"`+")

SECTION_TITLES = {"diff": "Diff", "function_context": "Function context",
                  "file_context": "File context", "full_file": "Full file",
                  "previous_version": "Previous version"}
ISSUES_TITLE = "### Scanner issues\n\n"
COMPACT_BELOW = 1_000  # tokens of unit budget: below, the metadata block is compact


def fenced(code: str, language: str | None = None) -> str:
    """``code`` in a backtick fence longer than any backtick run it contains."""
    longest = max((len(run) for run in _BACKTICKS.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)
    body = code.rstrip("\n")
    return f"{fence}{language or ''}\n{body}\n{fence}"


def _metadata(bundle: ContextBundle, compact: bool = False) -> dict[str, Any]:
    data = bundle.model_dump(mode="json", include={"unit_id", "meta", "final_context_level",
                                                   "extra_requests"})
    budget = bundle.budget
    summary: dict[str, Any] = {"limit": budget.limit, "used": budget.used,
                               "counter": budget.counter}
    for status in ("clipped", "dropped", "not_fetched"):
        names = [p.name for p in budget.pieces if p.status == status]
        if names:
            summary[status] = names
    if compact:  # see head_part
        meta = {key: value for key, value in data["meta"].items()
                if value and key not in ("file_path", "line_numbers")}
        if "not_fetched" in summary:
            summary["not_fetched"] = len(summary["not_fetched"])
        return {"unit_id": data["unit_id"], "meta": meta,
                "final_context_level": data["final_context_level"], "budget": summary}
    return {
        "unit_id": data["unit_id"],
        "meta": data["meta"],
        "final_context_level": data["final_context_level"],
        "extra_requests": data["extra_requests"],
        "budget": summary,
    }


# The rendered bundle is the concatenation of the parts below, each ending in its blank line
# (the last one's kept: dropping it may save a token, "````\n\n" is three, "````\n" two, and
# then the bundle would not be what was counted). Every part starts a new token ("##", "###",
# a label), so the tokens of the whole are the sum of the parts' tokens: the budget counts a
# bundle part by part as it is fitted (``context.budget.Fitter``), and that is what is sent.

def head_part(bundle: ContextBundle) -> str:
    """The unit's heading and its metadata block. For a unit budget under ``COMPACT_BELOW``
    tokens, where every token counts, it is one line of JSON without what the bundle says
    elsewhere or can do without: no extra requests (each shows as its section or its note),
    no file path (the location has it), no line numbers (the diff has them), no empty values,
    and how many pieces were not fetched rather than their names."""
    compact = bundle.budget.limit < COMPACT_BELOW
    meta = json.dumps(_metadata(bundle, compact), indent=None if compact else 2,
                      ensure_ascii=False)
    return f"## Unit {bundle.unit_id}: {bundle.meta.location}\n\n{fenced(meta, 'json')}\n\n"


def listing(count: Callable[[str], int], limit: int) -> Callable[[str, str, bool], int]:
    """About what naming one more piece under a status adds to the metadata of a bundle of
    unit budget ``limit``: ``(status, name, first) -> tokens`` (``first``: the status's key
    too). Generous: the exact count is taken once the bundle is built."""
    compact = limit < COMPACT_BELOW

    def tokens(status: str, name: str, first: bool) -> int:
        if compact and status == "not_fetched":
            return 8 if first else 1  # a count: its key once, then a digit at most
        quoted = count(json.dumps(name, ensure_ascii=False)) if name else 0
        return quoted + (2 if compact else 4) + ((8 if compact else 10) if first else 0)

    return tokens


def code_part(title: str, code: str, language: str | None) -> str:
    """A section of code: the diff, a level's context, the previous version."""
    return f"### {title}\n\n{fenced(code, language)}\n\n"


def snippet_part(snippet: CodeSnippet, fallback: str | None, title: str | None = None,
                 code: str | None = None) -> str:
    """One caller or search result (with ``code`` for its text, if given), under its
    section's ``title`` when it is the first."""
    label = f"{snippet.file_path}:L{snippet.line}"
    if snippet.symbol:
        label += f" ({snippet.kind}: {snippet.symbol})"
    language = language_for_path(snippet.file_path) or fallback
    head = f"### {title}\n\n" if title else ""
    body = snippet.snippet if code is None else code
    return f"{head}{label}\n\n{fenced(body, language)}\n\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def issue_line(finding: ScannerFinding) -> str:
    return (f"- L{finding.line}:{finding.column} {finding.severity} {finding.tool} "
            f"{finding.rule_id}: {_one_line(finding.message)}")


def issues_part(findings: Sequence[ScannerFinding]) -> str:
    return ISSUES_TITLE + "".join(f"{issue_line(f)}\n" for f in findings) + "\n"


def notes_part(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    return "### Notes\n\n" + "".join(f"- {_one_line(n)}\n" for n in notes)


def render_bundle_markdown(bundle: ContextBundle) -> str:
    """One unit's bundle: the JSON metadata block, then the non-empty sections."""
    language = bundle.meta.language
    parts = [head_part(bundle), code_part(SECTION_TITLES["diff"], bundle.diff, "diff")]
    for field in ("function_context", "file_context", "full_file", "previous_version"):
        text = getattr(bundle, field)
        if text:
            parts.append(code_part(SECTION_TITLES[field], text, language))
    for title, snippets in (("Callers", bundle.callers),
                            ("Search results", bundle.search_results)):
        parts += [snippet_part(s, language, None if n else title)
                  for n, s in enumerate(snippets)]
    if bundle.scanner_issues:
        parts.append(issues_part(bundle.scanner_issues))
    parts.append(notes_part(bundle.notes))
    return "".join(parts)


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
    rows += [f"| {d.unit_id} | {_cell(d.location)} | {d.risk} | {d.final_context_level.value} | "
             f"{'' if d.measured else '~'}{d.tokens} | {_cell(d.reason)} |"
             for d in allocation.deferred]
    return "\n\n## Deferred units\n\n" + "\n".join(rows)


def _cell(text: str) -> str:
    """``text`` in one Markdown table cell: a ``|`` (a path may hold one) escaped, a line break
    (so may a path) a space, either of which would end the cell or the row."""
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


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
