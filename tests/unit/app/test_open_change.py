"""The workbench's load: files analysed in a forked process, then answered by the cache."""

from __future__ import annotations

import threading

import pytest

from reviewtui.analysis.progress import AnalysisProgress
from reviewtui.app.open_change import WorkbenchLoad
from reviewtui.errors import ReviewTuiError
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder


def _change(repo: GitRepoBuilder, files: int = 12) -> None:
    for n in range(files):
        repo.write(f"pkg/m{n:02}.py", "".join(f"def f{j}():\n    return {j}\n\n"
                                              for j in range(5 + n)))
    repo.commit("base")
    for n in range(files):
        repo.write(f"pkg/m{n:02}.py", "".join(f"def f{j}():\n    return {j + (j % 3 == 0)}\n\n"
                                              for j in range(5 + n)))


def _analysis(heard: list[AnalysisProgress]) -> list[AnalysisProgress]:
    """The reports of the analysis, without the priority order's that follow them (each
    checked: after every analysis report, complete, counting up to its total)."""
    first = next((n for n, p in enumerate(heard) if p.ordering is not None), len(heard))
    ordering = heard[first:]
    assert all(p.ordering is not None and p.complete and not p.finished for p in ordering)
    counts = [p.ordering for p in ordering if p.ordering is not None]
    assert [done for done, _ in counts] == sorted(done for done, _ in counts)
    assert all(done <= total for done, total in counts)
    return heard[:first]


def _needs_fork() -> None:
    if threading.active_count() > 1:
        pytest.skip("this test process runs threads: the load stays in-process")


def test_the_process_analyses_and_the_load_reads_its_cache(repo: GitRepoBuilder) -> None:
    _change(repo)
    _needs_fork()
    selector = ChangeSelector(SelectorMode.AUTO)
    opening = WorkbenchLoad(repo.root, selector)
    assert opening.background is not None
    everything: list[AnalysisProgress] = []
    loaded = opening(everything.append)
    opening.stop()
    heard = _analysis(everything)
    assert everything[-1].ordering == (12, 12)  # the history of every changed file, said
    dones = [p.done for p in heard]
    assert dones == sorted(dones) and dones[-1] == heard[-1].total == 12
    first_whole = dones.index(12)
    assert first_whole > 0  # the process reported files one by one (or batch by batch)
    # ...and the load after it found every file in the cache: one report, all done at once
    assert dones[first_whole + 1:] == [12]
    streamed = {u.unit_id for p in heard[:first_whole + 1] for u in p.finished}
    assert streamed == {u.unit_id for u in loaded.units}
    alone = load_change(repo.root, selector, use_cache=False).with_reach()
    assert loaded.units == alone.units and loaded.suggestions == alone.suggestions


def test_without_the_cache_there_is_no_process(repo: GitRepoBuilder) -> None:
    _change(repo, 3)
    opening = WorkbenchLoad(repo.root, ChangeSelector(SelectorMode.AUTO), use_cache=False)
    assert opening.background is None
    heard: list[AnalysisProgress] = []
    assert len(opening(heard.append).units) == 3
    assert [p.done for p in _analysis(heard)] == [1, 2, 3]


def test_a_change_that_cannot_load_is_said_by_the_load(repo: GitRepoBuilder) -> None:
    _change(repo, 2)
    _needs_fork()
    opening = WorkbenchLoad(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="no-such-ref"))
    with pytest.raises(ReviewTuiError, match="no-such-ref"):
        opening(lambda progress: None)
    opening.stop()


class _Stop(Exception):
    pass


def test_a_raising_callback_stops_the_process(repo: GitRepoBuilder) -> None:
    _change(repo)
    _needs_fork()
    opening = WorkbenchLoad(repo.root, ChangeSelector(SelectorMode.AUTO))
    background = opening.background
    assert background is not None

    def quit_now(progress: AnalysisProgress) -> None:
        raise _Stop

    with pytest.raises(_Stop):
        opening(quit_now)
    assert not background.alive


def test_a_warm_cache_is_read_here_and_the_process_stopped(repo: GitRepoBuilder) -> None:
    _change(repo)
    _needs_fork()
    selector = ChangeSelector(SelectorMode.AUTO)
    first = WorkbenchLoad(repo.root, selector)
    first(lambda progress: None)
    first.stop()
    again = WorkbenchLoad(repo.root, selector)
    background = again.background
    assert background is not None
    heard: list[AnalysisProgress] = []
    loaded = again(heard.append)
    # this thread found every file in the cache: the process is ended, not waited for, and
    # the loading view hears the count only (the table comes next, with the units)
    assert not background.alive
    assert [(p.done, p.total, len(p.finished)) for p in heard] == [(12, 12, 0)]
    again.stop()
    alone = load_change(repo.root, selector, use_cache=False).with_reach()
    assert loaded.units == alone.units and loaded.suggestions == alone.suggestions


def test_a_cache_that_misses_a_file_follows_the_process(repo: GitRepoBuilder) -> None:
    _change(repo)
    _needs_fork()
    selector = ChangeSelector(SelectorMode.AUTO)
    first = WorkbenchLoad(repo.root, selector)
    first(lambda progress: None)
    first.stop()
    repo.write("pkg/m00.py", "def f0():\n    return 'edited'\n")
    again = WorkbenchLoad(repo.root, selector)
    everything: list[AnalysisProgress] = []
    loaded = again(everything.append)
    again.stop()
    heard = _analysis(everything)
    # the process computed the one file (11 known at once, then 12), the load read it all
    assert [(p.done, p.total) for p in heard] == [(11, 12), (12, 12), (12, 12)]
    assert len(heard[-1].finished) == len(loaded.units)
    alone = load_change(repo.root, selector, use_cache=False).with_reach()
    assert loaded.units == alone.units and loaded.suggestions == alone.suggestions


def test_the_process_ends_when_the_app_is_gone(repo: GitRepoBuilder) -> None:
    """The app killed or its terminal closed while the analysis runs: nobody reads the pipe
    any more. The process must end, not fill the pipe and wait on it for good (it held its
    own copy of the pipe's reading end, so the pipe never broke)."""
    files = 320  # one report per file: well past what a pipe holds unread (64 KiB)
    for n in range(files):
        repo.write(f"pkg/m{n:03}.py", f"def f{n}(x):\n    return x\n")
    repo.commit("base")
    for n in range(files):
        repo.write(f"pkg/m{n:03}.py", f"def f{n}(x):\n    return x + {n}\n")
    _needs_fork()
    opening = WorkbenchLoad(repo.root, ChangeSelector(SelectorMode.AUTO))
    background = opening.background
    assert background is not None
    try:
        background._receive.close()  # the app is gone: no reader left but the process' own
        background._process.join(timeout=60)
        assert background._process.exitcode is not None, "the analysis waits on a full pipe"
    finally:
        opening.stop()  # (were it still there: ended with its workers)


def test_a_first_open_follows_the_process_at_once(repo: GitRepoBuilder,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A repository that kept nothing yet: the cache is not asked first (collecting the
    change here only to find it empty took a core from the analysis); the change is collected
    once, after the process is done. Opened again, the cache is asked first."""
    import reviewtui.git.background as background

    _change(repo)
    _needs_fork()
    collected: list[object] = []
    original = background.Collecting.__init__

    def counting(self: background.Collecting, *args: object, **kwargs: object) -> None:
        collected.append(args)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(background.Collecting, "__init__", counting)
    selector = ChangeSelector(SelectorMode.AUTO)
    first = WorkbenchLoad(repo.root, selector)
    heard: list[AnalysisProgress] = []
    loaded = first(heard.append)
    first.stop()
    assert len(collected) == 1 and heard[-1].done == 12
    collected.clear()
    again = WorkbenchLoad(repo.root, selector)
    assert again(lambda progress: None).units == loaded.units
    again.stop()
    assert len(collected) == 1  # the cache answered this thread's first and only load


def test_the_priority_order_leaves_no_thread_behind(repo: GitRepoBuilder) -> None:
    # a thread still alive after one load kept the next workbench load in-process (it forks
    # only a process running no other thread)
    _change(repo, 3)
    _needs_fork()
    load_change(repo.root, ChangeSelector(SelectorMode.AUTO), use_cache=False).with_reach()
    assert [t.name for t in threading.enumerate()] == [threading.current_thread().name]
