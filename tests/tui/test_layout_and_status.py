"""The workbench as people run it: 80×24 terminals, zoom, a chat that shows its answer, an honest
status line, LLM calls that Escape or ctrl+c stop at once, and answers that are not whole
offered for continuing."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.sessions import SessionStore
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.widgets.chat_pane import ChatPane
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.unit_table import UnitTable
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

LONG_ANSWER = "\n\n".join(f"Point {n}: `login` now checks the account state, part {n}."
                          for n in range(1, 16)) + "\n\nThe last line of the answer."


def _one_unit(repo: GitRepoBuilder) -> None:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")


def _many_units(repo: GitRepoBuilder, count: int = 30) -> None:
    for n in range(count):
        repo.write(f"app/module_with_a_long_name_{n:02}.py", f"def f{n}():\n    return {n}\n")
    repo.commit("base")
    for n in range(count):
        repo.write(f"app/module_with_a_long_name_{n:02}.py", f"def f{n}():\n    return {n + 1}\n")


def _app(repo: GitRepoBuilder, tmp_path: Path) -> ReviewApp:
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    return ReviewApp(loaded, store_path=tmp_path / "s.sqlite3")


def _status(app: ReviewApp) -> str:
    return str(app.query_one("#status").render())


async def test_columns_drop_in_priority_order_and_come_back(repo: GitRepoBuilder,
                                                            tmp_path: Path) -> None:
    _many_units(repo)
    app = _app(repo, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.query_one(UnitTable)
        narrow = [str(c.label) for c in table.columns.values()]
        assert {"st", "location", "final", "risk"} <= set(narrow)
        assert "tags" not in narrow and "llm" not in narrow
        assert sum(c.get_render_width(table) for c in table.columns.values()) <= 80
        location = str(table.get_row_at(0)[narrow.index("location")])
        assert location.endswith(".py:L2")  # cut at the start: the file name stays
        await pilot.resize_terminal(240, 50)
        await pilot.pause()
        wide = [str(c.label) for c in table.columns.values()]
        assert {"tags", "llm", "rule", "conf", "by", "find", "prio"} <= set(wide)
        assert app.current() == app.rows[0].unit.unit_id  # the cursor kept its unit


async def test_the_table_is_as_tall_as_its_rows_on_a_small_change(repo: GitRepoBuilder,
                                                                  tmp_path: Path) -> None:
    _one_unit(repo)
    app = _app(repo, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(40):  # a loaded machine may need more than one layout pass
            if app.query_one(UnitTable).size.height == 2:
                break
            await pilot.pause(0.05)
        assert app.query_one(UnitTable).size.height == 2  # the header and the one unit
        assert app.query_one(DetailPane).size.height >= 15


@pytest.mark.parametrize("size", [(60, 15), (40, 10)])
async def test_every_dialog_fits_a_small_terminal(repo: GitRepoBuilder, tmp_path: Path,
                                                  size: tuple[int, int]) -> None:
    """The help (``?``, 80 columns) and the extra requests (``e``, 90) kept their width on a
    60- or 40-column terminal: their right part -- the symbol fields, Save and Cancel, half of
    each key's action -- was off the screen. Every dialog now fits, as the others did."""
    _one_unit(repo)
    app = ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)),
                    store_path=tmp_path / "s.sqlite3")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for key, dialog in (("question_mark", "#help-dialog"), ("e", "#requests-dialog"),
                            ("X", "#export-dialog"), ("V", "#verdict-dialog")):
            await pilot.press(key)
            await pilot.pause()
            region = app.screen.query_one(dialog).region
            assert region.x >= 0 and region.right <= size[0], (dialog, region)
            await pilot.press("escape")
            await pilot.pause()


async def test_at_80x24_the_chat_shows_the_whole_answer_as_it_streams(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _many_units(repo)
    app = _app(repo, tmp_path)
    pieces = [part + "\n\n" for part in LONG_ANSWER.split("\n\n")]
    pieces[-1] = pieces[-1].rstrip("\n")
    fake_llm.script(Reply.text(LONG_ANSWER, chunks=pieces, chunk_delay=0.02))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"what changed?", "enter")
        await app.workers.wait_for_complete()
        chat = app.query_one(ChatPane)
        log = chat.query_one("#chat-log", VerticalScroll)

        def settled() -> bool:  # the last paragraph rendered and scrolled to (slow machines)
            answers = chat.query(".chat-answer")
            paragraphs = answers.last().query("MarkdownParagraph") if answers else None
            if not paragraphs or "last line" not in str(paragraphs.last().render()):
                return False
            region = paragraphs.last().region  # laid out (a region of 0 height: not yet)
            return log.scroll_y == log.max_scroll_y and region.height > 0 and (
                log.region.y <= region.y and region.bottom <= log.region.bottom)

        for _ in range(100):
            await pilot.pause(0.1)
            if settled():
                break
        assert not app.query_one(DetailPane).display  # the chat took the detail's room
        assert log.size.height >= 8
        assert app.query_one(UnitTable).size.height <= 7
        assert log.scroll_y == log.max_scroll_y > 0  # it followed the newest text
        last = chat.query(".chat-answer").last().query("MarkdownParagraph").last()
        assert "last line" in str(last.render())
        assert log.region.y <= last.region.y and last.region.bottom <= log.region.bottom


async def test_the_transcript_stays_where_the_person_scrolled(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _many_units(repo)
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.text(LONG_ANSWER))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"first", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)  # the answer's last coalesced pieces are drawn
        await pilot.wait_for_scheduled_animations()
        log = app.query_one("#chat-log", VerticalScroll)
        log.focus()
        await pilot.press("home")  # the person goes back to the top to read
        await pilot.wait_for_scheduled_animations()  # (a loaded machine scrolls slowly)
        await pilot.pause()
        assert log.scroll_y == 0
        fake_llm.script(Reply.text(LONG_ANSWER))
        app.query_one("#chat-input").focus()
        await pilot.press(*"second", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)
        assert log.scroll_y == 0 < log.max_scroll_y  # not pulled down
        log.focus()
        await pilot.press("end")  # back at the end: it follows again
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        fake_llm.script(Reply.text(LONG_ANSWER))
        app.query_one("#chat-input").focus()
        await pilot.press(*"third", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)
        assert log.scroll_y == log.max_scroll_y


async def test_zoom_gives_the_focused_pane_the_screen_and_back(repo: GitRepoBuilder,
                                                               tmp_path: Path) -> None:
    _many_units(repo)
    app = _app(repo, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.query_one(UnitTable)
        before = table.size.height
        await pilot.press("z")
        assert app.screen.maximized is table
        await pilot.pause()
        assert table.size.height > before and table.size.height >= 18
        assert "units" in _status(app)  # the status line stays
        await pilot.press("z")
        assert app.screen.maximized is None
        await pilot.press("tab", "z")  # the detail pane
        assert isinstance(app.screen.maximized, DetailPane)
        await pilot.press("escape")
        assert app.screen.maximized is None
        await pilot.press("c", "z")  # in the chat input, z is a letter...
        assert app.screen.maximized is None
        await pilot.press("ctrl+o")  # ...and ctrl+o zooms the chat
        assert isinstance(app.screen.maximized, ChatPane)
        await pilot.pause()
        assert app.query_one(ChatPane).size.height >= 18
        await pilot.press("ctrl+o")
        assert app.screen.maximized is None


async def test_zoom_with_the_chat_open_on_a_narrow_terminal_takes_the_screen(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """The table zoomed while the chat was open (after R, say) on a narrow terminal kept the
    chat layout's 30 % of the height, a band between hatching: the zoom lost to the rule that
    shrinks the table for the chat."""
    _many_units(repo)
    app = _app(repo, tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(UnitTable)
        await pilot.press("c", "escape")  # the chat open, the table focused
        await pilot.pause()
        assert app.focused is table
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is table
        assert table.size.height >= 24  # 30 rows less the header, status line and footer


async def test_the_filter_opened_on_a_zoomed_table_is_shown(repo: GitRepoBuilder,
                                                            tmp_path: Path) -> None:
    """``/`` on a zoomed table focused a filter box the zoom left off the screen (0×0): the
    words typed filtered the table unseen."""
    _many_units(repo)
    app = _app(repo, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("z", "slash")
        await pilot.pause()
        box = app.query_one("#filter", Input)
        assert app.screen.maximized is app.query_one(UnitTable) and app.focused is box
        assert box.region.height > 0 and box.region.width == 80


async def test_status_says_which_model_and_where_the_plan_came_from(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _one_unit(repo)
    app = _app(repo, tmp_path)
    [unit] = [u.unit_id for u in app.loaded.units]
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert "rules' plan · P asks test-model" in _status(app)
        assert "turned off" not in _status(app)
        fake_llm.script(Reply.json({"plan": [{"unit_id": unit,
                                              "llm_context_level": "full_file"}]}))
        await pilot.press("P")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "planned by test-model: 1 levels, 0 skips by the model" in _status(app)


async def test_without_a_model_the_status_says_so(repo: GitRepoBuilder, tmp_path: Path) -> None:
    _one_unit(repo)
    app = _app(repo, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert "rules' plan · no model configured (REVIEWTUI_MODEL)" in _status(app)


async def test_plan_on_open_runs_the_planner_at_once(repo: GitRepoBuilder, tmp_path: Path,
                                                     fake_llm: ScriptedOpenAIServer) -> None:
    _one_unit(repo)
    repo.write(".reviewtui.toml", "[tui]\nplan_on_open = true\n")
    app = _app(repo, tmp_path)
    [unit] = [u.unit_id for u in app.loaded.units if u.file_path == "app/auth.py"]
    fake_llm.script(Reply.json({"plan": [{"unit_id": u.unit_id, "llm_context_level": "file"}
                                         for u in app.loaded.units]}))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.triage.plan.planner.status == "ok"
        assert app.triage.item(unit).llm_context_level is not None
        assert "planned by test-model" in _status(app)


async def test_escape_stops_a_chat_answer_the_server_never_sends(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    _one_unit(repo)
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.delay(20.0))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        await pilot.pause(0.3)
        assert app.jobs.running("chat")
        assert app.query_one("#busy").has_class("running")
        started = time.monotonic()
        await pilot.press("escape")
        assert not app.jobs.running()
        assert not app.query_one("#busy").has_class("running")
        await app.workers.wait_for_complete()  # the call really ends, not after 20 s
        assert time.monotonic() - started < 5
        notices = [str(w.render()) for w in app.query(".chat-notice")]
        assert "cancelled" in notices
        assert "cancelled: chat" in _status(app)


async def test_the_question_asked_after_a_cancelled_one_is_not_reported_cancelled(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """Escape, then the question asked again and answered: the status line still said
    "cancelled: chat" while it was asked and once it was answered."""
    _one_unit(repo)
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.delay(20.0), Reply.text("It checks the account state."))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        await pilot.pause(0.3)
        await pilot.press("escape")
        assert "cancelled: chat" in _status(app)
        app.query_one("#chat-input").focus()
        await pilot.press(*"why?", "enter")
        assert "cancelled" not in _status(app)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "cancelled" not in _status(app) and "round 2 answered" in _status(app)


async def test_ctrl_c_stops_the_planner(repo: GitRepoBuilder, tmp_path: Path,
                                        fake_llm: ScriptedOpenAIServer) -> None:
    _one_unit(repo)
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.delay(20.0))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("P")
        await pilot.pause(0.3)
        assert "planner running on test-model" in _status(app)
        started = time.monotonic()
        await pilot.press("ctrl+c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert time.monotonic() - started < 5
        assert app.triage.plan.planner.status == "skipped"  # the rules' plan stays
        assert "cancelled: planner" in _status(app)
        assert not any("planner failed" in str(n.title) for n in app._notifications)


def _rounds(app: ReviewApp) -> str:
    """The chat's rounds line (the last rounds, their tokens and how each ended)."""
    return str(app.query_one("#chat-rounds").render())


async def _c_continues_it(pilot: Any, app: ReviewApp, fake_llm: ScriptedOpenAIServer,
                          so_far: str, marker: str, rest: str) -> None:
    """``c`` (the transcript has the focus) continues the unfinished answer: the prompt shows
    the answer so far ending with ``marker``, and the rest is round 2, shown."""
    def reply(request: dict[str, object]) -> Reply:
        messages = request["messages"]
        assert isinstance(messages, list)
        assert messages[-2]["content"] == f"{so_far}\n\n{marker}"
        return Reply.text(rest)

    fake_llm.script(reply)
    await pilot.press("c")
    await app.workers.wait_for_complete()
    await pilot.pause()
    answer = app.query(".chat-answer").last()
    assert answer.source == rest  # type: ignore[attr-defined]
    assert "round 1 continued in round 2" in _status(app)


async def test_an_answer_cut_off_mid_stream_says_so(repo: GitRepoBuilder, tmp_path: Path,
                                                    fake_llm: ScriptedOpenAIServer) -> None:
    from reviewtui.conversation.packing import CUT_OFF_MARKER

    _one_unit(repo)
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.text("It now checks active users because",
                               chunks=["It now checks ", "active users ", "because"],
                               cut_after=2))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        answer = app.query(".chat-answer").last()
        assert answer.source == "It now checks active users "  # type: ignore[attr-defined]
        notices = [str(w.render()) for w in app.query(".chat-notice")]
        assert any("cut off" in n for n in notices)
        assert "round 1 cut off by the server — c continues" in _status(app)
        assert "round 1: " in _rounds(app) and " · cut off" in _rounds(app)

        await _c_continues_it(pilot, app, fake_llm, "It now checks active users ",
                              CUT_OFF_MARKER, "because inactive ones cannot log in.")


async def test_an_answer_the_content_filter_stopped_says_so_then_and_reopened(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """The provider's content filter ended the answer: the workbench said "cut off by the
    server" then, and the reopened chat did too (the round kept only ``cut_off``)."""
    _one_unit(repo)
    fake_llm.script(Reply.text("It now checks", finish_reason="content_filter"))
    app = _app(repo, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "round 1 stopped by the content filter — c continues" in _status(app)
        assert " · content filter" in _rounds(app)
        notices = [str(w.render()) for w in app.query(".chat-notice")]
        assert any("content filter" in n for n in notices)
        assert not any("server closed the stream" in n for n in notices)
    with SessionStore(tmp_path / "s.sqlite3") as store:
        [session] = store.list_sessions(limit=0)
        [record] = store.rounds(session.session_id)
    assert record.filtered and record.cut_off and record.answer == "It now checks"
    app = _app(repo, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        notices = [str(w.render()) for w in app.query(".chat-notice")]
        assert "(this answer is not whole: stopped by the provider's content filter)" in notices


async def test_an_answer_stopped_at_the_token_limit_is_flagged_and_c_continues_it(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    from reviewtui.conversation.packing import TRUNCATED_MARKER

    _one_unit(repo)
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.text("It now checks active users, so",
                               chunks=["It now checks ", "active users, ", "so"],
                               finish_reason="length"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "round 1 incomplete: the model's token limit — c continues" in _status(app)
        assert " · cut short (token limit)" in _rounds(app)
        notices = [str(w.render()) for w in app.query(".chat-notice")]
        assert any("output token limit" in n and "press c" in n for n in notices)

        await _c_continues_it(pilot, app, fake_llm, "It now checks active users, so",
                              TRUNCATED_MARKER, " inactive ones cannot log in.")
        assert app.query_one(ChatPane).has_class("visible")
        app.query_one("#chat-log").focus()  # (c gave the focus back to the input)
        await pilot.press("c")  # nothing left to continue: c is the chat key again
        await pilot.pause()
        assert not app.query_one(ChatPane).has_class("visible")
    assert len(fake_llm.chat_requests) == 2
    with SessionStore(tmp_path / "s.sqlite3") as store:
        [session] = store.list_sessions()
        rounds = store.rounds(session.session_id)
    assert [(r.truncated, r.continues) for r in rounds] == [(True, None), (False, 0)]


@pytest.mark.parametrize("key", ["P", "R"])
async def test_quitting_while_the_model_thinks_stops_its_request(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer, key: str) -> None:
    """``q`` while the planner or the review waits on the model closes the request: the worker
    thread ends (the process can exit at once) and sends nothing more, no repair of the
    answer it never got -- not a request the person pays for after leaving."""
    _one_unit(repo)
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.delay(8.0, Reply.text("not json")), Reply.delay(8.0))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(key)
        while not fake_llm.chat_requests:  # the request is on its way to the model
            await pilot.pause(0.05)
        await pilot.press("q")
    # Every thread worker is done once the loop's executor is shut down: with the call left
    # running, this waited for the late answer and its repair request.
    await asyncio.get_running_loop().shutdown_default_executor()
    assert len(fake_llm.chat_requests) == 1
    assert not app.jobs.running()


def _long_stream(paragraphs: int = 100, words: int = 20) -> list[str]:
    """A long answer in one chunk per word (``paragraphs × words`` chunks)."""
    pieces: list[str] = []
    for n in range(paragraphs):
        pieces += [f"word{n}_{w} " for w in range(words - 1)] + [f"end{n}.\n\n"]
    pieces[-1] = pieces[-1].rstrip("\n")
    return pieces


async def test_a_long_streamed_answer_is_shown_in_few_markdown_updates(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 streamed pieces are not 2,000 parses of the whole answer so far (that took 94 s
    to show an 841-word answer the server sent in under a second): the pieces arriving while
    the answer is drawn are shown together, and the final text is exactly the answer."""
    from textual.widgets import Markdown

    calls: list[str] = []
    update, append = Markdown.update, Markdown.append

    def counted_update(self: Markdown, markdown: str) -> Any:
        calls.append("update")
        return update(self, markdown)

    def counted_append(self: Markdown, markdown: str) -> Any:
        calls.append("append")
        return append(self, markdown)

    monkeypatch.setattr(Markdown, "update", counted_update)
    monkeypatch.setattr(Markdown, "append", counted_append)
    _one_unit(repo)
    app = _app(repo, tmp_path)
    pieces = _long_stream()
    content = "".join(pieces)
    fake_llm.script(Reply.text(content, chunks=pieces))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"explain", "enter")
        await app.workers.wait_for_complete()
        answer = app.query(".chat-answer").last()
        assert isinstance(answer, Markdown)
        assert answer.source == content
        paragraphs = answer.query("MarkdownParagraph")
        assert len(paragraphs) == 100
        assert str(paragraphs.last().render()).endswith("end99.")
    assert 1 <= len(calls) <= 100, f"{len(calls)} Markdown updates for {len(pieces)} pieces"


async def test_quitting_while_an_answer_streams_leaves_no_stray_errors(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """q while a long answer streams: no "exception was never retrieved" (hundreds of
    CancelledError tracebacks printed after the workbench closed)."""
    import gc

    _one_unit(repo)
    app = _app(repo, tmp_path)
    pieces = _long_stream()
    fake_llm.script(Reply.text("".join(pieces), chunks=pieces, chunk_delay=0.002))
    loop = asyncio.get_running_loop()
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await pilot.press("c", *"explain", "enter")
            answer = app.query(".chat-answer").last()
            while "end30." not in getattr(answer, "source", ""):  # streaming by now
                await pilot.pause(0.02)
            app.table.focus()
            await pilot.press("q")
        await loop.shutdown_default_executor()  # the worker is done
        # What the process does as it ends (asyncio.run): cancel what is left, let it finish.
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)
        del left
        for _ in range(3):
            gc.collect()
            await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
    assert [str(e.get("message")) for e in errors] == []


async def test_after_c_continues_an_answer_the_next_question_goes_to_the_input(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """The transcript takes the focus to offer ``c``; once ``c`` continues the answer the
    input has it back: the next question typed is text, not workbench keys (``s`` skipped
    the unit, ``e`` opened the requests)."""
    from reviewtui.tui.widgets.chat_input import ChatInput

    _one_unit(repo)
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.text("alpha beta gamma delta", cut_after=2),
                    Reply.text(" gamma delta. Done."))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"what changed?", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.focused is app.query_one("#chat-log")  # c there continues
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "round 1 continued in round 2" in _status(app)
        chat_input = app.query_one("#chat-input", ChatInput)
        assert app.focused is chat_input
        await pilot.press(*"is this safe?")
        assert chat_input.text == "is this safe?"
        assert app.screen is app.screen_stack[0]  # no modal (e)
        assert [r.status for r in app.rows] == ["new"]  # not skipped (s)


LONG_PATH = "src/a_rather_long_package_name/with_a_deeper_module_path/the_module.py"


async def test_a_refresh_fits_the_location_column_to_the_units_there_are_now(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """``r`` after files left the change: the location column is as wide as a workbench
    opened on what is left would make it (not the gone file's long name); a file that joins
    with a longer name widens it again, shown whole."""
    repo.write(LONG_PATH, "def far():\n    return 1\n")
    repo.write("app/a.py", "def a():\n    return 1\n")
    repo.commit("base")
    repo.write(LONG_PATH, "def far():\n    return 2\n")
    repo.write("app/a.py", "def a():\n    return 2\n")
    size = (300, 40)
    app = _app(repo, tmp_path)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.query_one(UnitTable)
        assert table.fit.location_width == 60  # the long name: as wide as the column gets
        repo.write(LONG_PATH, "def far():\n    return 1\n")  # its change undone
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [r.unit.location for r in app.rows] == ["app/a.py:L2"]
        shrunk = table.fit
        widths = {str(c.label): c.width for c in table.columns.values()}
        location = str(table.get_row_at(0)[list(widths).index("location")])
        assert location == "app/a.py:L2"
    opened = _app(repo, tmp_path / "again")
    async with opened.run_test(size=size) as pilot:
        await pilot.pause()
        assert shrunk == opened.query_one(UnitTable).fit  # as if opened on it
        assert shrunk.location_width < 60
        assert widths["location"] == shrunk.location_width
    app = _app(repo, tmp_path)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        longer = "app/a_module_with_a_longer_name.py"
        repo.write(longer, "VALUE = 1\n")
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.query_one(UnitTable)
        [row] = [r for r in app.rows if r.unit.file_path == longer]
        column = [str(c.label) for c in table.columns.values()].index("location")
        shown = str(table.get_row_at(table.get_row_index(row.unit.unit_id))[column])
        assert shown == row.unit.location  # whole, not "…name.py:L1"


@pytest.mark.parametrize("size", [(40, 12), (120, 12), (60, 16)])
async def test_a_tiny_terminal_keeps_rows_for_the_chat_transcript(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer,
        size: tuple[int, int]) -> None:
    """Under 18 rows the chat's input was as tall as its wrapped hint and the rounds line and
    the detail took the rest: the transcript had one row, or none, for the answer."""
    _many_units(repo)
    app = _app(repo, tmp_path)
    fake_llm.script(Reply.text("The answer is short."))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("c", *"what?", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        chat = app.query_one(ChatPane)
        log = chat.query_one("#chat-log", VerticalScroll)
        entry = chat.query_one("#chat-input")
        assert log.size.height >= 3, log.region
        assert entry.region.bottom <= chat.region.bottom  # the input is not cut off below
        answer = chat.query(".chat-answer").last()
        assert answer.region.height > 0 and log.region.y <= answer.region.y < log.region.bottom
        table = app.query_one(UnitTable)  # the cursor's row stays in sight above the chat
        assert table.scrollable_content_region.height > table.header_height, table.region
