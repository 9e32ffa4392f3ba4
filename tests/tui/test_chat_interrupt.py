"""The chat's stop key (Escape) in the middle of a streamed answer: what was shown is kept.

The scripted server streams slowly, Pilot presses Escape once the answer is on the screen, and
the test reads the SQLite session. Before, the round stayed in flight without an answer: the
text the person had read was gone from the session, and a workbench opened again showed none of
it.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from textual.widgets import Markdown

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.sessions import SessionStore
from reviewtui.tui.app import ReviewApp
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer

WORDS = [f"word{n} " for n in range(80)]


def _app(repo: GitRepoBuilder, store: Path) -> ReviewApp:
    return ReviewApp(load_change(repo.root, ChangeSelector(SelectorMode.AUTO)), store_path=store)


async def test_escape_keeps_the_streamed_answer_marked_interrupted(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    store_path = tmp_path / "s.sqlite3"
    fake_llm.script(Reply.text("".join(WORDS), chunks=WORDS, chunk_delay=0.1))
    app = _app(repo, store_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            await pilot.pause(0.1)
            shown = [m.source for m in app.query(".chat-answer").results(Markdown)]
            if shown and shown[-1].count("word") >= 5:
                break
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        header = str(app.query_one("#chat-rounds").render())
        assert "round 1" in header and "interrupted" in header
    with SessionStore(store_path) as store:
        [session] = store.list_sessions(limit=0)
        [record] = store.rounds(session.session_id)
    assert record.ended_at is not None and record.interrupted
    assert record.answer.startswith("word0 word1 word2 word3 word4 ")
    assert len(record.answer) < len("".join(WORDS))
    # opened again, the workbench shows the kept answer and that it was stopped
    app = _app(repo, store_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        shown = [m.source for m in app.query(".chat-answer").results(Markdown)]
        notices = [str(w.render()) for w in app.query(".chat-notice")]
        assert shown == [record.answer]
        assert "(this answer is not whole: you stopped it)" in notices


async def test_a_question_asked_while_an_answer_streams_stops_it_and_says_so(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """The second question stopped the first answer without a word in the transcript: it
    looked like the model's whole answer."""
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    store_path = tmp_path / "s.sqlite3"
    fake_llm.script(Reply.text("".join(WORDS), chunks=WORDS, chunk_delay=0.1),
                    Reply.text("It checks the account is active."))
    app = _app(repo, store_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            await pilot.pause(0.1)
            shown = [m.source for m in app.query(".chat-answer").results(Markdown)]
            if shown and shown[-1].count("word") >= 5:
                break
        await pilot.press(*"and now?", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        log = [(w.classes, str(w.render()) if not isinstance(w, Markdown) else w.source)
               for w in app.query("#chat-log > *")]
        texts = [text for _, text in log]
        assert texts[0] == "> why?" and texts[1].startswith("word0 ")
        assert texts[2] == "cancelled"  # said where it stopped, before the next question
        assert texts[3:] == ["> and now?", "It checks the account is active."]
    with SessionStore(store_path) as store:
        [session] = store.list_sessions(limit=0)
        first, second = store.rounds(session.session_id)
    assert first.interrupted and first.answer.startswith("word0 ")
    assert second.answer == "It checks the account is active." and not second.interrupted


async def test_the_status_says_summarising_only_while_it_does(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """The round whose prompt needs an old round's summary asks for it first, and says so; the
    status line must not go on saying so while the answer streams."""
    from reviewtui.sessions.records import RoundRecord

    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    store_path = tmp_path / "s.sqlite3"
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    with SessionStore(store_path) as store:
        sid = store.session_for_change(str(loaded.root), loaded.change_set.key, "chat").session_id
        for n in range(7):  # round 1 is out of the last six, without a summary
            store.end_round(sid, RoundRecord(index=n, user_message=f"question {n}?",
                                             answer=f"answer {n}."))
    fake_llm.script(Reply.delay(0.5, Reply.text("Round 1 asked question 0.")),
                    Reply.text("".join(WORDS), chunks=WORDS, chunk_delay=0.1))
    app = ReviewApp(loaded, store_path=store_path)
    statuses: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            await pilot.pause(0.05)
            statuses.append(str(app.query_one("#status").render()))
            shown = [m.source for m in app.query(".chat-answer").results(Markdown)]
            if shown and shown[-1].count("word") >= 5:
                break
        assert any("summarising round 1 for the prompt" in s for s in statuses)
        assert "summarising" not in statuses[-1]
        await pilot.press("escape")
        await app.workers.wait_for_complete()


async def test_quitting_mid_answer_keeps_what_was_streamed(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """``q`` while an answer streams: the workbench closes, and the answer read so far is kept
    in the session marked interrupted, as Escape keeps it (the worker's save ends first)."""
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    store_path = tmp_path / "s.sqlite3"
    fake_llm.script(Reply.text("".join(WORDS), chunks=WORDS, chunk_delay=0.1))
    app = _app(repo, store_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            await pilot.pause(0.1)
            shown = [m.source for m in app.query(".chat-answer").results(Markdown)]
            if shown and shown[-1].count("word") >= 5:
                break
        app.table.focus()  # (out of the input: there q is a letter; Escape would stop it)
        await pilot.pause()
        assert app.jobs.running("chat")
        await pilot.press("q")
    # The process ends as ``App.run`` (``asyncio.run``) ends: once the default executor, where
    # the worker threads run, is shut down -- the chat worker's save must be done by then.
    await asyncio.get_running_loop().shutdown_default_executor()
    with SessionStore(store_path) as store:
        [session] = store.list_sessions(limit=0)
        [record] = store.rounds(session.session_id)
    assert record.ended_at is not None and record.interrupted
    assert record.answer.startswith("word0 word1 word2 word3 word4 ")


async def test_an_answer_stopped_with_escape_is_offered_for_continuing(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """Escape mid-answer kept the text, but only ``reviewtui ask --continue`` could go on with
    it: the workbench offered ``c`` for a cut-off answer, not for one the person stopped. The
    input keeps the focus (the person may type another question at once); shift+tab reaches
    the transcript, where ``c`` continues."""
    from reviewtui.conversation.packing import INTERRUPTED_MARKER
    from reviewtui.tui.widgets.chat_input import ChatInput

    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    store_path = tmp_path / "s.sqlite3"
    fake_llm.script(Reply.text("".join(WORDS), chunks=WORDS, chunk_delay=0.1),
                    Reply.text("word79 and that is all."))
    app = _app(repo, store_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            await pilot.pause(0.1)
            shown = [m.source for m in app.query(".chat-answer").results(Markdown)]
            if shown and shown[-1].count("word") >= 5:
                break
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        notices = [str(w.render()) for w in app.query(".chat-notice")]
        assert notices[0] == "cancelled"
        assert "you stopped the answer" in notices[-1] and "c continues it" in notices[-1]
        assert "cancelled: chat" in str(app.query_one("#status").render())
        assert isinstance(app.focused, ChatInput)  # still typing: c there is a letter
        await pilot.press("shift+tab")
        assert app.focused is app.query_one("#chat-log")
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = [m.source for m in app.query(".chat-answer").results(Markdown)]
        assert shown[-1] == "word79 and that is all."
        assert "round 1 continued in round 2" in str(app.query_one("#status").render())
        assert isinstance(app.focused, ChatInput)
    stopped = fake_llm.chat_requests[1].body["messages"]
    assert stopped[-2]["role"] == "assistant"
    assert stopped[-2]["content"].startswith("word0 word1 word2 word3 word4 ")
    assert stopped[-2]["content"].endswith(INTERRUPTED_MARKER)
    with SessionStore(store_path) as store:
        [session] = store.list_sessions(limit=0)
        rounds = store.rounds(session.session_id)
    assert [(r.interrupted, r.continues) for r in rounds] == [(True, None), (False, 0)]


async def test_escape_away_from_the_input_gives_the_transcript_the_focus_to_continue(
        repo: GitRepoBuilder, tmp_path: Path, fake_llm: ScriptedOpenAIServer) -> None:
    """Stopped from the table (not typing), the transcript takes the focus, as for a cut-off
    answer: ``c`` continues at once."""
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")
    store_path = tmp_path / "s.sqlite3"
    fake_llm.script(Reply.text("".join(WORDS), chunks=WORDS, chunk_delay=0.1),
                    Reply.text("word79 and that is all."))
    app = _app(repo, store_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c", *"why?", "enter")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            await pilot.pause(0.1)
            shown = [m.source for m in app.query(".chat-answer").results(Markdown)]
            if shown and shown[-1].count("word") >= 5:
                break
        app.table.focus()
        await pilot.pause()
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.focused is app.query_one("#chat-log")
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "round 1 continued in round 2" in str(app.query_one("#status").render())
    assert len(fake_llm.chat_requests) == 2
