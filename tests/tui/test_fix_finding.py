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
from tests.support.rendered import static_text

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


async def test_read_only_files_and_links_out_are_refused_in_the_preview(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    app = _app(repo, tmp_path / "s.sqlite3")
    target = repo.root / "app/billing.py"
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _review_and_select(app, pilot, fake_llm)
        fake_llm.script(Reply.json(FIX))
        await pilot.press("ctrl+f")
        await app.workers.wait_for_complete()
        await pilot.pause()
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
