"""The workbench's keys through Pilot, on a real repository and a real session store."""

from __future__ import annotations

import time
from pathlib import Path

from textual.pilot import Pilot

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.models import ContextLevel
from reviewtui.pipeline import load_change
from reviewtui.sessions.store import SessionStore
from reviewtui.tui.app import ReviewApp
from reviewtui.tui.screens.help import HelpScreen
from reviewtui.tui.screens.requests_modal import RequestsModal
from reviewtui.tui.widgets.chat_pane import ChatPane
from reviewtui.tui.widgets.detail_pane import DetailPane
from reviewtui.tui.widgets.key_footer import KeyFooter
from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply, ScriptedOpenAIServer


def _repo(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/auth.py", "def login(u):\n    return u.ok\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b\n" + "\n" * 30
               + "def sub(a, b):\n    return a - b\n")
    repo.write("app/views.py", "from app.util import add\n\n\ndef v():\n    return add(1, 2)\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(u):\n    return u.ok and u.active\n")
    repo.write("app/util.py", "def add(a, b):\n    return a + b + 0\n" + "\n" * 30
               + "def sub(a, b):\n    return a - b - 0\n")
    return repo


async def _shown_keys(pilot: Pilot[None], app: ReviewApp) -> KeyFooter:
    """The footer once it shows keys: it composes them at a refresh of its own, which on a
    busy machine comes after the first pause."""
    footer = app.query_one(KeyFooter)
    end = time.monotonic() + 20
    while not footer.keys_shown() and time.monotonic() < end:
        await pilot.pause(0.02)
    return footer


def _app(repo: GitRepoBuilder, store: Path) -> ReviewApp:
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.AUTO))
    return ReviewApp(loaded, store_path=store)


async def test_navigation_levels_skip_reviewed_persist(repo: GitRepoBuilder,
                                                       tmp_path: Path) -> None:
    _repo(repo)
    store_path = tmp_path / "s.sqlite3"
    app = _app(repo, store_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert app.current() == app.rows[0].unit.unit_id
        await pilot.press("j")
        assert app.current() == app.rows[1].unit.unit_id
        await pilot.press("k")
        assert app.current() == app.rows[0].unit.unit_id
        await pilot.press("n")  # next file: auth.py -> util.py
        assert app.triage.by_id[app.current() or ""].file_path == "app/util.py"
        await pilot.press("p")
        assert app.triage.by_id[app.current() or ""].file_path == "app/auth.py"
        await pilot.press("n")
        unit = app.current() or ""
        for key, level in (("1", "diff_only"), ("2", "function"), ("3", "file_context"),
                           ("4", "full_file")):
            await pilot.press(key)
            assert app.triage.item(unit).final_context_level.value == level
        await pilot.press("left_square_bracket")
        assert app.triage.item(unit).final_context_level is ContextLevel.FILE_CONTEXT
        await pilot.press("right_square_bracket")
        assert app.triage.item(unit).final_context_level is ContextLevel.FULL_FILE
        assert app.triage.item(unit).provenance.level == "user"
        await pilot.press("s")
        assert app.triage.row(unit).status == "skipped"
        await pilot.press("s", "space")
        assert app.triage.row(unit).status == "reviewed"
        await pilot.press("o")
        assert app.triage.sort_key == "risk"
    # Everything the person decided is in the session store of this change.
    with SessionStore(store_path) as store:
        (session,) = store.list_sessions()
        override = store.overrides(session.session_id).units[unit]
        assert override.level is ContextLevel.FULL_FILE
        assert unit in [m.unit_id for m in store.review_marks(str(repo.root))]
    # ...and a new workbench on the same change shows it again.
    again = _app(repo, store_path)
    async with again.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert again.triage.item(unit).final_context_level is ContextLevel.FULL_FILE
        assert again.triage.row(unit).status == "reviewed"


async def test_filter_requests_modal_help_and_bundles(repo: GitRepoBuilder,
                                                      tmp_path: Path) -> None:
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"risk:high", "enter")
        assert [r.unit.file_path for r in app.rows] == ["app/auth.py"]
        await pilot.press("slash", "escape")
        assert len(app.rows) == 3
        await pilot.press("n", "e")
        assert isinstance(app.screen, RequestsModal)
        await pilot.click("#check-callers")
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, RequestsModal)  # callers needs a symbol
        assert "needs a symbol" in str(app.screen.query_one("#requests-error").render())
        app.screen.query_one("#detail-callers").value = "add"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, RequestsModal)
        unit = app.current() or ""
        assert ("callers", "add") in [(r.type, getattr(r, "symbol", None))
                                      for r in app.triage.item(unit).extra_requests]
        await pilot.press("b")
        await app.workers.wait_for_complete()
        await pilot.pause()
        bundle = app.bundles[unit]
        assert [c.file_path for c in bundle.callers] == ["app/views.py"]
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_chat_without_a_model_says_how_to_configure(repo: GitRepoBuilder,
                                                          tmp_path: Path) -> None:
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        chat = app.query_one(ChatPane)
        assert chat.has_class("visible")
        notices = [str(w.render()) for w in chat.query(".chat-notice")]
        assert any("REVIEWTUI_MODEL" in n for n in notices)
        await pilot.press("P")  # the planner: a notification, nothing breaks
        await pilot.pause()
        assert app.triage.plan.planner.status == "skipped"


async def test_the_footer_says_how_to_leave_the_chat_input(repo: GitRepoBuilder,
                                                           tmp_path: Path) -> None:
    """While the chat input has the focus its letters type text, so the footer leads with
    "esc leave chat"; Escape gives the focus back to the table and the hint goes."""
    app = _app(_repo(repo), tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await _shown_keys(pilot, app)
        await pilot.press("c")
        await pilot.pause()
        footer = [(key.key, key.description) for key in app.query_one(KeyFooter).keys_shown()]
        assert footer[0] == ("escape", "leave chat")
        await pilot.press("q")  # typed, not quit
        assert app.is_running
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is app.table
        assert app.query_one(ChatPane).has_class("visible")  # the chat stays open
        footer = [(key.key, key.description) for key in app.query_one(KeyFooter).keys_shown()]
        assert ("escape", "leave chat") not in footer


async def test_planner_and_chat_with_a_model(repo: GitRepoBuilder, tmp_path: Path,
                                             fake_llm: ScriptedOpenAIServer) -> None:
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    ids = [u.unit_id for u in app.loaded.units]
    fake_llm.script(Reply.json({"plan": [{"unit_id": uid, "llm_context_level": "full_file"}
                                         for uid in ids]}))
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("P")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.triage.plan.planner.status == "ok"
        assert all(r.item.llm_context_level is ContextLevel.FULL_FILE for r in app.rows)
        fake_llm.script(Reply.text("login now also checks **active**.",
                                   chunks=["login now ", "also checks ", "**active**."]))
        await pilot.press("c")
        await pilot.press(*"why", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        answers = list(app.query(".chat-answer"))
        assert answers and "checks" in answers[-1].source  # type: ignore[attr-defined]
        rounds = str(app.query_one("#chat-rounds").render())
        assert "round 1" in rounds and "inheritance cache" in rounds


async def test_a_chat_answer_with_no_text_says_so(repo: GitRepoBuilder, tmp_path: Path,
                                                 fake_llm: ScriptedOpenAIServer) -> None:
    """A model that streams no text: the chat says it sent no answer (as ``ask`` does), rather
    than showing an empty answer as if it had answered."""
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        fake_llm.script(Reply.text(""))
        await pilot.press("c")
        await pilot.press(*"why", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "the model sent no answer" in str(app.query_one("#status").render())
        notices = " ".join(str(n.render()) for n in app.query(".chat-notice"))
        assert "the model sent no answer" in notices


async def test_scanners_review_and_the_command_palette(repo: GitRepoBuilder, tmp_path: Path,
                                                       fake_llm: ScriptedOpenAIServer) -> None:
    import json
    import shutil

    _repo(repo)
    repo.write("app/util.py", "import os\n" + (repo.root / "app/util.py").read_text())
    app = _app(repo, tmp_path / "s.sqlite3")
    util = next(u.unit_id for u in app.loaded.units if u.file_path == "app/util.py"
                and u.hunks[0].new_start <= 2)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        if shutil.which("ruff") is not None:
            await pilot.press("S")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.triage.findings.get(util, 0) >= 1  # F401: os imported, unused
            assert "findings" in str(app.query_one("#status").render())
        kept = [r.unit.unit_id for r in app.rows if not r.item.skip_review]
        fake_llm.script(Reply.json({"verdict": "comment", "summary": "One thing.", "findings": [
            {"title": "Adds zero", "body": "`+ 0` does nothing", "severity": "P3",
             "confidence": 0.6, "file_path": "app/util.py", "start_line": 3,
             "end_line": 3}]}))
        await pilot.press("R")
        await app.workers.wait_for_complete()
        await pilot.pause()
        body = json.dumps(fake_llm.chat_requests[-1].body)
        assert all(uid in body for uid in kept)  # the review saw every kept unit
        answers = list(app.query(".chat-answer"))
        assert "Adds zero" in answers[-1].source  # type: ignore[attr-defined]
        # Every action is in the command palette, with its keys.
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Raise the level", "Requests", "Review", "Run scanners", "Filter"} <= titles


async def test_an_unknown_theme_is_reported_not_fatal(repo: GitRepoBuilder,
                                                      tmp_path: Path) -> None:
    _repo(repo)
    repo.write(".reviewtui.toml", '[tui]\ntheme = "no-such-theme"\n')
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert app.theme == "reviewtui-dark"
        assert any("no-such-theme" in str(n.message) for n in app._notifications)


async def test_the_fix_keys_are_in_the_footer_and_the_help(repo: GitRepoBuilder,
                                                           tmp_path: Path) -> None:
    """ctrl+f (preview, ask for a fix) and u (undo) show in the footer as the finding keys do;
    the help names them and the preview's own keys (a apply, u undo, y copy, r again)."""
    app = _app(_repo(repo), tmp_path / "s.sqlite3")
    async with app.run_test(size=(240, 40)) as pilot:
        await pilot.pause()
        shown = {(b.binding.key, b.binding.description) for b in app.active_bindings.values()
                 if b.binding.show}
        assert {("a", "accept"), ("ctrl+f", "fix"), ("u", "undo fix")} <= shown
        footer = [key.key for key in (await _shown_keys(pilot, app)).keys_shown()]  # in order
        assert footer.index("x") < footer.index("ctrl+f") < footer.index("u")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        listed = dict(app.screen.keys)
        assert "a applies it, u undoes it, y copies the patch" in listed["ctrl+f"]
        assert listed["u"].startswith("undo the fix applied to the finding")


async def test_the_footer_keeps_its_keys_until_they_change(repo: GitRepoBuilder,
                                                           tmp_path: Path) -> None:
    """The footer composes its keys again only when what it shows changes: a bindings
    update and a focus move between panes that share their keys keep the same key widgets,
    while the chat input (whose keys differ) gets its own -- once: going back and forth
    between the table and the chat input (or the filter) shows the keys composed the first
    time (composing ~30 key widgets each way held the screen back 60-180 ms)."""
    app = _app(_repo(repo), tmp_path / "s.sqlite3")
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.pause()
        footer = await _shown_keys(pilot, app)
        keys = footer.keys_shown()
        assert [k.key for k in keys][:3] == ["question_mark", "q", "c"]
        app.refresh_bindings()  # the bindings "changed" to the same keys
        await pilot.pause()
        assert footer.keys_shown() == keys  # the same widgets, not new ones
        app.query_one(DetailPane).focus()  # another pane, the same keys
        await pilot.pause()
        assert footer.keys_shown() == keys
        await pilot.press("c")  # the chat input: its own first key
        await pilot.pause()
        chat_keys = footer.keys_shown()
        assert (chat_keys[0].key, chat_keys[0].description) == ("escape", "leave chat")
        await pilot.press("escape")
        await pilot.pause()
        assert footer.keys_shown() == keys  # the table's keys again, as composed at first
        assert all(not k.parent.display for k in chat_keys if k.parent is not None)
        app.query_one("ChatInput").focus()  # the chat stayed open: back into its input
        await pilot.pause()
        assert footer.keys_shown() == chat_keys
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("slash")  # the filter: its own keys, one page more
        await pilot.pause()
        assert footer.keys_shown() not in (keys, chat_keys)
        await pilot.press("escape")
        await pilot.pause()
        assert footer.keys_shown() == keys
        assert ("escape", "leave chat") not in [(k.key, k.description)
                                                for k in footer.keys_shown()]
        await pilot.click("FooterKey.-compact", offset=(1, 0))  # the first key, clickable
        await pilot.pause()
        assert app.screen.__class__.__name__ == "HelpScreen"


async def test_keys_on_a_filter_that_matches_nothing(repo: GitRepoBuilder,
                                                     tmp_path: Path) -> None:
    """No row to be on: moving, marking, sorting, zooming say nothing and change nothing
    (``k`` after ``j`` on the empty table raised out of the app)."""
    _repo(repo)
    app = _app(repo, tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"no-such-unit", "enter")
        await pilot.pause()
        assert app.rows == []
        for key in ("j", "k", "n", "p", "s", "space", "1", "o", "z", "z", "e"):
            await pilot.press(key)
            await pilot.pause()
            assert app.is_running, key
        await pilot.press("escape", "slash", "escape")
        await pilot.pause()
        assert len(app.rows) == 3 and app.current() == app.rows[0].unit.unit_id


async def test_saving_the_requests_unchanged_keeps_several_of_one_type(
        repo: GitRepoBuilder, tmp_path: Path) -> None:
    """A unit changing ``login`` and ``logout`` gets ``search_callers`` for each; ``e`` then
    ctrl+s without an edit kept only the last one of each type, and saved that. Now every
    request shows on its own row, saving unchanged keeps them all, and another one of a type
    can be added on the type's empty row."""
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n\n\n"
                              "def logout(user):\n    return None\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n\n\n"
                              "def logout(user):\n    user.session.clear()\n    return None\n")
    store_path = tmp_path / "s.sqlite3"
    app = _app(repo, store_path)

    def requests() -> list[tuple[str, str | None]]:
        item = app.triage.item(app.current() or "")
        return sorted((r.type, getattr(r, "symbol", None) or getattr(r, "keyword", None))
                      for r in item.extra_requests)

    async with app.run_test(size=(140, 50)) as pilot:
        await pilot.pause()
        before = requests()
        assert ("search_callers", "login") in before and ("search_callers", "logout") in before
        await pilot.press("e")
        assert isinstance(app.screen, RequestsModal)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, RequestsModal)
        assert requests() == before
        unit = app.current() or ""
        assert "user" not in app.triage.item(unit).provenance.extra_requests  # none changed
        await pilot.press("e")
        modal = app.screen
        assert isinstance(modal, RequestsModal)
        empty = [i for i in modal.query("Input") if i.id and i.id.startswith("detail-search_c")
                 and not i.value]  # type: ignore[attr-defined]
        empty[0].value = "session"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert requests() == sorted([*before, ("search_callers", "session")])
    with SessionStore(store_path) as store:
        (session,) = store.list_sessions()
        override = store.overrides(session.session_id).units[unit]
        assert [(r.type, getattr(r, "symbol", None)) for r in override.add_requests] == [
            ("search_callers", "session")]
        assert override.remove_requests == []


async def test_the_help_lists_every_binding_as_it_is_typed(repo: GitRepoBuilder,
                                                           tmp_path: Path) -> None:
    """``?`` showed Textual's names (``left_square_bracket``, ``slash``, ``question_mark``)
    and left out Escape / ctrl+c (stop the model) and tab (next pane). Every key the app
    binds is listed, written as it is typed, with its action's description; every key the help
    lists is bound; the filter line names every field the filter reads."""
    from textual.keys import format_key

    from reviewtui.tui.keys import ACTIONS

    app = _app(_repo(repo), tmp_path / "s.sqlite3")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        helped = app.screen
        assert isinstance(helped, HelpScreen)
        rows = {key: description for keys, description in helped.keys
                for key in keys.split(", ")}

        def typed(key: str) -> str:  # ctrl+left_square_bracket -> ctrl+[
            *modifiers, last = key.split("+")
            return "+".join([*modifiers, format_key(last)])

        bound = app._bindings.key_to_bindings
        for key, bindings in bound.items():
            for binding in bindings:
                if binding.action in ACTIONS:
                    assert rows.get(typed(key)) == ACTIONS[binding.action].description, key
        assert {"[", "]", "/", "?"} <= set(rows)
        assert not [k for k in rows if "_" in k]
        for key in rows:  # everything listed is bound: the app's keys, Textual's, Escape
            name = key if key in bound else next(
                (k for k in bound if typed(k) == key), key)
            handled = (name in bound or name in app.screen._bindings.key_to_bindings
                       or callable(getattr(app, f"key_{name}", None)))
            assert handled or (key == "esc" and callable(getattr(app, "key_escape", None))), key
        assert "stop a running planner, review or chat answer" in rows["esc"]
        assert "stop a running planner, review or chat answer" in rows["ctrl+c"]
        assert rows["tab"].startswith("next pane")
        text = " ".join(str(s.render()) for s in helped.query("Static"))
        assert "sev:" in text and "status:open" in text and "dismissed" in text
