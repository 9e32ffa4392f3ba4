"""Findings are checked against the change; Markdown, JSON and SARIF renderings."""

from __future__ import annotations

import json
from collections.abc import Callable

from reviewtui.agent.findings import ReviewResult, check_findings, fingerprint
from reviewtui.agent.report import render
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.units.model import ReviewUnit
from tests.conftest import GitRepoBuilder

CODE = "def charge(amount):\n    return amount * 2\n\n\ndef refund(amount):\n    return -amount\n"


def _units(repo: GitRepoBuilder, code: str = CODE) -> tuple[list[ReviewUnit],
                                                             dict[str, list[str]]]:
    repo.write("pay.py", CODE)
    repo.commit("base")
    repo.write("pay.py", code.replace("amount * 2", "amount * 3"))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    text = (repo.root / "pay.py").read_text().split("\n")
    return loaded.units, {"pay.py": text}


def _lines(files: dict[str, list[str]]) -> Callable[[str, int], str | None]:
    return lambda path, n: files[path][n - 1] if path in files and n <= len(files[path]) else None


def test_findings_must_sit_on_the_change(repo: GitRepoBuilder) -> None:
    units, files = _units(repo)
    raw = [
        {"title": "Wrong factor", "body": "3 is not the rate", "severity": "major",
         "confidence": 0.9, "file_path": "pay.py", "start_line": 2, "end_line": 2},
        {"title": "Elsewhere", "body": "", "severity": "P3", "confidence": 0.2,
         "file_path": "pay.py", "start_line": 6, "end_line": 6},
        {"title": "Other file", "severity": "P1", "file_path": "nope.py", "start_line": 1,
         "end_line": 1},
        {"severity": "P1"},
    ]
    kept, dropped = check_findings(raw, units, _lines(files))
    assert [f.title for f in kept] == ["Wrong factor"]
    assert kept[0].severity == "P1" and kept[0].unit_id == units[0].unit_id
    assert len(kept[0].fingerprint) == 32
    assert len(dropped) == 3
    assert any("not on a changed line" in d and "Elsewhere" in d for d in dropped)
    assert any("malformed" in d for d in dropped)


def test_a_finding_said_twice_is_one_finding(repo: GitRepoBuilder) -> None:
    # a batched review's parts may repeat a finding: counted twice, the workbench said
    # "18 findings (18 new)" where the session kept 3
    units, files = _units(repo)
    said = {"title": "Wrong factor", "body": "3 is not the rate", "file_path": "pay.py",
            "start_line": 2, "end_line": 2}
    raw = [{**said, "severity": "P2", "confidence": 0.6},
           {**said, "title": "wrong  factor", "severity": "P1", "confidence": 0.5,
            "fix": {"start_line": 2, "end_line": 2,
                    "replacement": "    return amount * 2\n"}},
           {**said, "title": "Another thing", "severity": "P3", "confidence": 0.4}]
    kept, dropped = check_findings(raw, units, _lines(files))
    assert [f.title for f in kept] == ["wrong  factor", "Another thing"]
    assert kept[0].severity == "P1"  # the more severe of the two
    assert kept[0].fix is not None and kept[0].fix.replacement == "    return amount * 2\n"
    first_with_fix = check_findings(list(reversed(raw[:2])), units, _lines(files))[0]
    assert len(first_with_fix) == 1 and first_with_fix[0].fix is not None
    assert dropped == []


def test_a_context_line_is_not_a_changed_line(repo: GitRepoBuilder) -> None:
    units, files = _units(repo)  # only line 2 changed; the diff shows lines 1-5 around it
    base = {"body": "", "severity": "P2", "confidence": 0.5, "file_path": "pay.py"}
    raw = [{**base, "title": "On the def above", "start_line": 1, "end_line": 1},
           {**base, "title": "On the blank lines below", "start_line": 3, "end_line": 5},
           {**base, "title": "Spans the change", "start_line": 1, "end_line": 3}]
    kept, dropped = check_findings(raw, units, _lines(files))
    assert [f.title for f in kept] == ["Spans the change"]
    assert [d.split("'")[1] for d in dropped] == ["On the def above",
                                                  "On the blank lines below"]
    assert all("not on a changed line" in d for d in dropped)


def test_a_title_over_200_characters_is_cut_not_dropped(repo: GitRepoBuilder) -> None:
    units, files = _units(repo)
    raw = [{"title": "T" * 150 + " " + "word " * 20, "body": "b", "severity": "P1",
            "confidence": 0.9, "file_path": "pay.py", "start_line": 2, "end_line": 2}]
    kept, dropped = check_findings(raw, units, _lines(files))
    assert dropped == []
    [finding] = kept
    assert len(finding.title) == 200 and finding.title.endswith("…")
    assert finding.title.startswith("T" * 150 + " word")


def test_removed_lines_are_the_old_side(repo: GitRepoBuilder) -> None:
    repo.write("pay.py", CODE + "\n\ndef audit(amount):\n    log(amount)\n    return amount\n")
    repo.commit("base")
    repo.write("pay.py", CODE.replace("amount * 2", "amount * 3"))  # audit (old 9-11) removed
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    new = (repo.root / "pay.py").read_text().split("\n")
    old = repo.git("show", "HEAD:pay.py").split("\n")
    base = {"body": "", "severity": "P2", "confidence": 0.5, "file_path": "pay.py"}
    raw = [{**base, "title": "Audit log gone", "start_line": 9, "end_line": 10},
           {**base, "title": "Wrong factor", "start_line": 2, "end_line": 2}]
    kept, dropped = check_findings(raw, loaded.units, _lines({"pay.py": new}),
                                   old_text=_lines({"pay.py": old}))
    assert dropped == []
    sides = {f.title: f.side for f in kept}
    assert sides == {"Audit log gone": "old", "Wrong factor": "new"}
    audit = next(f for f in kept if f.side == "old")
    said = audit.model_copy(update={"fingerprint": ""})
    assert audit.fingerprint == fingerprint(said, _lines({"pay.py": old}))
    assert audit.fingerprint != fingerprint(said, _lines({"pay.py": new}))
    # the model's own "side" or "fingerprint" is not taken, nor a reason to drop the finding
    (again,), _ = check_findings([{**raw[0], "side": "LEFT", "fingerprint": 3}],
                                 loaded.units, _lines({"pay.py": new}),
                                 old_text=_lines({"pay.py": old}))
    assert again.side == "old" and again.fingerprint == audit.fingerprint


def test_fingerprints_survive_line_moves(make_repo: type[GitRepoBuilder]) -> None:
    finding = {"title": "Wrong factor", "body": "", "severity": "P1", "confidence": 0.9,
               "file_path": "pay.py", "start_line": 2, "end_line": 2}
    units, files = _units(make_repo())
    (first,), _ = check_findings([finding], units, _lines(files))
    units2, files2 = _units(make_repo(), "# header\n\n" + CODE)
    moved = {**finding, "start_line": 4, "end_line": 4}
    (second,), _ = check_findings([moved], units2, _lines(files2))
    assert first.fingerprint == second.fingerprint


def test_sarif_markdown_and_json(repo: GitRepoBuilder) -> None:
    units, files = _units(repo)
    kept, dropped = check_findings(
        [{"title": "Wrong factor", "body": "3 is not the rate", "severity": "P0",
          "confidence": 0.9, "file_path": "pay.py", "start_line": 2, "end_line": 2,
          "suggestion": "use RATE"},
         {"title": "Name", "body": "b", "severity": "P3", "confidence": 0.3,
          "file_path": "pay.py", "start_line": 2, "end_line": 2}], units, _lines(files))
    result = ReviewResult(verdict="request_changes", summary="One real bug.", findings=kept,
                          model="m", units_reviewed=1, dropped=dropped)
    sarif = json.loads(render(result, "sarif"))
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("/sarif-schema-2.1.0.json")
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "reviewtui"
    levels = [r["level"] for r in run["results"]]
    assert levels == ["error", "note"]
    location = run["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "pay.py"
    assert location["region"] == {"startLine": 2, "endLine": 2}
    assert run["results"][0]["partialFingerprints"]["reviewtuiFinding/v1"] == kept[0].fingerprint
    rule_ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert {r["ruleId"] for r in run["results"]} <= rule_ids
    markdown = render(result, "markdown")
    assert markdown.startswith("# Review: Request changes")
    assert "[P0 critical] Wrong factor" in markdown and "`pay.py:2`" in markdown
    assert "use RATE" in markdown
    data = json.loads(render(result, "json"))
    assert data["findings"][0]["unit_id"] == units[0].unit_id
