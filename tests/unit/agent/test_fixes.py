"""Structured fixes: checked against the file as reviewed, spliced byte-exactly."""

from __future__ import annotations

from reviewtui.agent.findings import check_findings, findings_schema
from reviewtui.agent.fixes import check_fix, parse_fix, patched, split_lines, unified_diff
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.sessions.review_records import StoredFix
from tests.conftest import GitRepoBuilder

CODE = b"def charge(amount):\n    return amount * 3\n\n\ndef refund(amount):\n    return -amount\n"


def _fix(start: int, end: int, replacement: str) -> StoredFix:
    fix, problem = parse_fix({"start_line": start, "end_line": end, "replacement": replacement})
    assert problem is None and fix is not None
    return fix


def test_split_lines_round_trips() -> None:
    for data in (b"", b"a", b"a\n", b"a\r\nb", b"a\n\nb\n", b"\xe9\r\n\xff"):
        assert b"".join(split_lines(data)) == data
    assert split_lines(b"a\r\nb") == [b"a\r\n", b"b"]


def test_an_applicable_fix_keeps_the_reviewed_lines() -> None:
    fix = check_fix(_fix(2, 2, "    return amount * 2\n"), "pay.py", CODE)
    assert fix.applicable and fix.reason is None
    assert fix.original == ["    return amount * 3"] and len(fix.original_sha) == 64
    assert fix.file_lines == 6
    assert patched(CODE, fix) == CODE.replace(b"* 3", b"* 2")
    assert unified_diff("pay.py", fix) == ("--- a/pay.py\n+++ b/pay.py\n@@ -2,1 +2,1 @@\n"
                                           "-    return amount * 3\n+    return amount * 2\n")


def test_crlf_no_final_newline_and_deletion_are_byte_exact() -> None:
    data = b"a = 1\r\nb = 2\r\nc = 3"
    assert patched(data, check_fix(_fix(3, 3, "c = 4"), "x.py", data)) == b"a = 1\r\nb = 2\r\nc = 4"
    two = check_fix(_fix(2, 2, "b = 5\nb2 = 6\n"), "x.py", data)
    assert patched(data, two) == b"a = 1\r\nb = 5\r\nb2 = 6\r\nc = 3"
    gone = check_fix(_fix(2, 2, ""), "x.py", data)
    assert gone.applicable and patched(data, gone) == b"a = 1\r\nc = 3"
    last = check_fix(_fix(3, 3, "c = 4\nd = 5"), "x.py", data)  # CRLF between, none at the end
    assert last.line_ending == "\r\n" and patched(data, last) == b"a = 1\r\nb = 2\r\nc = 4\r\nd = 5"
    blank = check_fix(_fix(2, 2, "\n"), "x.txt", data)
    assert patched(data, blank) == b"a = 1\r\n\r\nc = 3"
    assert unified_diff("x.py", gone).splitlines()[2] == "@@ -2,1 +1,0 @@"


def test_a_byte_order_mark_stays_first() -> None:
    data = b"\xef\xbb\xbfx = 1\ny = 2\n"
    fix = check_fix(_fix(1, 1, "x = 3\n"), "b.py", data)
    assert fix.applicable and patched(data, fix) == b"\xef\xbb\xbfx = 3\ny = 2\n"
    gone = check_fix(_fix(1, 1, ""), "b.py", data)
    assert patched(data, gone) == b"\xef\xbb\xbfy = 2\n"
    echoed = check_fix(_fix(1, 1, "\ufeffx = 4"), "b.txt", data)  # the model copied it
    assert patched(data, echoed) == b"\xef\xbb\xbfx = 4\ny = 2\n"


def test_a_latin1_file_keeps_its_bytes_and_takes_only_ascii() -> None:
    data = "# caf\xe9\nx = 1\ny = '\xe9'\n".encode("latin-1")
    fix = check_fix(_fix(2, 2, "x = 2"), "l.py", data)
    assert fix.applicable
    assert patched(data, fix) == "# caf\xe9\nx = 2\ny = '\xe9'\n".encode("latin-1")
    wide = check_fix(_fix(2, 2, "x = '\xe9'"), "l.py", data)
    assert not wide.applicable and "not UTF-8" in (wide.reason or "")


def test_fixes_outside_the_file_or_that_break_the_syntax_are_text_only() -> None:
    outside = check_fix(_fix(6, 9, "pass"), "pay.py", CODE)
    assert not outside.applicable and "outside pay.py (6 lines)" in (outside.reason or "")
    broken = check_fix(_fix(2, 2, "    return (amount * 2\n"), "pay.py", CODE)
    assert not broken.applicable and "does not parse as python" in (broken.reason or "")
    plain = check_fix(_fix(2, 2, "    return (amount * 2\n"), "notes.txt", CODE)
    assert plain.applicable  # no grammar: no syntax to judge
    deleted = check_fix(_fix(1, 1, "x"), "gone.py", None)
    assert not deleted.applicable and "no text after the change" in (deleted.reason or "")


def test_parse_fix_rejects_what_is_not_a_fix() -> None:
    assert parse_fix(None) == (None, None)
    assert parse_fix("replace it")[1] == "fix is not an object"
    assert parse_fix({"start_line": 2})[1] == "fix has no replacement"
    assert "start_line" in (parse_fix({"start_line": 0, "replacement": ""})[1] or "")
    # lines 4 to 2: whether it meant 2-4, or 4 alone, is a guess a fix must not make
    assert parse_fix({"start_line": 4, "end_line": 2, "replacement": "x"}) == (
        None, "fix: end_line 2 is before start_line 4")


def test_check_findings_checks_fixes_and_keeps_findings_with_bad_ones(
        repo: GitRepoBuilder) -> None:
    repo.write("pay.py", CODE.decode().replace("* 3", "* 2"))
    repo.commit("base")
    repo.write("pay.py", CODE.decode())
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    lines = CODE.decode().split("\n")

    def line_text(path: str, n: int) -> str | None:
        return lines[n - 1] if path == "pay.py" and n <= len(lines) else None

    base = {"title": "Wrong factor", "severity": "P1", "file_path": "pay.py",
            "start_line": 2, "end_line": 2}
    raw = [{**base, "fix": {"start_line": 2, "end_line": 2,
                            "replacement": "    return amount * 2"}},
           {**base, "title": "Bad fix", "fix": "just change it"},
           {**base, "title": "Far fix", "fix": {"start_line": 40, "end_line": 41,
                                                 "replacement": ""}}]
    kept, dropped = check_findings(raw, loaded.units, line_text,
                                   lambda path: CODE if path == "pay.py" else None)
    by_title = {f.title: f for f in kept}
    assert set(by_title) == {"Wrong factor", "Bad fix", "Far fix"}
    good = by_title["Wrong factor"].fix
    assert good is not None and good.applicable
    assert by_title["Bad fix"].fix is None
    assert any("Bad fix" in d and "fix is not an object" in d for d in dropped)
    far = by_title["Far fix"].fix
    assert far is not None and not far.applicable and far.replacement == ""
    assert "fix" in raw[0]  # the agent's answer is not modified
    # the contract the model is held to names the fix and its fields
    item = findings_schema()["properties"]["findings"]["items"]
    assert item["properties"]["fix"]["required"] == ["start_line", "end_line", "replacement"]
