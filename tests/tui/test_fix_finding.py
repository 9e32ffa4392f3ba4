"""From finding to fix in the workbench: ctrl+f asks the model (or /fix in the chat), the preview
shows the coloured diff, a applies, u undoes byte-exactly, and a fix that no longer fits the
working tree is refused with the reason and its patch offered — on a real repository, a real
session store and the scripted model."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import Label, Static

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.sessions.store import SessionStore
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.screens.fix_modal import FixModal
from reviewtui.tui.widgets.chat_input import ChatInput
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.rendered import screen_lines, static_text

BILLING = "def charge(amount):\r\n    total = amount * 3\r\n    return total"  # CRLF, no EOL
FINDING = {"title": "Charge rate tripled", "body": "pay() now charges 30.", "severity": "P1",
           "confidence": 0.9, "file_path": "app/billing.py", "start_line": 2, "end_line": 2}
FIX = {"fix": {"start_line": 2, "end_line": 2, "replacement": "    total = amount * 2  # agreed"},
       "explanation": "Back to the agreed rate."}
FIXED = BILLING.replace("amount * 3", "amount * 2  # agreed").encode()


def _app(repo: GitRepoBuilder, store: Path) -> ReviewApp:
    repo.write("app/billing.py", BILLING.replace("* 3", "* 1"))
    repo.commit("base")
    repo.write("app/billing.py", BILLING)
    return ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)), store_path=store)


async def _review_and_select(app: ReviewApp, pilot: object,
                             fake_llm: ScriptedOpenAIServer) -> None:
    fake_llm.script(Reply.json({"verdict": "comment", "summary": "s", "findings": [FINDING]}))
    await pilot.press("R")  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.press("escape", "f")  # type: ignore[attr-defined]
    assert app.current_finding is not None


async def _ask_for_fix(app: ReviewApp, pilot: object,
                       fake_llm: ScriptedOpenAIServer) -> None:
    """ctrl+f on the selected finding with no fix yet: the model answers ``FIX``."""
    fake_llm.script(Reply.json(FIX))
    await pilot.press("ctrl+f")  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]


def _state(store: Path) -> str:
    with SessionStore(store) as opened:
        [session] = opened.list_sessions()
        [finding] = opened.findings(session.session_id)
        return finding.state


async def test_ask_preview_apply_undo(repo: GitRepoBuilder, tmp_path: Path,
                                      fake_llm: ScriptedOpenAIServer) -> None:
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    target = repo.root / "app/billing.py"
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _review_and_select(app, pilot, fake_llm)
        fake_llm.clear_requests()
        fake_llm.script(Reply.json(FIX))
        await pilot.press("ctrl+f")  # no fix yet: the model is asked, then the preview opens
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, FixModal)
        tools = {t["function"]["name"] for t in fake_llm.chat_requests[0].body["tools"]}
        assert tools and not {"write_file", "apply_patch", "edit_file"} & tools
        diff = app.screen.query_one("#fix-diff-text", Static)
        text = static_text(diff)
        assert "-    total = amount * 3" in text and "+    total = amount * 2  # agreed" in text
        content = diff.content
        assert isinstance(content, Text)
        assert {"red", "green"} <= {str(span.style) for span in content.spans}  # -red, +green
        assert "applies to the working tree" in str(
            app.screen.query_one("#fix-state", Label).render())
        assert target.read_bytes() == BILLING.encode()  # a preview writes nothing
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert target.read_bytes() == FIXED  # CRLF kept, still no newline at the end
        assert _state(store) == "fixed"
        await pilot.press("u")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert target.read_bytes() == BILLING.encode()
        assert _state(store) == "open"
        await pilot.press("u")  # one undo per applied fix
        await pilot.pause()
        assert target.read_bytes() == BILLING.encode()


async def test_a_fix_opened_again_still_shows_why_the_model_proposed_it(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """The model's explanation was shown with the fix it had just proposed, and never again:
    the preview opened later (or in the next session) had the diff alone."""
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _review_and_select(app, pilot, fake_llm)
        await _ask_for_fix(app, pilot, fake_llm)
        assert isinstance(app.screen, FixModal)
        await pilot.press("escape")
        await pilot.pause()
        fake_llm.clear_requests()
        await pilot.press("ctrl+f")  # the fix is kept: the preview opens, nothing is asked
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, FixModal) and fake_llm.chat_requests == []
        shown = str(app.screen.query_one("#fix-explanation", Label).render())
        assert "the model: Back to the agreed rate." in shown


async def test_slash_fix_and_a_moved_working_tree(repo: GitRepoBuilder, tmp_path: Path,
                                                  fake_llm: ScriptedOpenAIServer) -> None:
    store = tmp_path / "s.sqlite3"
    app = _app(repo, store)
    target = repo.root / "app/billing.py"
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _review_and_select(app, pilot, fake_llm)
        fake_llm.script(Reply.json(FIX))
        await pilot.press("c")
        chat = app.query_one(ChatInput)
        chat.focus()
        await pilot.press(*"/fix", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, FixModal)
        await pilot.press("escape")
        await pilot.pause()
        moved = b"# header\r\n" + BILLING.encode()
        target.write_bytes(moved)  # line 2 is no longer the reviewed line
        app.table.focus()
        await pilot.press("ctrl+f")  # the finding has its fix now: the preview, at once
        await pilot.pause()
        assert isinstance(app.screen, FixModal)
        state = str(app.screen.query_one("#fix-state", Label).render())
        assert "does not apply" in state and "moved on" in state and "y copies" in state
        await pilot.press("a")  # refused: nothing written
        await pilot.pause()
        assert target.read_bytes() == moved
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard.startswith("--- a/app/billing.py")
        assert target.read_bytes() == moved


async def test_a_file_edited_while_its_preview_was_open_offers_the_patch(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """``a`` in a preview opened before the file was edited: refused, and the preview was
    gone, with a notification naming ``--dry-run`` (a flag of the command line) as the way to
    the patch. The preview comes back, saying why the fix does not apply, and ``y`` copies."""
    app = _app(repo, tmp_path / "s.sqlite3")
    target = repo.root / "app/billing.py"
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _review_and_select(app, pilot, fake_llm)
        await _ask_for_fix(app, pilot, fake_llm)
        assert isinstance(app.screen, FixModal)
        assert "applies to the working tree" in str(
            app.screen.query_one("#fix-state", Label).render())
        edited = BILLING.replace("amount * 3", "amount * 4").encode()
        target.write_bytes(edited)  # someone else's edit, the preview still open
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert target.read_bytes() == edited
        assert isinstance(app.screen, FixModal)
        state = str(app.screen.query_one("#fix-state", Label).render())
        assert "does not apply" in state and "moved on" in state and "y copies" in state
        shown = state + " ".join(str(n.message) for n in app._notifications)
        assert "--dry-run" not in shown
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard.startswith("--- a/app/billing.py")


async def test_read_only_files_and_links_out_are_refused_in_the_preview(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    app = _app(repo, tmp_path / "s.sqlite3")
    target = repo.root / "app/billing.py"
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _review_and_select(app, pilot, fake_llm)
        await _ask_for_fix(app, pilot, fake_llm)
        await pilot.press("escape")
        target.chmod(0o444)  # as root still writable: the mode bits are what count
        try:
            await pilot.press("ctrl+f")
            await pilot.pause()
            assert isinstance(app.screen, FixModal)
            assert "is read-only" in str(app.screen.query_one("#fix-state", Label).render())
            await pilot.press("a", "escape")
            await pilot.pause()
            assert target.read_bytes() == BILLING.encode()
        finally:
            target.chmod(0o644)
        outside = tmp_path / "outside"
        outside.mkdir()
        (outside / "billing.py").write_bytes(BILLING.encode())
        target.unlink()
        target.symlink_to(outside / "billing.py")
        await pilot.press("ctrl+f")
        await pilot.pause()
        assert "symbolic link" in str(app.screen.query_one("#fix-state", Label).render())
        await pilot.press("a", "escape")
        await pilot.pause()
        assert (outside / "billing.py").read_bytes() == BILLING.encode()


DEEP = "app/a_rather_long_folder_name/with_one_more_level/billing_service.py"
WORDS = " ".join(f"w{n:03}" for n in range(160))  # a long explanation, each word findable


def _dialog_text(lines: list[str]) -> str:
    """The fix dialog's text, its lines joined as one would read them (the borders, the
    padding and the wrapping gone)."""
    inside = [line.split("█")[1] for line in lines if line.count("█") >= 2]
    return " ".join(" ".join(inside).replace("│", " ").split())


async def test_the_preview_wraps_a_long_reason_and_explanation_and_scrolls_to_their_end(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """A fix that is text only (its lines are outside the file) with a long explanation: the
    reason and the explanation are read whole, wrapped to the dialog; on a small terminal the
    dialog scrolls to the end of them."""
    repo.write(DEEP, BILLING.replace("* 3", "* 1"))
    repo.commit("base")
    repo.write(DEEP, BILLING)
    app = ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)),
                    store_path=tmp_path / "s.sqlite3")
    explanation = f"The rate is set elsewhere, so the fix goes past the end: {WORDS} the end."
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        fake_llm.script(Reply.json({"verdict": "comment", "summary": "s",
                                    "findings": [{**FINDING, "file_path": DEEP}]}))
        await pilot.press("R")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("escape", "f")
        fake_llm.script(Reply.json({"fix": {"start_line": 40, "end_line": 41,
                                            "replacement": "RATE = 2\n"},
                                    "explanation": explanation}))
        await pilot.press("ctrl+f")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, FixModal)
        state = str(app.screen.query_one("#fix-state", Label).render())
        assert state.startswith("does not apply: ") and DEEP in state
        assert len(state) > 100  # longer than the dialog is wide
        shown = _dialog_text(screen_lines(app))
        assert " ".join(state.split()) in shown  # the whole reason, wrapped
        assert f"the model: {explanation}" in shown  # the whole explanation
        assert "Fix: Charge rate tripled" in shown and "RATE = 2" in shown  # and its text
        await pilot.press("escape")
        await pilot.pause()
        await pilot.resize_terminal(80, 24)  # too small for all of it: the dialog scrolls
        await pilot.pause()
        await pilot.press("ctrl+f")
        await pilot.pause()
        assert isinstance(app.screen, FixModal)
        fake_llm.script(Reply.json({"fix": {"start_line": 40, "end_line": 41,
                                            "replacement": "RATE = 2\n"},
                                    "explanation": explanation}))
        await pilot.press("r")  # asked again: the new explanation with the preview
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, FixModal)
        assert app.screen.query_one("#fix-dialog").max_scroll_y > 0
        seen = _dialog_text(screen_lines(app))
        for _ in range(20):
            await pilot.press("pagedown")
            await pilot.pause()
            seen += " " + _dialog_text(screen_lines(app))
        words = set(seen.split())
        assert {f"w{n:03}" for n in range(160)} <= words  # every word of the reason came by
        assert {"lines", "40-41", "outside", "copies", "RATE"} <= words
        assert "a apply · u undo" in _dialog_text(screen_lines(app))  # the keys stay in view
