"""From finding to fix, headless: ``reviewtui findings``, ``findings apply ID [--dry-run]`` and
``findings undo``, byte-exact, and every refusal (moved on, outside the file, links out of the
repository, read-only files) is one line and exit status 2 with nothing written."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import stat
from pathlib import Path
from typing import Any

import pytest

from reviewtui.app.fix import preview_fix, target_path
from reviewtui.errors import FixError
from reviewtui.sessions import SessionStore
from tests.cli.conftest import CliRunner, Result
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

SERVICE = ("def charge(amount):\n    total = amount * 3\n    return total\n\n\n"
           "def refund(amount):\n    return -amount\n")
FIX = {"start_line": 2, "end_line": 2, "replacement": "    total = amount * 2  # agreed rate\n"}
FIXED = SERVICE.replace("amount * 3", "amount * 2  # agreed rate").encode()
READ_ONLY_TOOLS = {"read_file_hunk", "search_in_project", "list_project_files",
                   "get_dependencies", "get_scanner_issues", "get_unit", "get_bundle",
                   "get_tool_result"}


def _answer(path: str = "app/service.py", line: int = 2, fix: Any = FIX,
            title: str = "Charge rate tripled") -> dict[str, Any]:
    return {"verdict": "request_changes", "summary": "The rate changed.", "findings": [
        {"title": title, "body": "pay() now charges 30, not 20.", "severity": "P1",
         "confidence": 0.9, "file_path": path, "start_line": line, "end_line": line,
         "fix": fix}]}


def _reviewed(repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer,
              before: bytes, after: bytes, answer: dict[str, Any],
              path: str = "app/service.py") -> dict[str, Any]:
    """Commit ``before``, leave ``after`` in the working tree, review it; the one finding."""
    repo.write(path, before)
    repo.commit("base")
    repo.write(path, after)
    fake_llm.script(Reply.json(answer))
    review = cli("review", "--rules-plan", repo.root)
    assert review.code == 0, review.err
    listed = cli("findings", "--json", repo.root)
    assert listed.code == 0, listed.err
    [finding] = listed.json()["findings"]
    return dict(finding)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused(result: Result, words: str) -> None:
    assert result.code == 2, (result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reviewtui: error:") and words in lines[0], \
        result.err


def test_preview_apply_undo_is_byte_exact(repo: GitRepoBuilder, cli: CliRunner,
                                          fake_llm: ScriptedOpenAIServer) -> None:
    before = SERVICE.replace("amount * 3", "amount * 2").encode()
    finding = _reviewed(repo, cli, fake_llm, before, SERVICE.encode(), _answer())
    # the agent was offered its read-only tools, and nothing that writes
    offered = {tool["function"]["name"] for request in fake_llm.chat_requests
               for tool in (request.body or {}).get("tools", [])}
    assert offered and offered <= READ_ONLY_TOOLS
    assert "replacement" in fake_llm.chat_requests[0].body["messages"][0]["content"]

    ident = finding["id"]
    assert finding["fix"]["applicable"] and finding["fix"]["original"] == ["    total = amount * 3"]
    table = cli("findings", repo.root)
    assert f"{ident}  open" in table.out and "fix: fix" in table.out, table.out

    target = repo.root / "app/service.py"
    edited = target.read_bytes()
    dry = cli("findings", "apply", ident[:6], "--dry-run", repo.root)
    assert dry.code == 0, dry.err
    assert dry.out == ("--- a/app/service.py\n+++ b/app/service.py\n@@ -2,1 +2,1 @@\n"
                       "-    total = amount * 3\n+    total = amount * 2  # agreed rate\n")
    assert "dry run" in dry.err and target.read_bytes() == edited

    applied = cli("findings", "apply", ident, repo.root)
    assert applied.code == 0, applied.err
    assert target.read_bytes() == FIXED
    assert "now fixed" in applied.err
    # the command it names takes the fix back as it is printed (same change, same repository)
    hint = re.search(r"\('(reviewtui findings undo [^']+)' takes it back\)", applied.err)
    assert hint is not None and shlex.split(hint.group(1))[3:] == [ident, str(repo.root)]
    after = cli("findings", "--json", repo.root).json()["findings"][0]
    assert after["state"] == "fixed" and after["fix_applied"] is True

    _refused(cli("findings", "apply", ident, repo.root), "is already applied")
    asked = len(fake_llm.chat_requests)
    # another fix would take the applied one's place (shown as applied, never written)
    _refused(cli("findings", "fix", ident, repo.root), "fix is applied: undo it first")
    assert len(fake_llm.chat_requests) == asked  # nothing asked of the model
    dry_again = cli("findings", "apply", ident, "--dry-run", repo.root)
    _refused(dry_again, "the working tree moved on")  # its lines are not the reviewed ones
    undone = cli("findings", "undo", ident, repo.root)
    assert undone.code == 0, undone.err
    assert target.read_bytes() == edited
    state = cli("findings", "--json", repo.root).json()["findings"][0]
    assert state["state"] == "open" and state["fix_applied"] is False
    _refused(cli("findings", "undo", ident, repo.root), "no applied fix to undo")


@pytest.mark.parametrize(("before", "after", "expected"), [
    # CRLF line endings and no newline at the end of the file
    (b"rate = 1\r\nlimit = 5\r\nname = 'x'", b"rate = 3\r\nlimit = 5\r\nname = 'x'",
     b"rate = 2\r\nlimit = 5\r\nname = 'x'"),
    # a Latin-1 file (not UTF-8): the bytes around the fix stay as they were
    ("rate = 1\n# caf\xe9\nname = '\xe9'\n".encode("latin-1"),
     "rate = 3\n# caf\xe9\nname = '\xe9'\n".encode("latin-1"),
     "rate = 2\n# caf\xe9\nname = '\xe9'\n".encode("latin-1")),
])
def test_line_endings_and_encodings_survive(repo: GitRepoBuilder, cli: CliRunner,
                                            fake_llm: ScriptedOpenAIServer, before: bytes,
                                            after: bytes, expected: bytes) -> None:
    path = "conf/settings.py"
    finding = _reviewed(repo, cli, fake_llm, before, after, _answer(
        path, 1, {"start_line": 1, "end_line": 1, "replacement": "rate = 2"}), path)
    assert finding["fix"]["applicable"], finding["fix"]
    target = repo.root / path
    assert cli("findings", "apply", finding["id"], repo.root).code == 0
    assert target.read_bytes() == expected
    assert cli("findings", "undo", finding["id"], repo.root).code == 0
    assert target.read_bytes() == after


def test_a_working_tree_that_moved_on_is_refused(repo: GitRepoBuilder, cli: CliRunner,
                                                  fake_llm: ScriptedOpenAIServer) -> None:
    finding = _reviewed(repo, cli, fake_llm, SERVICE.replace("* 3", "* 2").encode(),
                        SERVICE.encode(), _answer())
    target = repo.root / "app/service.py"
    # the reviewed line 2 is now line 3 and edited: not the reviewed line, anywhere
    target.write_text("# a header line\n" + SERVICE.replace("* 3", "* 3  # on purpose"))
    moved = target.read_bytes()
    dry = cli("findings", "apply", finding["id"], "--dry-run", repo.root)
    _refused(dry, "the working tree moved on")
    assert dry.out.startswith("--- a/app/service.py")  # the patch, to apply by hand
    _refused(cli("findings", "apply", finding["id"], repo.root), "moved on")
    assert target.read_bytes() == moved


def test_a_fix_outside_the_file_is_kept_as_text_only(repo: GitRepoBuilder, cli: CliRunner,
                                                     fake_llm: ScriptedOpenAIServer) -> None:
    finding = _reviewed(repo, cli, fake_llm, SERVICE.replace("* 3", "* 2").encode(),
                        SERVICE.encode(), _answer(fix={"start_line": 6, "end_line": 40,
                                                       "replacement": "pass"}))
    fix = finding["fix"]
    assert fix["applicable"] is False and "outside app/service.py (7 lines)" in fix["reason"]
    assert "text only" in cli("findings", repo.root).out
    before = _sha(repo.root / "app/service.py")
    _refused(cli("findings", "apply", finding["id"], repo.root), "text only: lines 6-40")
    assert _sha(repo.root / "app/service.py") == before


def test_a_fix_that_breaks_the_syntax_is_text_only(repo: GitRepoBuilder, cli: CliRunner,
                                                   fake_llm: ScriptedOpenAIServer) -> None:
    finding = _reviewed(repo, cli, fake_llm, SERVICE.replace("* 3", "* 2").encode(),
                        SERVICE.encode(), _answer(fix={"start_line": 2, "end_line": 2,
                                                       "replacement": "    total = (amount"}))
    assert "does not parse as python" in finding["fix"]["reason"]


def test_links_out_of_the_repository_are_refused(repo: GitRepoBuilder, cli: CliRunner,
                                                 fake_llm: ScriptedOpenAIServer,
                                                 tmp_path: Path) -> None:
    finding = _reviewed(repo, cli, fake_llm, SERVICE.replace("* 3", "* 2").encode(),
                        SERVICE.encode(), _answer())
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "service.py").write_text(SERVICE)  # the very lines reviewed
    target = repo.root / "app/service.py"

    target.unlink()
    target.symlink_to(outside / "service.py")  # the file itself a link out
    with SessionStore() as store:  # the use case itself
        [stored] = store.findings(store.list_sessions()[0].session_id)
    with pytest.raises(FixError, match="is a symbolic link"):
        preview_fix(repo.root, stored)
    # and the command line (git reports a type change: the change still loads)
    for args in (("--dry-run",), ()):
        _refused(cli("findings", "apply", finding["id"], *args, repo.root),
                 "app/service.py is a symbolic link")
    assert (outside / "service.py").read_text() == SERVICE
    assert target.is_symlink() and sorted(p.name for p in outside.iterdir()) == ["service.py"]

    target.unlink()
    (repo.root / "app").rmdir()
    (repo.root / "app").symlink_to(outside)  # a folder on the way is a link out
    _refused(cli("findings", "apply", finding["id"], repo.root), "link out of the repository")
    assert (outside / "service.py").read_text() == SERVICE


def test_paths_that_leave_the_repository_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("x")
    for path in ("../escape.py", "/etc/passwd", ".git/config", "a/../../x", "vendor/.git/HEAD",
                 ""):
        with pytest.raises(FixError, match="not a path inside the repository"):
            target_path(root, path)


def test_a_read_only_file_is_refused(repo: GitRepoBuilder, cli: CliRunner,
                                     fake_llm: ScriptedOpenAIServer) -> None:
    finding = _reviewed(repo, cli, fake_llm, SERVICE.replace("* 3", "* 2").encode(),
                        SERVICE.encode(), _answer())
    target = repo.root / "app/service.py"
    target.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)  # as root, still writable: refused
    try:
        _refused(cli("findings", "apply", finding["id"], repo.root), "is read-only")
        assert target.read_text() == SERVICE
    finally:
        target.chmod(0o644)


def test_undo_never_overwrites_a_later_edit(repo: GitRepoBuilder, cli: CliRunner,
                                            fake_llm: ScriptedOpenAIServer) -> None:
    finding = _reviewed(repo, cli, fake_llm, SERVICE.replace("* 3", "* 2").encode(),
                        SERVICE.encode(), _answer())
    target = repo.root / "app/service.py"
    assert cli("findings", "apply", finding["id"], repo.root).code == 0
    target.write_text(target.read_text() + "# edited by hand\n")
    edited = target.read_bytes()
    _refused(cli("findings", "undo", finding["id"], repo.root),
             "changed since the fix was applied")
    assert target.read_bytes() == edited


def test_bad_ids_and_no_review_are_one_line(repo: GitRepoBuilder, cli: CliRunner) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    repo.write("a.py", "x = 2\n")
    _refused(cli("findings", "apply", "abc", repo.root), "no review kept for this change")
    listed = cli("findings", "--json", repo.root)
    assert listed.code == 0 and json.loads(listed.out) == {"session_id": None, "findings": []}
    with SessionStore() as store:  # a session with no such finding
        store.session_for_change(str(repo.root.resolve()), _change_key(repo), "t")
    _refused(cli("findings", "apply", "abc", repo.root), "no finding 'abc'")
    assert sorted(p.name for p in repo.root.iterdir()) == [".git", "a.py"]  # nothing written


def _change_key(repo: GitRepoBuilder) -> str:
    from reviewtui.git import ChangeSelector, SelectorMode
    from reviewtui.pipeline import load_change

    return load_change(repo.root, ChangeSelector(SelectorMode.AUTO)).change_set.key


def test_asking_the_model_for_a_fix(repo: GitRepoBuilder, cli: CliRunner,
                                    fake_llm: ScriptedOpenAIServer) -> None:
    finding = _reviewed(repo, cli, fake_llm, SERVICE.replace("* 3", "* 2").encode(),
                        SERVICE.encode(), _answer(fix=None))
    assert finding["fix"] is None
    _refused(cli("findings", "apply", finding["id"], repo.root),
             f"has no fix (ask the model for one: 'reviewtui findings fix {finding['id']}'")
    fake_llm.clear_requests()
    fake_llm.script(
        Reply.tool_calls([{"name": "read_file_hunk",
                           "arguments": {"path": "app/service.py", "start": 1, "end": 3}}]),
        Reply.json({"fix": FIX, "explanation": "Back to the agreed rate."}))
    asked = cli("findings", "fix", finding["id"], repo.root)
    assert asked.code == 0, asked.err
    assert asked.out.startswith("--- a/app/service.py") and "+    total = amount * 2" in asked.out
    assert "applies with 'reviewtui findings apply" in asked.err
    assert "Back to the agreed rate." in asked.err
    first = fake_llm.chat_requests[0].body
    assert "Charge rate tripled" in first["messages"][1]["content"]
    assert "    2 |     total = amount * 3" in first["messages"][1]["content"]
    offered = {tool["function"]["name"] for tool in first["tools"]}
    assert offered and offered <= READ_ONLY_TOOLS  # the model proposes; it cannot write
    target = repo.root / "app/service.py"
    assert target.read_text() == SERVICE  # asking writes nothing

    stored = cli("findings", "--json", repo.root).json()["findings"][0]
    assert stored["state"] == "open" and stored["fix"]["applicable"]
    # The model's word on the fix is kept with it (it was printed once, then lost): a later
    # dry run and an export say it again.
    assert stored["fix"]["explanation"] == "Back to the agreed rate."
    dry = cli("findings", "apply", "--dry-run", finding["id"], repo.root)
    assert dry.code == 0 and "(Back to the agreed rate.)" in dry.err
    exported = cli("export", "--format", "markdown", "-o", "-", repo.root)
    assert exported.code == 0, exported.err
    assert "Why: Back to the agreed rate." in exported.out
    assert cli("findings", "apply", finding["id"], repo.root).code == 0
    assert target.read_bytes() == FIXED
    assert cli("findings", "undo", finding["id"], repo.root).code == 0  # to ask again

    fake_llm.script(Reply.json({"fix": None, "explanation": "The rate is a business call."}))
    _refused(cli("findings", "fix", finding["id"], repo.root),
             "proposed no fix: The rate is a business call.")


def test_a_fix_asked_for_survives_the_next_review(repo: GitRepoBuilder, cli: CliRunner,
                                                  fake_llm: ScriptedOpenAIServer) -> None:
    finding = _reviewed(repo, cli, fake_llm, SERVICE.replace("* 3", "* 2").encode(),
                        SERVICE.encode(), _answer(fix=None))
    fake_llm.script(Reply.json({"fix": FIX, "explanation": "x"}))
    assert cli("findings", "fix", finding["id"], repo.root).code == 0
    fake_llm.script(Reply.json(_answer(fix=None)))  # the same finding, found again, no fix
    assert cli("review", "--rules-plan", repo.root).code == 0
    [again] = cli("findings", "--json", repo.root).json()["findings"]
    assert again["fingerprint"] == finding["fingerprint"]
    assert again["fix"]["replacement"] == FIX["replacement"]
    other = {"start_line": 2, "end_line": 2, "replacement": "    total = amount\n"}
    fake_llm.script(Reply.json(_answer(fix=other)))  # a review's own fix replaces it
    assert cli("review", "--rules-plan", repo.root).code == 0
    [third] = cli("findings", "--json", repo.root).json()["findings"]
    assert third["fix"]["replacement"] == other["replacement"]


def test_a_commit_review_applies_only_where_the_tree_still_has_its_lines(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    repo.write("app/service.py", SERVICE.replace("* 3", "* 2"))
    repo.commit("base")
    repo.write("app/service.py", SERVICE)
    reviewed = repo.commit("triple the rate")
    fake_llm.script(Reply.json(_answer()))
    assert cli("review", "--rules-plan", "--commit", reviewed, repo.root).code == 0
    [finding] = cli("findings", "--json", "--commit", reviewed, repo.root).json()["findings"]
    target = repo.root / "app/service.py"
    # a later commit moved the line: the commit's after side is no longer what is on disk
    repo.write("app/service.py", "# moved\n" + SERVICE)
    repo.commit("a header")
    moved = target.read_bytes()
    _refused(cli("findings", "apply", finding["id"], "--commit", reviewed, repo.root),
             "the working tree moved on")
    assert target.read_bytes() == moved
    repo.git("revert", "--no-edit", "HEAD")  # the reviewed lines are back where they were
    applied = cli("findings", "apply", finding["id"], "--commit", reviewed, repo.root)
    assert applied.code == 0, applied.err
    assert target.read_bytes() == FIXED


def test_a_commit_checked_out_with_crlf_line_endings_still_holds_its_lines(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """``text eol=crlf`` (or core.autocrlf) checks the commit's LF lines out as CRLF: they are
    the reviewed lines, not a working tree that moved on; the fix keeps the file's CRLF."""
    repo.write(".gitattributes", "*.py text eol=crlf\n")
    repo.write("app/service.py", SERVICE.replace("* 3", "* 2"))
    repo.commit("base")
    repo.write("app/service.py", SERVICE)
    reviewed = repo.commit("triple the rate")
    target = repo.root / "app/service.py"
    target.unlink()
    repo.git("checkout", "--", "app/service.py")
    checked_out = target.read_bytes()
    assert checked_out == SERVICE.replace("\n", "\r\n").encode()
    assert repo.git("status", "--porcelain") == ""
    fake_llm.script(Reply.json(_answer()))
    assert cli("review", "--rules-plan", "--commit", reviewed, repo.root).code == 0
    [finding] = cli("findings", "--json", "--commit", reviewed, repo.root).json()["findings"]
    applied = cli("findings", "apply", finding["id"], "--commit", reviewed, repo.root)
    assert applied.code == 0, applied.err
    assert target.read_bytes() == FIXED.replace(b"\n", b"\r\n")
    undone = cli("findings", "undo", finding["id"], "--commit", reviewed, repo.root)
    assert undone.code == 0, undone.err
    assert target.read_bytes() == checked_out


def _undo_hint(applied: Result) -> list[str]:
    hint = re.search(r"\('(reviewtui findings undo [^']+)' takes it back\)", applied.err)
    assert hint is not None, applied.err
    return shlex.split(hint.group(1))[1:]


def test_a_fix_that_makes_the_tree_dirty_leaves_the_branchs_review_in_reach(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """A branch reviewed with nothing pending (the default selector: the branch against its
    merge base); applying a fix leaves a pending change, which the default selector names
    from then on: 'findings' said "no review kept", and the undo command apply printed
    failed the same way."""
    repo.write("app/service.py", SERVICE.replace("* 3", "* 2"))
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("app/service.py", SERVICE)
    repo.commit("Triple the rate")
    fake_llm.script(Reply.json(_answer()))
    assert cli("review", "--rules-plan", repo.root).code == 0
    [finding] = cli("findings", "--json", repo.root).json()["findings"]
    applied = cli("findings", "apply", finding["id"], repo.root)
    assert applied.code == 0, applied.err
    target = repo.root / "app/service.py"
    assert target.read_bytes() == FIXED

    listed = cli("findings", "--json", repo.root)
    assert listed.code == 0, listed.err
    [after] = listed.json()["findings"]
    assert after["state"] == "fixed" and after["fix_applied"] is True
    assert "the review of" in listed.err
    undone = cli(*_undo_hint(applied))
    assert undone.code == 0, undone.err
    assert target.read_bytes() == SERVICE.encode()


def test_a_fix_that_leaves_nothing_pending_can_still_be_undone(
        repo: GitRepoBuilder, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """The pending changes reviewed, and the fix puts the file back as committed: nothing is
    pending, and the default selector named the last commit instead."""
    fix = dict(FIX, replacement="    total = amount * 2\n")
    finding = _reviewed(repo, cli, fake_llm, SERVICE.replace("* 3", "* 2").encode(),
                        SERVICE.encode(), _answer(fix=fix))
    applied = cli("findings", "apply", finding["id"], repo.root)
    assert applied.code == 0, applied.err
    target = repo.root / "app/service.py"
    assert target.read_bytes() == SERVICE.replace("* 3", "* 2").encode()
    assert cli("findings", "--json", repo.root).json()["findings"][0]["fix_applied"] is True
    exported = cli("export", "--format", "json", "--all-findings", repo.root)
    assert exported.code == 0 and "the review of all: HEAD -> worktree" in exported.err
    assert [f["fingerprint"] for f in exported.json()["findings"]] == [finding["fingerprint"]]
    undone = cli(*_undo_hint(applied))
    assert undone.code == 0, undone.err
    assert target.read_bytes() == SERVICE.encode()
