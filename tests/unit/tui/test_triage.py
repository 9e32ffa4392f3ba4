"""The triage view model without an App: filter, sort, statuses, overrides, file jumps."""

from __future__ import annotations

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import CallersRequest, ContextLevel, PreviousVersionRequest
from reviewtui.pipeline import load_change
from reviewtui.sessions.marks import ReviewMark
from reviewtui.tui.triage import Filter, Triage
from reviewtui.units.model import unit_key
from tests.conftest import GitRepoBuilder


def _triage(repo: GitRepoBuilder) -> Triage:
    repo.write("app/auth.py", "def login(u):\n    return u.ok\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b\n" + "\n" * 30
               + "def sub(a, b):\n    return a - b\n")
    repo.write("README.md", "# t\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(u):\n    return u.ok and u.active\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b + 0\n" + "\n" * 30
               + "def sub(a, b):\n    return a - b - 0\n")
    repo.write("README.md", "# t\n\n<!-- c -->\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    return Triage(loaded.units, loaded.plan(use_llm=False))


def test_filter_terms(repo: GitRepoBuilder) -> None:
    triage = _triage(repo)
    assert len(triage.rows()) == 4
    assert {r.unit.file_path for r in triage.rows(Filter.parse("util"))} == {"app/util.py"}
    high = triage.rows(Filter.parse("risk:high"))
    assert [r.unit.file_path for r in high] == ["app/auth.py"]
    assert all("security_sensitive" in r.unit.tags
               for r in triage.rows(Filter.parse("tag:security")))
    assert triage.rows(Filter.parse("status:reviewed")) == []
    assert Filter.parse("").empty and not Filter.parse("x").empty


def test_levels_skip_requests_and_provenance(repo: GitRepoBuilder) -> None:
    triage = _triage(repo)
    uid = next(u.unit_id for u in triage.units if u.file_path == "app/util.py")
    fused = triage.item(uid).final_context_level
    triage.set_level(uid, ContextLevel.FULL_FILE)
    assert triage.item(uid).final_context_level is ContextLevel.FULL_FILE
    assert triage.item(uid).provenance.level == "user"
    triage.set_level(uid, fused)  # back to the fused level: the override is gone
    assert uid not in triage.overrides.units
    assert triage.item(uid).provenance.level != "user"
    # the level it has, pressed with no decision of the person's: confirmed as theirs (a later
    # plan cannot move it, the evidence log hears the agreement); pressed again: taken back
    triage.set_level(uid, fused)
    assert triage.overrides.units[uid].level is fused
    assert triage.item(uid).provenance.level == "user"
    triage.set_level(uid, fused)
    assert uid not in triage.overrides.units
    assert triage.shift_level(uid, 1).rank == fused.rank + 1
    assert triage.shift_level(uid, -1) is fused and uid not in triage.overrides.units
    assert triage.shift_level(uid, 9) is ContextLevel.FULL_FILE
    triage.set_level(uid, fused)
    triage.set_level(uid, ContextLevel.DIFF_ONLY)
    assert triage.shift_level(uid, -1) is ContextLevel.DIFF_ONLY  # at the end: no change
    assert triage.overrides.units[uid].level is ContextLevel.DIFF_ONLY
    assert triage.toggle_skip(uid) is True and triage.row(uid).status == "skipped"
    assert triage.toggle_skip(uid) is False and triage.item(uid).provenance.skip != "user"
    triage.set_requests(uid, [CallersRequest(symbol="add"), PreviousVersionRequest()])
    assert [r.type for r in triage.item(uid).extra_requests] == ["callers", "previous_version"]
    triage.set_requests(uid, [])
    assert triage.item(uid).extra_requests == []


def test_reviewed_marks_follow_the_content(repo: GitRepoBuilder) -> None:
    triage = _triage(repo)
    uid = next(u.unit_id for u in triage.units if u.file_path == "app/auth.py")
    assert triage.row(uid).status == "new"
    assert triage.toggle_reviewed(uid) is True and triage.row(uid).status == "reviewed"
    unit = triage.by_id[uid]
    # Its function reviewed with other content (the unit changed after review): "changed".
    triage.toggle_reviewed(uid)
    old = ReviewMark(unit.file_path, "c_oldcontent", unit_key(unit), "u_oldcontent", 1, 2)
    triage.marks.by_key[old.key] = old
    triage = Triage(triage.units, triage.plan, marks=triage.marks)
    assert triage.row(uid).status == "changed"


def test_sort_by_risk_and_file_jumps(repo: GitRepoBuilder) -> None:
    triage = _triage(repo)
    triage.sort_key = "risk"
    rows = triage.rows()
    assert rows[0].unit.file_path == "app/auth.py"
    triage.sort_key = "file"
    rows = triage.rows()
    files = [r.unit.file_path for r in rows]
    start = files.index("app/util.py")
    after = triage.next_file_row(rows, start, 1)
    assert files[after] != "app/util.py" or after == start
    back = triage.next_file_row(rows, len(rows) - 1, -1)
    assert files[back] != files[-1] and (back == 0 or files[back - 1] != files[back])


def test_why_is_worded_when_shown_not_for_every_row(repo: GitRepoBuilder) -> None:
    """The priority's reasons (the learned part's lines) are counted for the row the detail
    pane shows, once, and are the change's own reasons."""
    base = _triage(repo)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO)).with_reach()
    asked: list[str] = []

    def reasons(unit_id: str) -> tuple[str, ...]:
        asked.append(unit_id)
        return loaded.priority_reasons(unit_id)

    triage = Triage(loaded.units, base.plan, reasons=reasons)
    rows = triage.rows()
    assert len(rows) == 4 and asked == []  # the table's rows word nothing
    first = rows[0]
    assert first.why == loaded.priority_reasons(first.unit.unit_id) and first.why
    assert first.why is first.why and asked == [first.unit.unit_id]  # once a row
    assert Triage(loaded.units, base.plan).row(first.unit.unit_id).why == ()


def test_filter_terms_no_unit_can_match_are_named_with_what_they_take() -> None:
    assert Filter.parse("risk:high,medium level:file sev:major status:dismissed app").unknown(
        ) == []
    assert Filter.parse("risk:bogus sev:zz level:huge status:done").unknown() == [
        "risk:bogus (risk is critical, high, medium, low)",
        "status:done (status is new, reviewed, skipped, changed, open, accepted, dismissed, "
        "fixed, gone)",
        "sev:zz (sev is p0, p1, p2, p3)",
        "level:huge (level is diff_only, function, file_context, full_file)"]


def test_a_finding_on_removed_lines_is_filed_and_marked_by_its_old_numbers(
        repo: GitRepoBuilder) -> None:
    from reviewtui.sessions.review_records import StoredFinding
    from reviewtui.tui.render_review import finding_diff_lines

    repo.write("app/gate.py", "def gate(u):\n    check(u)\n    audit(u)\n    return u\n")
    repo.commit("base")
    repo.write("app/gate.py", "def gate(u):\n    return u\n")  # old lines 2-3 removed
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    triage = Triage(loaded.units, loaded.plan(use_llm=False))
    [unit] = loaded.units
    old = StoredFinding(fingerprint="f", title="Check removed", file_path="app/gate.py",
                        side="old", start_line=3, end_line=3, unit_id="elsewhere")
    triage.set_review([old], [])
    assert triage.row(unit.unit_id).review == (old,)  # covered on the old side
    rows = unit.diff_text(numbered=False).split("\n")
    assert [rows[n - 1] for n in sorted(finding_diff_lines(unit, [old]))] == ["-    audit(u)"]
    new = old.model_copy(update={"side": "new", "start_line": 2, "end_line": 2})
    assert [rows[n - 1] for n in sorted(finding_diff_lines(unit, [new]))] == ["     return u"]
