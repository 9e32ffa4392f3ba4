"""How long ``r`` takes after one file of a large working-tree change is edited.

The change is the large benchmark's (``make_large_diff.py``: Django 5.0.6 -> 5.1, ~880 files,
~2,600 units) as a *working-tree* change: a clone of that repository at ``old`` whose files
are those of ``new``, nothing committed or staged (``git checkout new; git reset old``), kept
under ``benchmarks/.data/refresh-<dataset>/``. That is what the workbench refreshes: ``r``
works on the working tree, not on a commit or a range.

Measured, with the user's configuration, session store and model kept out (temporary
``XDG_*``/``REVIEWTUI_DATA_DIR``, no ``REVIEWTUI_*``/``OPENAI_*``) and the default settings:

* ``git diff HEAD`` (with the flags reviewtui uses): the reference, in a subprocess;
* ``reviewtui index --json``: a whole run, in a subprocess, after a warm-up (cache warm);
* ``LoadedChange.refresh()`` in this process after one file was edited (the core of ``r``:
  the edited file diffed and scored again, the rest kept);
* ``r`` in the workbench: ``ReviewApp`` under ``App.run_test()`` with the change loaded, one
  file edited, ``r`` pressed, until the table holds the refreshed rows and the app is idle
  (Textual's idle detection sleeps in 20 ms steps: the figure includes that floor).

Each edit changes a line inside a function of ``django/db/models/query.py`` (a different text
each time, so the file really changed), and the file is restored at the end. Every figure is
the median of ``--runs`` (with min and max), as a ratio to ``git diff`` and to the whole
``index`` run; the peak RSS of this process (the app with the change loaded) is reported too.

Usage::

    python benchmarks/make_large_diff.py   # once
    python benchmarks/bench_refresh.py [--runs 11] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from make_large_diff import DATA_DIR, DEFAULT_REPO, TOOL_DIFF_FLAGS

EDITED = "django/db/models/query.py"
ANCHOR = "    def count(self):\n"


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True,
                          text=True).stdout


def working_tree_copy(dataset: Path) -> Path:
    """The dataset's change as uncommitted edits of a clone (built once, then reused)."""
    target = DATA_DIR / f"refresh-{dataset.name}"
    old = _git(dataset, "rev-parse", "old").strip()
    if target.is_dir():
        if _git(target, "rev-parse", "HEAD").strip() == old and _git(
                target, "status", "--porcelain"):
            return target
        shutil.rmtree(target)
    subprocess.run(["git", "clone", "-q", str(dataset), str(target)], check=True)
    _git(target, "checkout", "-q", "--detach", "new")
    _git(target, "reset", "-q", "--mixed", old)
    return target


def isolate(scratch: Path) -> None:
    for key in list(os.environ):
        if key.startswith(("REVIEWTUI_", "OPENAI_")):
            del os.environ[key]
    for name in ("config", "cache", "data"):
        os.environ[f"XDG_{name.upper()}_HOME"] = str(scratch / name)
    os.environ["REVIEWTUI_DATA_DIR"] = str(scratch / "data" / "reviewtui")
    os.environ["GIT_CONFIG_GLOBAL"] = os.devnull
    os.environ["GIT_CONFIG_NOSYSTEM"] = "1"


def timed(command: list[str], cwd: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


class Editor:
    """Edits one line of the edited file, differently every time; restores it at the end."""

    def __init__(self, root: Path) -> None:
        self.path = root / EDITED
        self.original = self.path.read_text()
        if ANCHOR not in self.original:
            raise SystemExit(f"{EDITED} has no {ANCHOR.strip()!r} to edit")
        self.count = 0

    def edit(self) -> None:
        self.count += 1
        self.path.write_text(self.original.replace(
            ANCHOR, f"{ANCHOR}        # edited {self.count}\n", 1))

    def restore(self) -> None:
        self.path.write_text(self.original)


def core_refresh(root: Path, runs: int) -> tuple[list[float], int]:
    from reviewtui.git import ChangeSelector, SelectorMode
    from reviewtui.pipeline import load_change

    loaded = load_change(root, ChangeSelector(SelectorMode.AUTO))
    editor = Editor(root)
    times = []
    try:
        for _ in range(runs):
            editor.edit()
            start = time.perf_counter()
            loaded = loaded.refresh()
            times.append(time.perf_counter() - start)
    finally:
        editor.restore()
    return times, len(loaded.units)


async def _app_refresh(root: Path, scratch: Path, runs: int) -> list[float]:
    from reviewtui.git import ChangeSelector, SelectorMode
    from reviewtui.pipeline import load_change
    from reviewtui.tui.app import ReviewApp

    loaded = load_change(root, ChangeSelector(SelectorMode.AUTO))
    app = ReviewApp(loaded, store_path=scratch / "sessions.sqlite3")
    editor = Editor(root)
    times = []
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause()
            for _ in range(runs):
                editor.edit()
                before = app.loaded
                start = time.perf_counter()
                await pilot.press("r")
                while app.loaded is before:
                    await asyncio.sleep(0.001)
                await pilot.pause()
                times.append(time.perf_counter() - start)
                if "refreshed:" not in str(app.query_one("#status").render()):
                    raise SystemExit("the workbench did not report the refresh")
    finally:
        editor.restore()
    return times


def _row(name: str, times: list[float], git: float, index: float) -> dict[str, Any]:
    median = statistics.median(times)
    return {"name": name, "median_s": round(median, 4), "min_s": round(min(times), 4),
            "max_s": round(max(times), 4), "x_git_diff": round(median / git, 2),
            "x_index": round(median / index, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=DEFAULT_REPO,
                        help="the make_large_diff.py dataset (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if not (args.repo / ".git").exists():
        print(f"no dataset at {args.repo}: run benchmarks/make_large_diff.py", file=sys.stderr)
        return 1
    root = working_tree_copy(args.repo)
    log: Callable[[str], None] = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="bench-refresh-") as scratch_name:
        scratch = Path(scratch_name)
        isolate(scratch)
        reviewtui = shutil.which("reviewtui") or "reviewtui"
        log(f"working-tree change at {root}")
        git = statistics.median(timed(["git", "-c", "core.quotePath=false", "diff",
                                       *TOOL_DIFF_FLAGS, "HEAD"], root, args.runs))
        timed([reviewtui, "index", "--json"], root, 1)  # warm the per-file cache
        index_times = timed([reviewtui, "index", "--json"], root, args.runs)
        index = statistics.median(index_times)
        core, units = core_refresh(root, args.runs)
        log("core refresh done; the workbench ...")
        app = asyncio.run(_app_refresh(root, scratch, args.runs))
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows = [_row("git diff HEAD", [git], git, index),
            _row("reviewtui index --json (whole run, cache warm)", index_times, git, index),
            _row("LoadedChange.refresh() after one edit", core, git, index),
            _row("r in the workbench after one edit", app, git, index)]
    result = {"units": units, "runs": args.runs, "peak_rss_mib": round(peak_mib),
              "cpus": os.cpu_count(), "rows": rows}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{units:,} units, {args.runs} runs each, peak RSS {peak_mib:.0f} MiB")
    print(f"{'':50} {'median':>9} {'min':>9} {'max':>9} {'×git':>6} {'×index':>7}")
    for row in rows:
        print(f"{row['name']:50} {row['median_s']:>9.3f} {row['min_s']:>9.3f} "
              f"{row['max_s']:>9.3f} {row['x_git_diff']:>6.2f} {row['x_index']:>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
