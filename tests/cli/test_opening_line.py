"""``reviewtui`` on a terminal says what it opens from the first moment (the app's own first
paint waits for its imports and Textual's start), and erases the line when the app ends."""

from __future__ import annotations

import io
import sys
import threading
import time

import pytest

from reviewtui.cli.parser import build_parser
from reviewtui.cli.workbench import _finish_publishing, opening_line, run_workbench
from reviewtui.tui.app import ReviewApp
from tests.conftest import GitRepoBuilder


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _committed_change(repo: GitRepoBuilder) -> None:
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit("base")
    repo.write("a.py", "def f():\n    return 2\n")
    repo.commit("change")


def test_the_line_shows_on_a_terminal_only_and_is_erased() -> None:
    terminal, piped = _Terminal(), io.StringIO()
    for stream in (terminal, piped):
        with opening_line("--range a..b", stream):
            pass
    assert terminal.getvalue() == "reviewtui: opening --range a..b\u2026\r\x1b[K"
    assert piped.getvalue() == ""


def test_the_workbench_says_what_it_opens_while_it_starts(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    _committed_change(repo)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    seen: list[str] = []
    monkeypatch.setattr(ReviewApp, "run", lambda self: seen.append(terminal.getvalue()))
    args = build_parser().parse_args(["--commit", "HEAD", str(repo.root)])
    assert run_workbench(args) == 0
    assert seen == ["reviewtui: opening --commit HEAD\u2026"]  # on screen while the app runs
    assert terminal.getvalue().endswith("\r\x1b[K")  # and gone after it


def test_a_workbench_that_failed_ends_the_command_with_its_status(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual says how an app failed and sets its return code; the command exited 0."""
    _committed_change(repo)

    def failing(self: ReviewApp) -> None:
        self._return_code = 1  # as Textual's handler of an exception in the app sets it

    monkeypatch.setattr(ReviewApp, "run", failing)
    args = build_parser().parse_args(["--commit", "HEAD", str(repo.root)])
    assert run_workbench(args) == 1


def test_quitting_before_the_change_loaded_is_kept_for_main_to_end_at_once(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's load is wanted by nobody then: ``main`` (as the process) ends at once
    rather than wait for it (the prompt came back ~2 s after a quit on a large first open)."""
    import reviewtui.cli.workbench as workbench
    from reviewtui.cli.main import _left_loading

    _committed_change(repo)
    args = build_parser().parse_args(["--commit", "HEAD", str(repo.root)])
    monkeypatch.setattr(ReviewApp, "run", lambda self: None)  # quit at once
    assert run_workbench(args) == 0
    assert workbench.left_loading and _left_loading()

    def loaded(self: ReviewApp) -> None:
        self.load = None  # as finish_loading leaves it

    monkeypatch.setattr(ReviewApp, "run", loaded)
    assert run_workbench(args) == 0
    assert not workbench.left_loading and not _left_loading()


def test_a_publish_left_running_is_waited_for_and_its_end_said(
        capsys: pytest.CaptureFixture[str]) -> None:
    done, outcome = threading.Event(), {"text": ""}

    def publish() -> None:
        time.sleep(0.2)
        outcome["text"] = "published to https://github.com/octo/proj/pull/7"
        done.set()

    threading.Thread(target=publish).start()
    _finish_publishing(done, lambda: outcome["text"])
    assert capsys.readouterr().err == (
        "reviewtui: finishing the publish to the pull request…\n"
        "reviewtui: published to https://github.com/octo/proj/pull/7\n")
    _finish_publishing(done, lambda: "again")  # ended already: nothing to say
    _finish_publishing(None, lambda: "never")
    assert capsys.readouterr().err == ""
