"""Loading a change for the workbench: its files analysed across cores while the app paints.

The workbench paints first and loads the change in a thread worker. Worker processes cannot be
forked from there (a process with threads can fork a lock another thread holds), so the
analysis would use one core. Instead ``BackgroundAnalysis.start`` forks one process before the
app (and its threads) start: it loads the change as ``reviewtui index`` would (its files
spread over forked workers, results written to the per-file cache by that one process) and
sends its progress, units included, through a pipe. The worker thread forwards that progress
to the loading view, then loads the change itself, which the cache now answers file by file.
If the process fails or there is no cache, the thread's own load does the work (and says any
error) as it would have alone. For a commit or a range whose whole analysis is kept
(``pipeline.snapshot``) the process only checks the snapshot's key and ends.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from dataclasses import replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewtui.analysis.progress import AnalysisProgress, ProgressCallback
    from reviewtui.git import ChangeSelector
    from reviewtui.pipeline import LoadedChange

NICE = 10  # the analysis process and its workers run this much below the app
POLL = 0.1  # seconds between two checks whether to stop, while waiting for a report


def _analyse(path: str | Path | None, selector: ChangeSelector, send: Connection,
             receive: Connection) -> None:
    """In the forked process: load the change into the cache, sending every report. Its copy
    of the pipe's reading end is closed first: held here, a pipe whose app had gone (the
    terminal closed, the app killed) never broke, and the next report blocked this process
    and its workers for good once the pipe was full. Now that report fails and the
    analysis ends."""
    receive.close()
    from reviewtui.pipeline.loading import load_change, snapshot_kept

    os.setpgid(0, 0)  # its workers with it: ``stop`` ends the whole group
    # Below the app: on two cores the app's imports and first paint must not wait for the
    # analysis (which, with its workers, would take both); idle cores it gets all the same.
    os.nice(NICE)

    reports = 0

    def report(progress: AnalysisProgress) -> None:
        nonlocal reports
        reports += 1
        if reports == 1 and progress.complete:
            # The cache knew every file: the app's own load reads it as fast as this one.
            send.send(replace(progress, finished=()))
            raise _NothingToDo
        send.send(progress)

    # Any failure: the app's own load meets it again and says it.
    with contextlib.suppress(Exception):
        if not snapshot_kept(path, selector):  # else the app's own load reads the snapshot
            load_change(path, selector, use_cache=True, progress=report)
    send.close()


class _NothingToDo(Exception):
    pass


class BackgroundAnalysis:
    """One forked process loading the change into the per-file cache, and its reports."""

    def __init__(self, process: BaseProcess, receive: Connection) -> None:
        self._process = process
        self._receive = receive

    @classmethod
    def start(cls, path: str | Path | None, selector: ChangeSelector
              ) -> BackgroundAnalysis | None:
        """Start it (None where forking is not safe or not possible: do it all in-thread)."""
        if (sys.platform != "linux" or (os.cpu_count() or 1) < 2
                or threading.active_count() > 1
                or "fork" not in multiprocessing.get_all_start_methods()):
            return None
        context = multiprocessing.get_context("fork")
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_analyse, args=(path, selector, send, receive),
                                  name="reviewtui-analysis", daemon=False)
        process.start()
        send.close()  # the child holds the sending end: end of file when it is done
        return cls(process, receive)

    def follow(self, progress: ProgressCallback) -> None:
        """Hand every report to ``progress`` until the process is done; if ``progress``
        raises (the app quits), the process is stopped and the exception raised."""
        try:
            while True:
                if not self._receive.poll(POLL):
                    if not self._process.is_alive() and not self._receive.poll(0):
                        break
                    continue
                try:
                    report = self._receive.recv()
                except (EOFError, OSError):
                    break
                progress(report)
        finally:
            self.stop()

    @property
    def alive(self) -> bool:
        return self._process.is_alive()

    def stop(self) -> None:
        """End the process if it still runs, and wait for it."""
        if self._process.is_alive() and self._process.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                try:
                    os.killpg(self._process.pid, signal.SIGTERM)
                except ProcessLookupError:  # not yet its own group: only the process
                    os.kill(self._process.pid, signal.SIGTERM)
        self._process.join()
        self._receive.close()


def screen_name(root: Path, selector: ChangeSelector) -> str:
    """The file name the workbench's first screen of this change is kept under (one per
    repository and selector: see ``tui.kept_screen``)."""
    import hashlib
    import json

    named = json.dumps([str(root), selector.mode.value, selector.ref, selector.patch,
                        selector.include_untracked])
    return hashlib.sha256(named.encode()).hexdigest()[:24] + ".json"


def _where(path: str | Path | None) -> tuple[Path | None, Path | None]:
    """The repository's top folder and git common folder, as one ``git rev-parse`` says them
    (None, None: not a repository, or git cannot be run: the load says why)."""
    import subprocess

    folder = Path(path) if path is not None else Path.cwd()
    try:
        found = subprocess.run(["git", "rev-parse", "--show-toplevel", "--git-common-dir"],
                               cwd=folder, capture_output=True, text=True, check=False,
                               timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None, None
    lines = found.stdout.splitlines()
    if found.returncode != 0 or len(lines) != 2 or not all(lines):
        return None, None
    return Path(lines[0]), folder / lines[1]  # (an absolute path stays itself)


class WorkbenchLoad:
    """How the workbench loads its change: ``start`` now (before the app starts threads),
    call it from the app's loading worker with the progress callback, ``stop`` at the end."""

    def __init__(self, path: str | Path | None, selector: ChangeSelector, *,
                 use_cache: bool = True) -> None:
        from reviewtui.git import SelectorMode

        self._path, self._selector, self._use_cache = path, selector, use_cache
        # Without the cache the process' results could not reach this one; a patch is never
        # cached (git does not name its contents).
        from reviewtui.analysis.cache_file import cache_path

        wanted = use_cache and selector.mode is not SelectorMode.PATCH
        self._root, common = _where(path)  # (the root names the settings: see ``theme``)
        # Asked before the process starts (it creates the cache at once): a repository opened
        # for the first time has nothing kept, and collecting the change here only to learn
        # that took a core from the analysis for a second of a large first open. When it
        # cannot be told, the cache is asked.
        self._cache_kept = wanted and (common is None or cache_path(common).exists())
        self.background = BackgroundAnalysis.start(path, selector) if wanted else None
        # The workbench's first screen, as last left, is kept beside the cache (see
        # tui.kept_screen; a path only: this module does not import the TUI).
        self.kept_path = (common / "reviewtui" / "screens" / screen_name(self._root, selector)
                          if wanted and common is not None and self._root is not None
                          else None)

    def theme(self) -> str | None:
        """The ``[tui] theme`` the settings name, for the app to switch to before the change
        is loaded (the loaded change's settings still decide): the workbench calls it once its
        loading view is on screen. None when they cannot be read here."""
        from reviewtui.config import load_settings
        from reviewtui.errors import ReviewTuiError

        try:
            return load_settings(self._root).tui.theme
        except (ReviewTuiError, OSError, ValueError):
            return None

    def __call__(self, progress: ProgressCallback) -> LoadedChange:
        """The change in priority order (which counts each changed definition's reach).

        The cache may know every file already (a change opened before): then this thread
        reads it at once -- the process, still starting (it imports and collects the change
        again, niced), is stopped -- and the loading view hears the count, not the thousands
        of units it would show for a moment. Otherwise (and at once in a repository that kept
        nothing yet) the process' reports are followed until it has computed every file, and
        the cache answers the load after it."""
        from reviewtui.pipeline import load_change

        last: list[AnalysisProgress] = []

        def heard(report: AnalysisProgress) -> None:
            last[:] = [report]
            progress(report)

        def ordering(done: int, total: int) -> None:
            """The history of the changed lines read for so many files: said as a report."""
            if last:
                progress(replace(last[0], finished=(), ordering=(done, total)))

        if self.background is None:
            loaded = load_change(self._path, self._selector, use_cache=self._use_cache,
                                 progress=heard)
            return loaded.with_reach(progress=ordering)
        from reviewtui.analysis.cached_only import NotCached

        try:
            kept: LoadedChange | None = None
            if self._cache_kept:
                with contextlib.suppress(NotCached):
                    kept = load_change(self._path, self._selector, use_cache=True,
                                       progress=lambda p: heard(replace(p, finished=())),
                                       cached_only=True)
            if kept is None:
                self.background.follow(heard)
                kept = load_change(self._path, self._selector, use_cache=True,
                                   progress=heard)
        finally:
            self.background.stop()  # at once when the cache knew every file, and on errors
        return kept.with_reach(progress=ordering)

    def stop(self) -> None:
        if self.background is not None:
            self.background.stop()
