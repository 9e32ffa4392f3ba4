"""The JSON+Markdown hybrid: a parseable metadata block, safe fences, no empty sections."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator

from pydantic import TypeAdapter

from reviewtui.context.render import (
    allocation_summary,
    fenced,
    render_bundle_markdown,
    write_bundles,
)
from reviewtui.models import (
    AllocatedUnit,
    Allocation,
    BudgetAccount,
    BudgetPiece,
    BundleLine,
    BundleMeta,
    BundleSet,
    CallersRequest,
    CodeSnippet,
    ContextBundle,
    ContextLevel,
    DeferredUnit,
    LineNumbers,
    PreviousVersionRequest,
    RiskAllocation,
    ScannerFinding,
)

TRICKY = 'def doc():\n    """Example:\n\n    ```python\n    x = 1\n    ````\n    """\n'


def bundle(**fields: object) -> ContextBundle:
    base: dict[str, object] = {
        "unit_id": "u_123456789abc",
        "meta": BundleMeta(file_path="src/a.py", location="src/a.py:L10-25", language="python",
                           change_type="modify", tags=["in_single_function"],
                           line_numbers=LineNumbers(new_compact="L10-25", old_compact="L10-22")),
        "final_context_level": ContextLevel.FUNCTION,
        "extra_requests": [PreviousVersionRequest(), CallersRequest(symbol="doc")],
        "diff": "@@ src/a.py:L10-25 @@\n   10    10  x\n         11 +y",
        "function_context": "# src/a.py:L9-12 (function doc)\n   9 | def doc():",
        "budget": BudgetAccount(limit=6000, used=120, counter="o200k_base", pieces=[
            BudgetPiece(name="diff", status="included", tokens=20, original_tokens=20),
            BudgetPiece(name="function_context", status="clipped", tokens=100,
                        original_tokens=900, note="kept 10 of 90 lines"),
            BudgetPiece(name="previous_version", status="dropped", tokens=0,
                        original_tokens=5000),
        ]),
    }
    base.update(fields)
    return ContextBundle.model_validate(base)


def json_block(markdown: str) -> dict[str, object]:
    match = re.search(r"^```json\n(.*?)\n```$", markdown, re.S | re.M)
    assert match is not None
    data = json.loads(match.group(1))
    assert isinstance(data, dict)
    return data


def fenced_bodies(markdown: str) -> list[tuple[str, str]]:
    """(info string, body) of every top-level fence, read like a CommonMark parser would."""
    out: list[tuple[str, str]] = []
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(`{3,})(.*)$", lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2)
        j = i + 1
        while not re.fullmatch(f"{fence}`*", lines[j]):
            j += 1
        out.append((info, "\n".join(lines[i + 1 : j])))
        i = j + 1
    return out


def test_metadata_block_parses() -> None:
    markdown = render_bundle_markdown(bundle())
    data = json_block(markdown)
    assert data["unit_id"] == "u_123456789abc"
    assert data["final_context_level"] == "function"
    assert data["extra_requests"] == [{"type": "previous_version"},
                                      {"type": "callers", "symbol": "doc"}]
    assert data["meta"] == bundle().meta.model_dump(mode="json")
    assert data["budget"] == {"limit": 6000, "used": 120, "counter": "o200k_base",
                              "clipped": ["function_context"], "dropped": ["previous_version"]}
    assert markdown.startswith("## Unit u_123456789abc: src/a.py:L10-25\n")


def test_only_non_empty_sections_are_rendered() -> None:
    markdown = render_bundle_markdown(bundle())
    headings = re.findall(r"^### (.+)$", markdown, re.M)
    assert headings == ["Diff", "Function context"]
    full = render_bundle_markdown(bundle(
        function_context=None,
        file_context="# src/a.py:L1-40\n   1 | import os",
        previous_version="# src/a.py:L9-12 (function doc, before the change)\n   9 | def doc():",
        callers=[CodeSnippet(file_path="web/app.js", line=3, snippet="   3 | doc()",
                             symbol="doc", kind="callers")],
        search_results=[CodeSnippet(file_path="b.py", line=7, snippet="   7 | doc", kind="search")],
        scanner_issues=[ScannerFinding(tool="ruff", line=11, column=5, severity="error",
                                       rule_id="F821", message="undefined\nname `y`")],
        notes=["callers of 'doc': no call sites found"],
    ))
    assert re.findall(r"^### (.+)$", full, re.M) == [
        "Diff", "File context", "Previous version", "Callers", "Search results",
        "Scanner issues", "Notes"]
    assert "- L11:5 error ruff F821: undefined name `y`" in full
    assert "- callers of 'doc': no call sites found" in full
    fences = dict(fenced_bodies(full))
    assert fences["javascript"] == "   3 | doc()"  # a caller's language is its own file's
    assert "web/app.js:L3 (callers: doc)" in full


def test_fences_survive_code_with_backticks() -> None:
    markdown = render_bundle_markdown(bundle(function_context=TRICKY, previous_version=TRICKY))
    bodies = fenced_bodies(markdown)
    assert [info for info, _ in bodies] == ["json", "diff", "python", "python"]
    assert bodies[2][1] == TRICKY.rstrip("\n")
    assert bodies[3][1] == TRICKY.rstrip("\n")
    assert "`````python\n" in markdown  # longer than the four-backtick run inside
    assert fenced("plain") == "```\nplain\n```"


def test_language_tag_comes_from_meta() -> None:
    meta = bundle().meta.model_copy(update={"language": None, "file_path": "Makefile"})
    markdown = render_bundle_markdown(bundle(meta=meta))
    assert [info for info, _ in fenced_bodies(markdown)] == ["json", "diff", ""]


class _Built:
    """What ``write_bundles`` reads: bundles once, then the allocation."""

    def __init__(self, bundles: list[ContextBundle], allocation: Allocation) -> None:
        self._bundles = bundles
        self.allocation = allocation
        self.iterated = 0

    def __iter__(self) -> Iterator[ContextBundle]:
        self.iterated += 1
        return iter(self._bundles)


def _allocation() -> Allocation:
    return Allocation(
        review_budget=1000, unit_budget=600, batches=1, counter="o200k_base", used=240,
        included=[AllocatedUnit(unit_id="u_123456789abc", risk="high", tokens=120,
                                complete=True, batch=1),
                  AllocatedUnit(unit_id="u_second", risk="low", tokens=120, complete=True,
                                batch=1)],
        deferred=[DeferredUnit(unit_id="u_later", file_path="docs/é.md", location="docs/é.md:L3",
                               risk="low", final_context_level=ContextLevel.DIFF_ONLY,
                               tokens=900, measured=False,
                               reason="over the review budget: needs ~900 tokens (estimated), "
                                      "760 left")],
        by_risk=[RiskAllocation(risk="high", included_units=1, included_tokens=120,
                                complete_units=1),
                 RiskAllocation(risk="low", included_units=1, included_tokens=120,
                                complete_units=1, deferred_units=1, deferred_tokens=900)])


def test_a_bundle_set_streams_as_one_json_document() -> None:
    bundles = [bundle(), bundle(unit_id="u_second", notes=["café"])]
    out = io.StringIO()
    write_bundles(_Built(bundles, _allocation()), "json", out)
    parsed = BundleSet.model_validate_json(out.getvalue())
    assert parsed.bundles == bundles and parsed.allocation == _allocation()
    assert "café" in out.getvalue() and "docs/é.md" in out.getvalue()  # not escaped
    empty = io.StringIO()
    write_bundles(_Built([], _allocation()), "json", empty)
    assert BundleSet.model_validate_json(empty.getvalue()).bundles == []


def test_json_lines_a_record_per_bundle_then_the_allocation() -> None:
    bundles = [bundle(), bundle(unit_id="u_second")]
    out = io.StringIO()
    write_bundles(_Built(bundles, _allocation()), "jsonl", out)
    lines = out.getvalue().splitlines()
    records = [TypeAdapter(BundleLine).validate_json(line) for line in lines]
    assert [r.record for r in records] == ["bundle", "bundle", "allocation"]
    assert [r.bundle for r in records[:2]] == bundles  # type: ignore[union-attr]
    assert records[2].allocation.deferred[0].unit_id == "u_later"  # type: ignore[union-attr]
    assert all(json.loads(line) for line in lines)


def test_markdown_bundles_then_the_allocation_and_the_deferred_units() -> None:
    out = io.StringIO()
    write_bundles(_Built([bundle(), bundle(unit_id="u_second")], _allocation()), "markdown",
                  out)
    markdown = out.getvalue()
    assert markdown.startswith("# Context bundles\n")
    assert markdown.count("## Unit ") == 2
    tail = markdown.split("## Allocation", 1)[1]
    assert "2 units in the review budget of 1,000 tokens" in tail
    assert "| u_later | docs/é.md:L3 | low | diff_only | ~900 | over the review budget" in tail


def test_the_allocation_summary_has_a_row_per_risk_class() -> None:
    summary = allocation_summary(_allocation())
    lines = summary.splitlines()
    assert lines[0].startswith("allocation: 2 units in the review budget of 1,000 tokens "
                               "(240 used, o200k_base, at most 600 per unit); 1 unit deferred")
    assert lines[1].split() == ["risk", "included", "tokens", "complete", "deferred", "would",
                                "need"]
    assert lines[2].split() == ["high", "1", "120", "1", "0", "~0"]
    assert lines[3].split() == ["low", "1", "120", "1", "1", "~900"]
