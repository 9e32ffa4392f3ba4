"""Helpers of the tests that open the workbench: a change of many small files, and waiting in
a Pilot test for what a worker thread brings about (a load, a write)."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.pilot import Pilot

from tests.conftest import GitRepoBuilder


def write_change(repo: GitRepoBuilder, files: int) -> None:
    """``files`` Python files committed, each then changed in one function (one unit each;
    their sizes differ, so that the largest files left are worth naming)."""
    for n in range(files):
        repo.write(f"app/m{n:02}.py", f"def f{n}():\n    return {n}\n" + "\n" * (n * 3))
    repo.commit("base")
    for n in range(files):
        repo.write(f"app/m{n:02}.py", f"def f{n}():\n    return {n + 1}\n" + "\n" * (n * 3))


async def until(pilot: Pilot[None], done: Callable[[], bool], timeout: float = 20.0) -> None:
    """Let the app run until ``done()``; fail the test after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, "timed out"
        await pilot.pause(0.05)


async def published(app: object, pilot: object) -> None:
    """Wait for the workbench's publish (a thread of its own, named "publish") to end, the
    app's loop running meanwhile (the thread shows its outcome through it)."""
    import asyncio
    import threading

    loop = asyncio.get_running_loop()
    for thread in [t for t in threading.enumerate() if t.name == "publish"]:
        await loop.run_in_executor(None, thread.join, 30)
    await pilot.pause()  # type: ignore[attr-defined]
