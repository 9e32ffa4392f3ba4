"""An interrupted ``eval`` leaves no pool thread for the interpreter's exit to race."""

from __future__ import annotations

import concurrent.futures.process as futures_process
from pathlib import Path

import pytest

from reviewtui.app.evaluate import _rank_all
from reviewtui.eval.cases import EvalCase
from reviewtui.eval.rank import CaseResult
from tests.conftest import GitRepoBuilder


def _unknown_bug(n: int) -> EvalCase:
    # An unknown commit: each worker answers at once with a "failed" result.
    return EvalCase(bug=f"{n:040x}", subject=f"case {n}", time=0, fixes=[], targets=[])


def test_ctrl_c_during_ranking_ends_the_pool_manager_before_exit(repo: GitRepoBuilder) -> None:
    """The exit handler of ``concurrent.futures`` writes to the pipe of every manager thread
    still registered; one that is still closing its pipe made that write fail with a
    traceback after "reviewtui: interrupted". After the interrupt none may still run."""
    repo.write("a.py", "x = 1\n")
    repo.commit("one")
    seen: list[CaseResult] = []

    def ranked(result: CaseResult) -> None:
        seen.append(result)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _rank_all(Path(repo.root), [_unknown_bug(n) for n in range(6)], 2, ranked)
    assert len(seen) == 1
    still_running = [thread for thread in list(futures_process._threads_wakeups)
                     if thread.is_alive()]
    assert still_running == []
