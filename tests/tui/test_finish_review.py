"""Finishing a review in the workbench: findings (R, f/F, a, A, x), comments (m), the verdict
(V), export (X), the editor (ctrl+e) and refreshing (r, --watch) — on a real repository, a
real session store and the scripted model."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, Label, Select, Static

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.sessions.store import SessionStore
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.screens.comment_modal import CommentModal
from reviewtui.tui.screens.dismiss_modal import DismissModal
from reviewtui.tui.screens.export_modal import ExportModal
from reviewtui.tui.screens.verdict_modal import VerdictModal
from reviewtui.tui.widgets.chat_input import ChatInput
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.rendered import static_text
from tests.support.schemas import rdjson_errors

BILLING = ("def charge(amount):\n    total = amount * 3\n    return total\n" + "\n" * 12 +
           "def refund(amount):\n    return -amount\n")
FINDINGS = {"verdict": "request_changes", "summary": "Two things.", "findings": [
    {"title": "Charge rate tripled", "body": "pay() now charges 30.", "severity": "P1",
     "confidence": 0.9, "file_path": "app/billing.py", "start_line": 2, "end_line": 2},
    {"title": "Refund sign flipped", "body": "Refunds are negative.", "severity": "P3",
     "confidence": 0.5, "file_path": "app/billing.py", "start_line": 17, "end_line": 17},
]}


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/billing.py", BILLING.replace("amount * 3", "amount * 2").replace(
        "-amount", "amount"))
    repo.write("app/util.py", "def tidy(text):\n    return text\n")
    repo.commit("base")
    repo.write("app/billing.py", BILLING)
    repo.write("app/util.py", "def tidy(text):\n    return text.strip()\n")
    return repo


def _app(repo: GitRepoBuilder, store: Path, *, selector: ChangeSelector | None = None,
         watch: bool = False) -> ReviewApp:
    loaded = load_change(repo.root, selector or ChangeSelector(SelectorMode.AUTO))
    return ReviewApp(loaded, store_path=store, watch=watch)


async def _reviewed(app: ReviewApp, pilot: object, fake_llm: ScriptedOpenAIServer) -> None:
    fake_llm.script(Reply.json(FINDINGS))
    await pilot.press("R")  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]


def _table_matches_rows(app: ReviewApp) -> None:
    """The table shows exactly the app's rows, in order, each with its current cells."""
    assert [r.key.value for r in app.table.ordered_rows] == [r.unit.unit_id for r in app.rows]
    for row in app.rows:
        shown = str(app.table.get_cell(row.unit.unit_id, "st"))
        assert shown == {"new": "●", "reviewed": "✓", "skipped": "–", "changed": "↻"}[
            row.status]


def _findings(store: Path) -> dict[str, tuple[str, str | None]]:
    with SessionStore(store) as opened:
        [session] = opened.list_sessions()
        return {f.title: (f.state, f.reason) for f in opened.findings(session.session_id)}


async def test_review_keeps_findings_and_the_keys_triage_them(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _reviewed(app, pilot, fake_llm)
        assert "review: 2 findings (2 new" in str(app.query_one("#status").render())
        billing = [r for r in app.rows if r.unit.file_path == "app/billing.py"]
        assert sum(r.findings for r in billing) == 2  # the table counts open findings
        # f / F: from finding to finding, across units.
        await pilot.press("f")
        first = app.current_finding
        await pilot.press("f")
        second = app.current_finding
        assert {first, second} == {f.fingerprint for r in billing for f in r.review}
        await pilot.press("F")
        assert app.current_finding == first
        shown = static_text(app.query_one("#review", Static))
        assert "▶" in shown and "open" in shown
        # a: accept (a again would reopen); x: dismiss, with a reason.
        await pilot.press("a")
        accepted_title = next(f.title for r in billing for f in r.review
                              if f.fingerprint == first)
        await pilot.press("f")  # the next open one
        await pilot.press("x")
        assert isinstance(app.screen, DismissModal)
        await pilot.press(*"intended", "enter")
        await pilot.pause()
        states = _findings(store)
        assert states[accepted_title] == ("accepted", None)
        other = next(t for t in states if t != accepted_title)
        assert states[other] == ("dismissed", "intended")
        assert sum(r.findings for r in app.rows) == 0  # nothing open any more
        await pilot.press("slash", *"status:dismissed", "enter")
        await pilot.pause(0.3)
        assert [r.unit.file_path for r in app.rows] == ["app/billing.py"]
        await pilot.press("slash", "escape")


async def test_sev_and_status_filters(repo: GitRepoBuilder, tmp_path: Path,
                                      fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _reviewed(app, pilot, fake_llm)
        await pilot.press("slash", *"sev:p1", "enter")
        await pilot.pause(0.3)
        assert len(app.rows) == 1 and app.rows[0].open_findings[0].severity == "P1"
        await pilot.press("slash", "escape")
        await pilot.press("slash", *"sev:nit", "enter")
        await pilot.pause(0.3)
        assert [r.open_findings[0].severity for r in app.rows] == ["P3"]
        await pilot.press("slash", "escape")
        await pilot.press("slash", *"status:open", "enter")
        await pilot.pause(0.3)
        assert all(r.open_findings for r in app.rows) and len(app.rows) == 2


async def test_comments_new_edited_deleted_and_from_a_finding(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _reviewed(app, pilot, fake_llm)
        await pilot.press("f")  # to a finding's unit
        await pilot.press("m")
        assert isinstance(app.screen, CommentModal)
        lines = app.screen.query_one("#comment-lines", Input)
        assert lines.value == "2"  # the unit's first changed line
        lines.value = "2-40"  # past the unit: refused, nothing typed is lost
        body = app.screen.query_one("#comment-body", ChatInput)
        body.focus()
        await pilot.press(*"Needs a test", "ctrl+j", *"for 30.", "enter")
        await pilot.pause()
        assert isinstance(app.screen, CommentModal)
        assert "this unit covers lines 1-" in static_text(
            app.screen.query_one("#comment-error", Label))
        assert body.text == "Needs a test\nfor 30."
        lines.value = "2-3"
        await pilot.press("enter")
        await pilot.pause()
        with SessionStore(store) as opened:
            [session] = opened.list_sessions()
            [comment] = opened.comments(session.session_id)
        assert (comment.body, comment.lines) == ("Needs a test\nfor 30.", "L2-3")
        assert "Needs a test …" in static_text(app.query_one("#review", Static))
        charge_id = app.current()
        assert str(app.table.get_cell(charge_id, "find")) == "1✎1"  # open findings, comments
        # Edit it: pick it in the modal, change the text.
        await pilot.press("m")
        modal = app.screen
        modal.query_one("#comment-pick").value = str(comment.comment_id)  # type: ignore[attr-defined]
        await pilot.pause()
        modal.query_one("#comment-body", ChatInput).load_text("Needs a test for 30, please.")
        await pilot.press("ctrl+s")
        await pilot.pause()
        with SessionStore(store) as opened:
            [edited] = opened.comments(session.session_id)
        assert (edited.comment_id, edited.body) == (comment.comment_id,
                                                     "Needs a test for 30, please.")
        # Delete it.
        await pilot.press("m")
        modal = app.screen
        modal.query_one("#comment-pick").value = str(comment.comment_id)  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.click("#delete")
        await pilot.pause()
        with SessionStore(store) as opened:
            assert opened.comments(session.session_id) == []
        # A, then Escape: nothing happens (the finding stays as it was, no comment).
        await pilot.press("A")
        assert isinstance(app.screen, CommentModal)
        await pilot.press("escape")
        await pilot.pause()
        with SessionStore(store) as opened:
            assert opened.comments(session.session_id) == []
            assert "accepted" not in {f.state for f in opened.findings(session.session_id)}
        # A: accept a finding and make it a comment of one's own.
        await pilot.press("A")
        assert isinstance(app.screen, CommentModal)
        await pilot.press("ctrl+s")
        await pilot.pause()
        with SessionStore(store) as opened:
            [promoted] = opened.comments(session.session_id)
            states = {f.fingerprint: f.state for f in opened.findings(session.session_id)}
        assert promoted.finding is not None and states[promoted.finding] == "accepted"


async def test_verdict_and_export(repo: GitRepoBuilder, tmp_path: Path,
                                  fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _reviewed(app, pilot, fake_llm)
        await pilot.press("V")
        assert isinstance(app.screen, VerdictModal)
        assert app.screen.query_one("#verdict-choice", Select).value == "comment"
        await pilot.press("enter", "up", "enter")  # the list opens on the current verdict
        app.screen.query_one("#verdict-summary").value = "Fix the rate."  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.verdict is not None and app.verdict.verdict == "request_changes"
        await pilot.press("X")
        assert isinstance(app.screen, ExportModal)
        app.screen.query_one("#export-path").value = "out/review.md"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        written = repo.root / "out" / "review.md"
        text = written.read_text()
        assert text.startswith("## Review: Request changes\n\n**Stated purpose:** branch main"
                               "\n\nFix the rate.")
        assert "Charge rate tripled" in text
        assert any(f"wrote {written}" in str(n.message) for n in app._notifications)


async def test_an_unwritable_export_path_keeps_the_dialog_open_with_the_reason(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """X to a path that cannot be written (a folder that is a file, /proc): the dialog stays
    open, its path and choices as typed, with the reason on one line; corrected, it writes."""
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    (repo.root / "blocker").write_text("a file, not a folder")
    unwritable = ["blocker/review.md", *(["/proc/x.md"] if Path("/proc/self").exists() else [])]
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _reviewed(app, pilot, fake_llm)
        await pilot.press("X")
        modal = app.screen
        assert isinstance(modal, ExportModal)
        modal.query_one("#export-all", Checkbox).value = True
        for path in unwritable:
            modal.query_one("#export-path", Input).value = path
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert app.screen is modal  # still open
            error = static_text(modal.query_one("#export-error", Label)).strip()
            target = path if path.startswith("/") else str(repo.root / path)
            assert error.startswith(f"✗ cannot write {target}: "), error
            assert "\n" not in str(modal.query_one("#export-error", Label).render())
            assert modal.query_one("#export-path", Input).value == path  # to correct
            assert modal.query_one("#export-all", Checkbox).value
        assert not any("wrote" in str(n.message) for n in app._notifications)
        modal.query_one("#export-path", Input).value = "out/review.md"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, ExportModal)
        written = repo.root / "out" / "review.md"
        assert "Charge rate tripled" in written.read_text()
        assert any(f"wrote {written}" in str(n.message) for n in app._notifications)
        assert f"exported to {written}" in str(app.query_one("#status").render())
    assert not (repo.root / "blocker").is_dir()


async def test_export_offers_rdjson_for_reviewdog(repo: GitRepoBuilder, tmp_path: Path,
                                                  fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _reviewed(app, pilot, fake_llm)
        await pilot.press("X")
        assert isinstance(app.screen, ExportModal)
        app.screen.query_one("#export-path", Input).value = "out/review.md"
        app.screen.query_one("#export-format", Select).value = "rdjson"
        await pilot.pause()
        assert app.screen.query_one("#export-path", Input).value == "out/review.rdjson"
        await pilot.press("ctrl+s")
        await pilot.pause()
    document = json.loads((repo.root / "out" / "review.rdjson").read_text())
    assert rdjson_errors(document) == []
    assert any("Charge rate tripled" in d["message"] for d in document["diagnostics"])


def _script_editor(tmp_path: Path, body: str, name: str = "editor.sh") -> Path:
    script = tmp_path / "bin" / name
    script.parent.mkdir(exist_ok=True)
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.mark.skipif(os.name != "posix", reason="a shell script as the editor")
async def test_ctrl_e_edits_the_file_then_r_refreshes_keeping_every_decision(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    calls = tmp_path / "calls.txt"
    # A "vim" that records how it was called and changes line 2 of the file (+LINE FILE form).
    editor = _script_editor(tmp_path, f'printf "%s\\n" "$@" > {calls}\n'
                                      'sed -i "s/amount \\* 3/amount * 4/" "$3"\n', "vim")
    monkeypatch.setenv("EDITOR", f"{editor} -n")
    monkeypatch.delenv("VISUAL", raising=False)
    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _reviewed(app, pilot, fake_llm)
        charge = next(r for r in app.rows if r.unit.file_path == "app/billing.py"
                      and r.unit.hunks[0].new_start <= 2)
        util = next(r for r in app.rows if r.unit.file_path == "app/util.py")
        app.table.move_cursor(row=app.rows.index(util))
        await pilot.press("4", "space")  # a level override and a reviewed mark on util
        app.table.move_cursor(row=app.rows.index(charge))
        await pilot.press("space")  # reviewed, then its file is edited
        await pilot.press("ctrl+e")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert calls.read_text().split() == ["-n", "+2",
                                             str(repo.root / "app/billing.py")]
        status = str(app.query_one("#status").render())
        assert "refreshed:" in status and "1 findings on changed lines (fixed?)" in status
        rows = {r.unit.file_path + str(r.unit.hunks[0].new_start): r for r in app.rows}
        new_charge = next(r for k, r in rows.items() if k.startswith("app/billing.py")
                          and r.unit.hunks[0].new_start <= 2)
        assert new_charge.unit.unit_id != charge.unit.unit_id
        assert new_charge.status == "changed"  # ↻: reviewed before the edit
        assert [f.label for f in new_charge.review] == ["fixed?"]
        new_util = next(r for r in app.rows if r.unit.file_path == "app/util.py")
        assert new_util.unit.unit_id == util.unit.unit_id
        assert new_util.status == "reviewed" and new_util.item.final_context_level.value == (
            "full_file")
        _table_matches_rows(app)  # changed in place: the edited unit replaced, ↻ shown
        await pilot.press("o")  # another order: the same rows, sorted in place
        _table_matches_rows(app)
        # r with a new file: it appears as new, the rest stays.
        repo.write("app/extra.py", "VALUE = 1\n")
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        extra = next(r for r in app.rows if r.unit.file_path == "app/extra.py")
        assert extra.status == "new"
        _table_matches_rows(app)
        assert next(r for r in app.rows if r.unit.file_path == "app/util.py").status == (
            "reviewed")
        # A file deleted under the app: r shows the deletion, nothing breaks.
        (repo.root / "app/extra.py").unlink()
        (repo.root / "app/util.py").unlink()
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not any(r.unit.file_path == "app/extra.py" for r in app.rows)
        assert any(r.unit.file_path == "app/util.py" and r.unit.change_type == "delete"
                   for r in app.rows)
    assert _findings(store)["Charge rate tripled"][0] == "fixed"


async def test_the_editor_that_fails_is_one_notification(
        repo: GitRepoBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.delenv("EDITOR", raising=False)
        await pilot.press("ctrl+e")
        monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
        await pilot.press("ctrl+e")
        if os.name == "posix":
            monkeypatch.setenv("EDITOR", str(_script_editor(tmp_path, "exit 3\n")))
            await pilot.press("ctrl+e")
        await pilot.pause()
        messages = [str(n.message) for n in app._notifications]
        assert any(m.startswith("no editor: set $VISUAL or $EDITOR") for m in messages)
        assert any(m.startswith("cannot run") for m in messages)
        if os.name == "posix":
            assert any("exited with status 3" in m for m in messages)


async def test_a_commit_cannot_be_edited_or_refreshed(repo: GitRepoBuilder,
                                                      tmp_path: Path) -> None:
    _repo(repo)
    repo.commit("the change")
    app = _app(repo, tmp_path / "s.sqlite3",
               selector=ChangeSelector(SelectorMode.COMMIT, ref="HEAD"))
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+e")
        await pilot.press("r")
        await pilot.pause()
        assert any("commit, a range or a patch" in str(n.message) for n in app._notifications)
        assert "nothing to refresh" in str(app.query_one("#status").render())


async def test_watch_refreshes_when_a_file_changes(repo: GitRepoBuilder,
                                                   tmp_path: Path) -> None:
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3", watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause(0.5)
        # watching is not work to wait on: the progress bar shows only while something runs
        assert any(w.group == "watch" for w in app.workers)
        assert not app.query_one("#busy").has_class("running")
        repo.write("app/watched.py", "WATCHED = True\n")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not any(
                r.unit.file_path == "app/watched.py" for r in app.rows):
            await pilot.pause(0.2)
        assert any(r.unit.file_path == "app/watched.py" for r in app.rows)


async def _until(pilot: object, done: Callable[[], bool], seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not done():
        await pilot.pause(0.2)  # type: ignore[attr-defined]
    return done()


def _inotify_watched() -> set[int] | None:
    """The inodes this process has inotify watches on (Linux), None where that is not known."""
    fdinfo = Path("/proc/self/fdinfo")
    if not fdinfo.is_dir():
        return None
    watched: set[int] = set()
    for entry in fdinfo.iterdir():
        try:
            text = entry.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("inotify wd:"):
                fields = dict(f.split(":", 1) for f in line.split()[1:] if ":" in f)
                watched.add(int(fields["ino"], 16))
    return watched


async def test_watch_follows_git_add_commit_and_the_branch(repo: GitRepoBuilder,
                                                           tmp_path: Path) -> None:
    """A staged review under --watch follows the repository when no file of the working tree
    changes: git add (the index), git commit (index and branch), git reset --soft (the branch
    alone). Objects written alone, and the workbench's own refreshes, refresh nothing."""
    repo.write("app/a.py", "A = 1\n")
    repo.write("app/b.py", "B = 1\n")
    repo.commit("base")
    repo.write("app/a.py", "A = 2\n")
    repo.write("app/b.py", "B = 2\n")
    repo.git("add", "app/a.py")
    app = _app(repo, tmp_path / "s.sqlite3", selector=ChangeSelector(SelectorMode.STAGED),
               watch=True)
    refreshes: list[float] = []
    refresh = app.action_refresh

    def counted() -> None:
        refreshes.append(time.monotonic())
        refresh()

    app.action_refresh = counted  # type: ignore[method-assign]

    def files() -> set[str]:
        return {r.unit.file_path for r in app.rows}

    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause(0.5)
        assert files() == {"app/a.py"}
        watched = _inotify_watched()
        if watched is not None:  # the tree, .git and its refs are watched; objects/ is not
            git = repo.root / ".git"
            for folder in (repo.root, repo.root / "app", git, git / "refs" / "heads"):
                assert folder.stat().st_ino in watched, folder
            inside = [git / "objects", *(git / "objects").iterdir(), git / "logs"]
            assert not {p.stat().st_ino for p in inside if p.is_dir()} & watched
        repo.git("add", "app/b.py")
        assert await _until(pilot, lambda: files() == {"app/a.py", "app/b.py"}), files()
        repo.git("commit", "-q", "-m", "a only", "--", "app/a.py")  # b stays staged
        assert await _until(pilot, lambda: files() == {"app/b.py"}), files()
        repo.git("reset", "-q", "--soft", "HEAD~1")  # only refs/heads/main moves
        assert await _until(pilot, lambda: files() == {"app/a.py", "app/b.py"}), files()
        await pilot.pause(1.5)
        settled = len(refreshes)
        repo.git("hash-object", "-w", "--stdin", input=b"only an object\n")
        await pilot.pause(1.5)
        assert len(refreshes) == settled  # objects/ is not watched; no refresh storm either
    assert 3 <= settled <= 6


async def test_watch_follows_the_base_of_the_change_it_switched_to(
        repo: GitRepoBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The working tree's change, committed, became the branch's change against the configured
    base branch: the watch kept the refs of the first change and never saw that base move."""
    from watchfiles import Change

    config = tmp_path / "cfg" / "reviewtui"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('[git]\ndefault_branch = "develop"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    repo.write("app/a.py", "A = 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "develop")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("app/a.py", "A = 2\n")
    app = _app(repo, tmp_path / "s.sqlite3", watch=True)
    develop = repo.root / ".git" / "refs" / "heads" / "develop"
    async with app.run_test(size=(140, 40)) as pilot:
        assert await _until(pilot, lambda: app.repository_watch is not None)
        watch = app.repository_watch
        assert watch is not None and app.loaded.change_set.mode == "all"
        assert not watch(Change.modified, str(develop))
        repo.commit("feature work")
        assert await _until(pilot, lambda: app.loaded.change_set.mode == "pr")
        assert app.loaded.change_set.base_branch == "develop"
        assert watch(Change.modified, str(develop))  # the new base's ref is watched now


async def test_watch_follows_a_new_top_level_folder(repo: GitRepoBuilder,
                                                    tmp_path: Path) -> None:
    """A folder created at the top of the tree is watched from then on (the recursive watch
    covers the folders that were there when it started, and starts again)."""
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3", watch=True)

    def units_of(path: str) -> list[str]:
        return [r.unit.unit_id for r in app.rows if r.unit.file_path == path]

    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause(0.5)
        repo.write("lib/new.py", "NEW = 1\n")
        assert await _until(pilot, lambda: bool(units_of("lib/new.py")))
        first = units_of("lib/new.py")
        await pilot.pause(1.0)
        repo.write("lib/new.py", "NEW = 1\n\n\ndef grown():\n    return NEW\n")
        assert await _until(pilot, lambda: units_of("lib/new.py") not in ([], first))


def test_the_watch_filter_keeps_index_head_and_the_refs_only(repo: GitRepoBuilder,
                                                               tmp_path: Path) -> None:
    from watchfiles import Change

    from reviewtui.git import open_repository
    from reviewtui.git.watched import RepositoryWatch, base_refs

    repo.write("a.py", "A = 1\n")
    repo.commit("base")
    opened = open_repository(repo.root)
    watch = RepositoryWatch(opened.root, opened.git_dir, opened.common_dir,
                            base_refs("origin/main"))
    git = opened.git_dir

    def kept(path: Path) -> bool:
        return watch(Change.modified, str(path))

    (opened.root / "app").mkdir()
    (opened.root / "__pycache__").mkdir()
    assert watch.tree_paths() == [opened.root / "app", git / "refs"]  # not .git, not caches
    assert watch.shallow_paths() == [opened.root, git]
    assert kept(git / "index") and kept(git / "HEAD") and kept(git / "packed-refs")
    assert kept(git / "refs" / "heads" / "main")  # HEAD's branch
    assert kept(git / "refs" / "remotes" / "origin" / "main")  # the base
    assert not kept(git / "refs" / "heads" / "other")
    assert not kept(git / "index.lock") and not kept(git / "objects" / "ab" / "cdef")
    assert not kept(git / "logs" / "HEAD") and not kept(git / "COMMIT_EDITMSG")
    assert kept(opened.root / "a.py") and not kept(opened.root / "__pycache__" / "a.pyc")
    repo.git("checkout", "-q", "-b", "other")  # HEAD moved: its branch is the one now
    assert kept(git / "refs" / "heads" / "other")
    # A linked worktree: its own git directory and the shared refs are watched besides it.
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", str(linked), "-b", "side")
    other = open_repository(linked)
    side = RepositoryWatch(other.root, other.git_dir, other.common_dir)
    assert side.tree_paths() == [other.common_dir / "refs"]
    assert side.shallow_paths() == [other.root, other.git_dir, other.common_dir]
    assert side(Change.modified, str(other.git_dir / "index"))
    assert side(Change.modified, str(other.common_dir / "refs" / "heads" / "side"))
    assert not side(Change.modified, str(other.common_dir / "index"))  # the main worktree's
    assert not side(Change.modified, str(other.common_dir / "refs" / "heads" / "main"))


async def test_the_default_export_stays_out_of_the_change(repo: GitRepoBuilder,
                                                          tmp_path: Path) -> None:
    """X's default file is under .git/reviewtui/: exporting does not add a unit to the review."""
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        units = len(app.rows)
        await pilot.press("X")
        default = app.screen.query_one("#export-path", Input).value
        assert default == str(repo.root / ".git" / "reviewtui" / "review.md")
        await pilot.press("ctrl+s", "r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert (repo.root / ".git" / "reviewtui" / "review.md").is_file()
        assert len(app.rows) == units


async def test_a_filter_term_no_unit_can_match_is_said_not_only_0_units(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"risk:bogus", "enter")
        await pilot.pause(0.4)  # the filter applies after its short debounce
        assert app.rows == []
        status = str(app.query_one("#status").render())
        assert "not understood: risk:bogus (risk is critical, high, medium, low)" in status


async def test_r_with_no_kept_unit_shown_says_so_instead_of_an_empty_review(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """R with every unit shown skipped (or a filter that shows none) put "# Review: Comment /
    No findings. / 0 units reviewed" in the chat, a review that read nothing."""
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        for _ in app.rows:
            await pilot.press("s", "j")
        assert all(r.item.skip_review for r in app.rows)
        await pilot.press("R")
        await app.workers.wait_for_complete()
        await pilot.pause()
        status = str(app.query_one("#status").render())
        assert "nothing to review: no kept unit is shown" in status
        assert not app.query(".chat-answer") and not fake_llm.chat_requests


async def test_f_with_the_open_findings_filtered_out_says_the_filter_hides_them(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """f with a filter that hides every unit with an open finding said "no open findings (R
    reviews the kept units)": a paid review again for findings that are there."""
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        await _reviewed(app, pilot, fake_llm)
        await pilot.press("escape", "slash", *"util", "enter")
        await pilot.pause(0.4)
        assert [r.unit.file_path for r in app.rows] == ["app/util.py"]
        await pilot.press("f")
        status = str(app.query_one("#status").render())
        assert "R reviews" not in status
        assert "no open findings in the units shown (2 hidden by the filter" in status


async def test_findings_and_comments_follow_their_lines_on_r_and_on_opening(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    store = tmp_path / "s.sqlite3"
    target = repo.root / "app/billing.py"

    def kept() -> tuple[dict[str, tuple[str, str]], list[str]]:
        with SessionStore(store) as opened:
            [session] = opened.list_sessions()
            return ({f.title: (f.state, f.lines) for f in opened.findings(session.session_id)},
                    [c.lines for c in opened.comments(session.session_id)])

    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _reviewed(app, pilot, fake_llm)
        await pilot.press("f", "m")  # a comment on the charge unit's first changed line, L2
        assert isinstance(app.screen, CommentModal)
        app.screen.query_one("#comment-body", ChatInput).focus()
        await pilot.press(*"Tripled?", "enter")
        await pilot.pause()
        assert kept()[1] == ["L2"]
        target.write_text("import sys\nimport re\n" + BILLING)  # two lines above
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        status = str(app.query_one("#status").render())
        assert "0 findings on changed lines (fixed?), 3 followed their lines" in status
        assert kept() == ({"Charge rate tripled": ("open", "L4"),
                           "Refund sign flipped": ("open", "L19")}, ["L4"])
        charge = next(r for r in app.rows if r.unit.file_path == "app/billing.py"
                      and r.unit.covers(4, 4))
        assert [f.lines for f in charge.review] == ["L4"]
        assert [c.lines for c in charge.comments] == ["L4"]
    # edited while the workbench was closed: opening it follows them again
    target.write_text("import os\nimport sys\nimport re\n" + BILLING)
    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert kept() == ({"Charge rate tripled": ("open", "L5"),
                           "Refund sign flipped": ("open", "L20")}, ["L5"])
