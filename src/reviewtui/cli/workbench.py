"""``reviewtui`` in a terminal: the Textual workbench, painted first, loading the change after.

The app opens at once on a loading view and loads the change in a worker (see
``tui.opening_actions``); a change that cannot be loaded (a bad ref, not a repository) ends
the app and is said here, in one line, like any other command's error. (Reading a kept
commit or range here, before the app, and opening on the workbench itself was tried: the
first row came no sooner -- the worker's read overlaps Textual's start -- and a large change
then showed nothing but the opening line for seconds.)
"""

from __future__ import annotations

import argparse
import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

from reviewtui.cli.selectors import selector_from_args

if TYPE_CHECKING:
    from reviewtui.analysis.progress import ProgressCallback
    from reviewtui.pipeline import LoadedChange


@contextmanager
def opening_line(what: str, stream: TextIO | None = None) -> Iterator[None]:
    """``reviewtui: opening <what>...`` on a terminal's stderr from the first moment, until the
    app ends (erased then): the app's own first paint needs its imports and Textual's start,
    and a change read before the app (or a pull request fetched) is not on screen before
    that. Nothing when stderr is not a terminal."""
    stream = stream if stream is not None else sys.stderr
    try:
        shown = stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream: stay quiet
        shown = False
    if shown:
        stream.write(f"reviewtui: opening {what}\u2026")
        stream.flush()
    try:
        yield
    finally:
        if shown:
            stream.write("\r\x1b[K")
            stream.flush()


def run_workbench(args: argparse.Namespace) -> int:
    chosen = ((flag, getattr(args, name, None)) for flag, name in (
        ("--pr", "pr"), ("--commit", "commit"), ("--range", "range_spec"), ("--patch", "patch")))
    what = next((f"{flag} {value}" for flag, value in chosen if value), "the change")
    with opening_line(what):
        return _run_workbench(args)


def _run_workbench(args: argparse.Namespace) -> int:
    from reviewtui.app.open_change import WorkbenchLoad
    from reviewtui.cli.intent import read_description

    selector = selector_from_args(args)
    # The workbench reads its own stored description (``i`` edits it) when it opens.
    description = read_description(args.description,
                                   patch_from_stdin=getattr(args, "patch", None) == "-")
    opened = getattr(args, "opened_pull", None)  # --pr: set by selector_from_args
    source = "--description"
    if description is None and opened is not None:
        from reviewtui.app.open_pr import PULL_DESCRIPTION_SOURCE

        description = opened.description  # the pull request's title, body and labels
        source = PULL_DESCRIPTION_SOURCE
    # Started before the app and its threads: the files are analysed across cores in a
    # process forked now (see app.open_change).
    opening = WorkbenchLoad(args.path, selector, use_cache=not args.no_cache)
    from reviewtui.tui.app import ReviewApp

    def load(progress: ProgressCallback) -> LoadedChange:
        loaded = opening(progress)
        # The workbench runs for long: collect garbage cycles again, but leave the loaded
        # change (hundreds of thousands of objects that live as long as the app) out of
        # every scan.
        gc.freeze()
        gc.enable()
        return loaded

    app = ReviewApp(load=load, watch=args.watch, description=description,
                    description_source=source, pull=args.pr if opened is not None else None,
                    theme=opening.theme,  # read once the loading view is on screen
                    kept_path=opening.kept_path)
    try:
        app.run()
    finally:
        opening.stop()  # if the app ended before its worker followed the process to the end
    _finish_publishing(app.publishing, lambda: app.publish_result)
    if app.open_error is not None:
        raise app.open_error
    global left_loading
    left_loading = app.load is not None  # quit before the change was loaded
    return app.return_code or 0  # 1 when the app failed (Textual has said how, above)


def _finish_publishing(publishing: threading.Event | None, result: Callable[[], str]) -> None:
    """Quit while the review was being published: it goes on to its end (half a review sent
    is worse than waiting), and the terminal says so -- it showed only the line printed before
    the workbench opened -- and then how it ended."""
    if publishing is None or publishing.is_set():
        return
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K")  # in place of the opening line, still on the terminal
    sys.stderr.write("reviewtui: finishing the publish to the pull request…\n")
    sys.stderr.flush()
    publishing.wait()
    from reviewtui.app.terminal_text import shown_text

    sys.stderr.write(f"reviewtui: {shown_text(result(), one_line=True)}\n")


# Quit while the change still loaded: the worker thread's load (the priority order's blame and
# reach, seconds on a large first open) is wanted by nobody, and the interpreter waited for it
# to end before the shell's prompt came back (1.8-2.0 s on 2,606 units). ``main`` then ends
# the process at once: what the load writes is written whole or not at all (temporary files
# renamed, SQLite transactions, the commit facts' torn last line set apart).
left_loading = False
