"""``reviewtui eval``: how reviewtui would have triaged the repository's own past bugs.

Mines the history for bug fixes and the commits that introduced them (``eval.cases``), indexes
each bug commit as ``index --commit`` would and ranks the unit holding the bug (``eval.rank``),
then computes the metrics beside their baselines (``eval.metrics``). Cases are ranked in worker
processes, one per core; each result is appended to the repository's cache as it arrives, so a
run that is stopped continues next time. Everything a case computes reads only the bug commit
and its ancestors: the mining reads the future (the fixes), the ranking never does.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from reviewtui.errors import EvalError, RepositoryError
from reviewtui.eval.cases import EvalCase, MiningProgress, MiningSettings, mine_cases
from reviewtui.eval.metrics import EvalMetrics, eval_metrics
from reviewtui.eval.mining import FixLimits
from reviewtui.eval.rank import CaseResult, rank_case
from reviewtui.eval.results import result_journal, results_key
from reviewtui.eval.since import check_since
from reviewtui.git import open_repository
from reviewtui.history.fixes import configured_patterns


@dataclass(frozen=True, slots=True)
class EvalRequest:
    path: str | Path | None = None
    since: str | None = None
    max_cases: int | None = None  # None: the [eval] setting
    jobs: int | None = None  # worker processes; None: one per core; 1: in this process
    use_cache: bool = True


@dataclass(frozen=True, slots=True)
class EvalProgress:
    phase: str  # "mine" | "rank" | "prepare" | "review" (eval --review)
    done: int
    total: int | None  # None while mining (the history is streamed)
    detail: str = ""


@dataclass(frozen=True)
class EvalReport:
    root: Path
    commits: int  # commits read while mining
    fixes: int  # fixes examined
    results: list[CaseResult]
    metrics: EvalMetrics
    reused: int = 0  # results taken from an earlier run
    statuses: dict[str, int] = field(default_factory=dict)
    history_cut: bool = False  # git could not read the history past an object it lacks
    key: str = ""  # the results' key: what the ranking depended on
    cache_dir: Path | None = None  # .git/reviewtui/eval/, None with use_cache off


def mining_settings(path: str | Path | None) -> tuple[MiningSettings, int]:
    """The repository's ``[eval]`` settings as mining settings, and its default case count."""
    from reviewtui.config import load_settings

    repo = open_repository(path)
    config = load_settings(repo.root).eval
    # the history signals of the ranking read the same patterns (``history.fixes``)
    include, exclude = configured_patterns(config.fix_patterns, config.exclude_patterns)
    return MiningSettings(include, exclude,
                          FixLimits(config.max_fix_files, config.max_fix_removed_lines),
                          config.max_bug_files, config.max_bug_lines), config.max_cases


def _fingerprint(root: Path) -> str:
    """What a rank depends on besides the case: reviewtui, the settings, the rule packs and
    the learned priority's weights in use (shipped, or the repository's accepted ones)."""
    from reviewtui.analysis.fingerprint import run_fingerprint
    from reviewtui.config import load_settings
    from reviewtui.rules import load_rule_pack
    from reviewtui.rules.triage_model import load_weights

    weights = load_weights(root)[0].model_dump_json()
    return run_fingerprint(load_settings(root), load_rule_pack(root).pack) + weights


def run_eval(request: EvalRequest,
             on_progress: Callable[[EvalProgress], None] | None = None) -> EvalReport:
    """Mine, rank and measure; ``EvalError`` when there is nothing to evaluate."""
    check_since(request.since)
    repo = open_repository(request.path)
    repo.head()  # EmptyRepositoryError for a repository with no commits
    if repo.is_shallow():
        raise RepositoryError(
            f"{repo.root} is a shallow clone: its history is cut, so bug fixes cannot be "
            "traced to the commits that introduced them",
            hint="run 'git fetch --unshallow' first")
    settings, default_cases = mining_settings(request.path)
    max_cases = request.max_cases or default_cases
    folder = repo.common_dir / "reviewtui" / "eval" if request.use_cache else None
    mined: list[MiningProgress] = [MiningProgress(0, 0, 0)]

    def mining(progress: MiningProgress) -> None:
        mined[0] = progress
        if on_progress is not None:
            on_progress(EvalProgress("mine", progress.cases, None,
                                     f"{progress.commits} commits, {progress.fixes} fixes"))

    cases = mine_cases(repo, settings, since=request.since, max_cases=max_cases,
                       jobs=request.jobs, cache_dir=folder, on_progress=mining)
    if not cases:
        raise EvalError(
            f"no bug-fix commits with a traceable origin in {mined[0].commits} commits "
            f"({mined[0].fixes} fixes examined"
            + (f", {mined[0].failed} of them not blamed: git failed" if mined[0].failed else "")
            + ")",
            hint="widen --since, or set [eval] fix_patterns for this project's messages")
    key = results_key(settings.key(), _fingerprint(repo.root))
    store = result_journal(folder, key)
    done = {c.bug: store.items[c.bug] for c in cases
            if c.bug in store.items and store.items[c.bug].case == c}
    todo = [c for c in cases if c.bug not in done]
    reused = len(done)

    def ranked(result: CaseResult) -> None:
        done[result.case.bug] = result
        store.add(result)
        if on_progress is not None:
            on_progress(EvalProgress("rank", len(done), len(cases), result.case.case_id))

    _rank_all(repo.root, todo, request.jobs, ranked)
    results = [done[c.bug] for c in cases]
    statuses: dict[str, int] = {}
    for result in results:
        statuses[result.status] = statuses.get(result.status, 0) + 1
    if mined[0].failed:  # fixes git could not diff or blame: not traced, so not cases
        statuses["fix_blame_failed"] = mined[0].failed
    return EvalReport(repo.root, mined[0].commits, mined[0].fixes, results,
                      eval_metrics(results), reused, statuses, history_cut=mined[0].cut,
                      key=key, cache_dir=folder)


def _rank_all(root: Path, cases: list[EvalCase], jobs: int | None,
              ranked: Callable[[CaseResult], None]) -> None:
    workers = min(len(cases), max(1, jobs or os.cpu_count() or 1))
    if workers <= 1:
        for case in cases:
            ranked(rank_case(root, case))
        return
    # spawn: a forked copy of a process running threads (git readers) may hang
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=_ignore_interrupts)
    try:
        with _interrupts_held():  # the workers never see Ctrl-C, even while importing
            futures = [pool.submit(rank_case, root, case) for case in cases]
        for future in as_completed(futures):
            ranked(future.result())
    except BaseException:
        # Ctrl-C (or a failure): the parent says so once; no case is started any more, and the
        # workers, which ignore the interrupt, are not waited for
        workers_now = list((getattr(pool, "_processes", None) or {}).values())
        manager = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
        pool.shutdown(wait=False, cancel_futures=True)
        _stop(workers_now)
        _let_close(manager)
        raise
    pool.shutdown()


# How long an interrupted ``eval`` waits for the pool's manager thread to close its pipes once
# the workers are stopped (it joins them: milliseconds, as they are terminated).
_MANAGER_CLOSE_SECONDS = 5.0


def _let_close(manager: object) -> None:
    """Wait for the stopped pool's manager thread to end. Python 3.11's exit handler of
    ``concurrent.futures`` wakes every such thread through a pipe that the thread closes as it
    ends, unlocked: racing it, the interpreter's exit printed ``OSError: Bad file descriptor``
    (in ``_send_bytes``) under "reviewtui: interrupted" about one Ctrl-C in ten. Once the
    thread has ended, its pipe is marked closed and the handler leaves it alone."""
    if isinstance(manager, threading.Thread) and manager is not threading.current_thread():
        manager.join(_MANAGER_CLOSE_SECONDS)


def _ignore_interrupts() -> None:
    """A worker's initializer: Ctrl-C reaches the whole process group, and is the parent's to
    report (``reviewtui: interrupted``), not each worker's with a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT held back while worker processes are spawned: a blocked signal stays blocked in
    the new interpreter, which then never raises KeyboardInterrupt while it imports (its
    initializer ignores it from then on). A Ctrl-C meanwhile is delivered here once the workers
    are started. In the main thread only, where Python handles signals."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
            signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _stop(processes: list[multiprocessing.process.BaseProcess]) -> None:
    """End worker processes now (each may be in the middle of a case: its result is lost, the
    cases already ranked are kept)."""
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.terminate()
