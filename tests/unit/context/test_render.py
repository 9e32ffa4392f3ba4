"""The JSON+Markdown hybrid: a parseable metadata block, safe fences, no empty sections."""

from __future__ import annotations

import json
import re

from reviewtui.context.render import (
    bundles_json,
    fenced,
    render_bundle_markdown,
    render_bundles_markdown,
)
from reviewtui.models import (
    BudgetAccount,
    BudgetPiece,
    BundleMeta,
    CallersRequest,
    CodeSnippet,
    ContextBundle,
    ContextLevel,
    LineNumbers,
    PreviousVersionRequest,
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


def test_many_bundles_and_json() -> None:
    first = bundle()
    second = bundle(unit_id="u_second")
    markdown = render_bundles_markdown([first, second])
    assert markdown.startswith("# Context bundles\n\n2 units, 240 of 12000 tokens (o200k_base).")
    assert markdown.count("## Unit ") == 2
    assert render_bundles_markdown([]).startswith("# Context bundles")
    data = json.loads(bundles_json([first, second]))
    assert [ContextBundle.model_validate(item) for item in data] == [first, second]
    assert "é" in bundles_json([bundle(notes=["café"])])  # not escaped
