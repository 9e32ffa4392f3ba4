"""How fast the workbench feels on a very large change: first paint and per-key latency.

The repository is synthetic so that the size is exact and nothing is downloaded: ``--files``
Python files (default 500) with ``--edits`` functions each (default 10), committed, then one
line changed inside every function in the working tree — 5,000 review units, one per function,
far enough apart that no two hunks merge. It is built once under ``benchmarks/.data/tui-5000/``
(fixed identity, dates and git configuration; a stamp in ``.git/`` records the parameters) and
reused while it still holds the expected change.

Then, all in this process, with the user's configuration, data directory and model settings
kept out (temporary ``XDG_CONFIG_HOME`` and ``REVIEWTUI_DATA_DIR``, no ``REVIEWTUI_*`` or
``OPENAI_*`` variables):

* ``load_change`` (git, units, structure, rules): best and median of ``--load-runs``;
* first paint of ``reviewtui.tui.app.ReviewApp`` under Textual's ``App.run_test()``: from
  constructing the app until the unit table holds its rows and the app is idle, ``--paint-runs``
  times, each a fresh app on the same loaded change;
* key latency in one app: the time from ``pilot.press(key)`` to the next idle
  (``await pilot.pause()``) for ``--j`` presses of ``j``, ``--n`` of ``n``, and ``--filter``
  rounds of ``/`` + typing ``--filter-text`` + ``escape`` (each typed character re-filters the
  table: that is the expensive key). Textual's idle detection sleeps in 20 ms steps, so this
  way of measuring has a floor of its own; ``--floor`` presses of an unbound key (``f24``)
  measure it, to be subtracted when reading the other rows.

Usage::

    python benchmarks/bench_tui.py                 # build (once) and measure
    python benchmarks/bench_tui.py --build-only    # just build / verify the repository
    python benchmarks/bench_tui.py --force --files 100 --edits 10 --out /tmp/tui-1000

Exits 1 with a message when ``reviewtui.tui.app`` is not there yet.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import inspect
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
DATA_DIR = BENCH_DIR / ".data"
DEFAULT_FILES = 500
DEFAULT_EDITS = 10
GENERATOR_VERSION = 2
STAMP_NAME = "reviewtui-bench-tui.json"  # inside .git/: never part of the change

AUTHOR = {"GIT_AUTHOR_NAME": "reviewtui benchmarks",
          "GIT_AUTHOR_EMAIL": "benchmarks@reviewtui.invalid",
          "GIT_COMMITTER_NAME": "reviewtui benchmarks",
          "GIT_COMMITTER_EMAIL": "benchmarks@reviewtui.invalid",
          "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+0000",
          "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+0000"}


class BenchError(RuntimeError):
    """The benchmark cannot run; the message says why."""


# --- the repository ---------------------------------------------------------------------------

def default_repo(files: int, edits: int) -> Path:
    return DATA_DIR / f"tui-{files * edits}"


def _function(module: int, index: int, *, changed: bool) -> list[str]:
    """One function of 18 lines; ``changed`` alters exactly its 10th line.

    What that line says rotates (a constant, an expression, a call) so the rules see some
    variety; always the same line at an 18-line pitch keeps every hunk (git's 3 lines of
    context included) more than ``units.merge_gap`` (6) lines away from the next one.
    """
    seed = (module * 31 + index * 7) % 97 + 3
    variant = index % 3
    if variant == 0:
        threshold = f"    threshold = {seed + 1 if changed else seed}"
    elif variant == 1:
        threshold = ("    threshold = max(limit, skipped) * 2" if changed
                     else "    threshold = limit * 2")
    else:
        threshold = (f"    threshold = compute_threshold(request, {seed}, strict=True)"
                     if changed else f"    threshold = compute_threshold(request, {seed})")
    return [
        f"def handler_{module}_{index}(request, limit):",
        f'    """Handle case {index} of module {module}."""',
        "    total = 0",
        "    skipped = 0",
        "    for item in request.items:",
        "        if item.size > limit:",
        "            total += item.size",
        "        else:",
        "            skipped += 1",
        threshold,
        "    if total > threshold:",
        '        return {"status": "over", "total": total}',
        "    values = [x * 2 for x in range(limit)]",
        "    count = len(values) + skipped",
        "    result = count + total",
        '    return {"status": "ok", "result": result}',
        "",
        "",
    ]


def module_text(module: int, edits: int, *, changed: bool) -> str:
    lines = [f'"""Synthetic module {module} for the workbench benchmark."""', "",
             "from .thresholds import compute_threshold", "", ""]
    for index in range(edits):
        lines += _function(module, index, changed=changed)
    return "\n".join(lines).rstrip("\n") + "\n"


def module_path(module: int) -> str:
    return f"src/pkg{module // 50:02d}/mod{module:03d}.py"


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, **AUTHOR, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    proc = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        raise BenchError(f"git {' '.join(args)} failed in {root}: {proc.stderr.strip()}")
    return proc.stdout


def _expected_stamp(files: int, edits: int) -> dict[str, int]:
    return {"version": GENERATOR_VERSION, "files": files, "edits": edits}


def _is_built(root: Path, files: int, edits: int) -> bool:
    stamp = root / ".git" / STAMP_NAME
    try:
        if json.loads(stamp.read_text()) != _expected_stamp(files, edits):
            return False
        numstat = _git(root, "diff", "--numstat", "HEAD").splitlines()
        untracked = _git(root, "ls-files", "--others", "--exclude-standard").splitlines()
    except (OSError, ValueError, BenchError):
        return False
    changed = [line.split("\t") for line in numstat]
    return (not untracked and len(changed) == files
            and all(added == str(edits) and removed == str(edits)
                    for added, removed, _ in changed))


def build_repo(root: Path, files: int = DEFAULT_FILES, edits: int = DEFAULT_EDITS, *,
               force: bool = False) -> tuple[Path, bool]:
    """The benchmark repository at ``root``: (path, built now?). Reused when it checks out."""
    if not force and _is_built(root, files, edits):
        return root, False
    if root.exists():
        if not (root / ".git" / STAMP_NAME).is_file() and any(root.iterdir()):
            raise BenchError(f"{root} exists and was not made by this script; "
                             "pass another --out")
        shutil.rmtree(root)
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    for module in range(files):
        target = root / module_path(module)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(module_text(module, edits, changed=False))
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", f"base: {files} modules x {edits} functions")
    for module in range(files):
        (root / module_path(module)).write_text(module_text(module, edits, changed=True))
    (root / ".git" / STAMP_NAME).write_text(json.dumps(_expected_stamp(files, edits)))
    if not _is_built(root, files, edits):
        raise BenchError(f"{root}: the generated change is not the expected one")
    return root, True


# --- measuring --------------------------------------------------------------------------------

@dataclass
class Series:
    """Timings of one measured thing, in seconds."""

    name: str
    times: list[float] = field(default_factory=list)
    note: str = ""

    def row(self) -> list[str]:
        if not self.times:
            return [self.name, "0", "-", "-", "-", self.note]
        ordered = sorted(self.times)
        p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
        return [self.name, str(len(ordered)), _ms(statistics.median(ordered)), _ms(p95),
                _ms(ordered[-1]), self.note]

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "times": self.times, "note": self.note,
                "median": statistics.median(self.times) if self.times else None}


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms" if seconds < 10 else f"{seconds:,.2f} s"


def print_table(series: Sequence[Series]) -> None:
    header = ["what", "n", "median", "p95", "max", "note"]
    rows = [header, *(s.row() for s in series)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    right = {1, 2, 3, 4}
    for number, row in enumerate(rows):
        cells = [cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
                 for i, cell in enumerate(row)]
        print("  ".join(cells).rstrip())
        if number == 0:
            print("  ".join("-" * w for w in widths))


def isolate_environment(scratch: Path) -> None:
    """Keep the user's configuration, session store and model out of the measurement."""
    for key in list(os.environ):
        if key.startswith(("REVIEWTUI_", "OPENAI_")):
            del os.environ[key]
    os.environ["XDG_CONFIG_HOME"] = str(scratch / "config")
    os.environ["XDG_CACHE_HOME"] = str(scratch / "cache")
    os.environ["XDG_DATA_HOME"] = str(scratch / "data")
    os.environ["REVIEWTUI_DATA_DIR"] = str(scratch / "data" / "reviewtui")
    os.environ["GIT_CONFIG_GLOBAL"] = os.devnull
    os.environ["GIT_CONFIG_NOSYSTEM"] = "1"


def import_review_app() -> Any:
    """``reviewtui.tui.app.ReviewApp``, or ``BenchError`` saying it is not there (yet)."""
    try:
        module = importlib.import_module("reviewtui.tui.app")
    except ModuleNotFoundError as exc:
        if exc.name in ("reviewtui.tui.app", "reviewtui.tui"):
            raise BenchError("reviewtui.tui.app does not exist yet: the TUI benchmark needs "
                             "ReviewApp (build the repository with --build-only meanwhile)"
                             ) from None
        raise BenchError(f"reviewtui.tui.app cannot be imported: {exc}") from None
    except ImportError as exc:
        raise BenchError(f"reviewtui.tui.app cannot be imported: {exc}") from None
    app_class = getattr(module, "ReviewApp", None)
    if app_class is None:
        raise BenchError("reviewtui.tui.app has no ReviewApp yet")
    return app_class


def time_load(root: Path, runs: int) -> tuple[Series, Any]:
    from reviewtui.git import ChangeSelector, SelectorMode
    from reviewtui.pipeline import load_change

    series = Series("load_change")
    loaded: Any = None
    for _ in range(runs):
        start = time.perf_counter()
        loaded = load_change(root, ChangeSelector(SelectorMode.AUTO))
        series.times.append(time.perf_counter() - start)
    files = len({unit.file_path for unit in loaded.units})
    series.note = f"{len(loaded.units):,} units in {files:,} files"
    return series, loaded


def make_app(app_class: Any, loaded: Any, scratch: Path) -> Any:
    parameters = inspect.signature(app_class).parameters
    if "store_path" in parameters:  # never the person's real session store
        return app_class(loaded, store_path=scratch / "sessions.sqlite3")
    return app_class(loaded)


def _tables(app: Any, selector: str) -> list[Any]:
    return list(app.query(selector))


async def _wait_for_rows(app: Any, pilot: Any, selector: str, timeout: float) -> Any:
    deadline = time.perf_counter() + timeout
    while True:
        filled = [t for t in _tables(app, selector) if getattr(t, "row_count", 0) > 0]
        if filled:
            await pilot.pause()
            return filled[0]
        if time.perf_counter() > deadline:
            raise BenchError(f"no {selector} with rows after {timeout:.0f}s")
        await asyncio.sleep(0.005)


class Paints:
    """When the app wrote to the terminal: a press is timed to its first paint (what the
    person sees react) and to its last one before the app is idle (the screen settled);
    Pilot's own press-to-idle has a floor of its own (see ``_press_keys``)."""

    def __init__(self, app: Any) -> None:
        self.times: list[float] = []
        display = app._display

        def recorded(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            self.times.append(time.perf_counter())

        app._display = recorded


BURST_PAUSE = 1.2  # seconds between two bursts of keys (a person reading what they show)
FILTER_APPLIED = 0.3  # seconds: the workbench applies the filter 0.15 s after the last key
SETTLE = 0.45  # paints after this long are not the key's (the filter's cursor blinks)


async def _timed_press(pilot: Any, key: str, into: Series,
                       paints: tuple[Paints, Series, Series] | None = None) -> None:
    if paints is not None:
        await pilot.pause(0.2)  # nothing of the previous key still painting
        paints[0].times.clear()
    start = time.perf_counter()
    await pilot.press(key)
    await pilot.pause()
    into.times.append(time.perf_counter() - start)
    if paints is not None:
        await pilot.pause(SETTLE)
        seen = [t - start for t in paints[0].times if t - start < SETTLE]
        if seen:
            paints[1].times.append(seen[0])
            paints[2].times.append(seen[-1])


async def measure_app(app_class: Any, loaded: Any, scratch: Path, args: argparse.Namespace,
                      log: Callable[[str], None]) -> list[Series]:
    size = tuple(int(v) for v in args.size.lower().split("x"))
    construct = Series("app constructor")
    paint = Series("first paint", note="constructor -> rows shown, idle")
    for run in range(args.paint_runs):
        start = time.perf_counter()
        app = make_app(app_class, loaded, scratch)
        construct.times.append(time.perf_counter() - start)
        async with app.run_test(size=size) as pilot:
            table = await _wait_for_rows(app, pilot, args.table, args.timeout)
            paint.times.append(time.perf_counter() - start)
            paint.note = f"constructor -> {table.row_count:,} rows shown, idle"
            if run < args.paint_runs - 1:
                continue
            log(f"first paint {_ms(paint.times[-1])}; pressing keys ...")
            series = [construct, paint, *await _press_keys(app, pilot, table, args)]
    return series


async def _press_keys(app: Any, pilot: Any, table: Any, args: argparse.Namespace) -> list[Series]:
    # The floor of this way of measuring: Textual's idle detection sleeps in 20 ms steps (three
    # waits per press + pause), and any timer in the app keeps it from seeing "idle" at once.
    floor = Series("unbound key (floor)", note="f24: no binding, nothing to do")
    for _ in range(args.floor):
        await _timed_press(pilot, "f24", floor)

    down = Series("j (next unit)")
    before = table.cursor_row
    for _ in range(args.j):
        await _timed_press(pilot, "j", down)
    down.note = f"cursor {before} -> {table.cursor_row}"

    next_file = Series("n (next file)")
    before = table.cursor_row
    for _ in range(args.n):
        await _timed_press(pilot, "n", next_file)
    next_file.note = f"cursor {before} -> {table.cursor_row}"

    opening = Series("/ (open filter)")
    typing = Series(f"filter typing ({args.filter_text!r})")
    clearing = Series("escape (clear filter)")
    recorder = Paints(app)
    painted = {name: (recorder, Series(f"{name}: first paint", note="press -> first paint"),
                      Series(f"{name}: settled", note=f"press -> last paint (< {SETTLE} s)"))
               for name in ("j", "/", "escape")}
    shown: list[int] = []
    for _ in range(args.filter):
        await _timed_press(pilot, "slash", opening, painted["/"])
        for character in args.filter_text:
            await _timed_press(pilot, character, typing)
        # The filter is applied once typing pauses: Escape is timed from the table the
        # person saw (timed at once, it cleared a filter never applied: 5,000 rows "back"
        # that had never gone).
        await pilot.pause(FILTER_APPLIED)
        shown.append(table.row_count)
        await _timed_press(pilot, "escape", clearing, painted["escape"])
        await _timed_press(pilot, "j", Series("j"), painted["j"])
    if shown:
        typing.note = f"{shown[-1]:,} rows match"
    clearing.note = f"{table.row_count:,} rows after"
    bursts = Series("keys in bursts", note=f"{args.bursts} x (10 keys, a {BURST_PAUSE} s pause)")
    for _ in range(args.bursts):
        for key in "jjjjjnjjjk":
            await _timed_press(pilot, key, bursts)
        await asyncio.sleep(BURST_PAUSE)  # reading: the app may use the pause
    return [floor, down, next_file, opening, typing, clearing,
            *(series for _, *pair in painted.values() for series in pair),
            *([bursts] if bursts.times else [])]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=DEFAULT_FILES)
    parser.add_argument("--edits", type=int, default=DEFAULT_EDITS, help="functions per file")
    parser.add_argument("--out", type=Path, help="repository (default benchmarks/.data/tui-N)")
    parser.add_argument("--force", action="store_true", help="rebuild the repository")
    parser.add_argument("--build-only", action="store_true",
                        help="build/verify the repository and time load_change only")
    parser.add_argument("--load-runs", type=int, default=3)
    parser.add_argument("--paint-runs", type=int, default=3)
    parser.add_argument("--floor", type=int, default=30, help="presses of an unbound key")
    parser.add_argument("--j", type=int, default=200, help="presses of j")
    parser.add_argument("--n", type=int, default=50, help="presses of n")
    parser.add_argument("--bursts", type=int, default=10,
                        help="bursts of 10 keys with a pause after each (tail latency)")
    parser.add_argument("--filter", type=int, default=20, help="rounds of / + typing + escape")
    parser.add_argument("--filter-text", default="mod12")
    parser.add_argument("--size", default="160x50", help="terminal size WxH")
    parser.add_argument("--table", default="DataTable", help="CSS selector of the unit table")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds for first paint")
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--terminal", type=Path, metavar="REPO",
                        help="instead: time `reviewtui --range RANGE REPO` in tmux, cold and "
                             "warm, beside a bare Textual app (see terminal_times.py)")
    parser.add_argument("--range", dest="range_spec", default="old..new")
    parser.add_argument("--terminal-runs", type=int, default=3)
    parser.add_argument("--warm-only", action="store_true",
                        help="with --terminal: keep the repository's cache, time warm runs only")
    args = parser.parse_args(argv)
    if args.terminal is not None:
        return terminal_main(args)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    try:
        app_class = None if args.build_only else import_review_app()
        root = args.out or default_repo(args.files, args.edits)
        start = time.perf_counter()
        root, built = build_repo(root, args.files, args.edits, force=args.force)
        log(f"{'built' if built else 'reusing'} {root} ({time.perf_counter() - start:.1f}s)")
        with tempfile.TemporaryDirectory(prefix="reviewtui-bench-tui-") as temp:
            scratch = Path(temp)
            isolate_environment(scratch)
            load, loaded = time_load(root, max(1, args.load_runs))
            # As ``reviewtui`` does once the change is loaded (cli.workbench): the change lives
            # as long as the app, and is left out of every collection's scan (without this the
            # full collections the workbench runs in pauses took ~0.45 s each here, not there).
            gc.freeze()
            expected = args.files * args.edits
            if len(loaded.units) != expected:
                log(f"warning: {len(loaded.units):,} units, expected {expected:,}")
            series = [load]
            if app_class is not None:
                series += asyncio.run(measure_app(app_class, loaded, scratch, args, log))
    except BenchError as exc:
        print(f"bench_tui: {exc}", file=sys.stderr)
        return 1
    print(f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; repository {root}")
    print_table(series)
    if args.json_out is not None:
        args.json_out.write_text(json.dumps({
            "repo": str(root), "files": args.files, "edits": args.edits,
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "series": [s.summary() for s in series]}, indent=2))
    return 0


# --- in a real terminal --------------------------------------------------------------------

LOADING_MARK = "q quits · the workbench opens"  # the loading view's last line
ROW_MARK = "unit     u_"  # the detail pane of the selected unit: the table has rows
KEPT_MARK = "as you left them"  # the loading view with the rows kept from the last open


def terminal_main(args: argparse.Namespace) -> int:
    """``reviewtui`` started in tmux: time to the loading view and to the first unit row, cold
    (``.git/reviewtui`` removed before every run: files, reach and history) and warm, beside
    the bare Textual floor."""
    from terminal_times import TerminalError, bare_app_time, time_marks

    repo = args.terminal.resolve()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    src = Path(__file__).resolve().parent.parent / "src"
    # Bytecode once: where writing it is turned off (PYTHONDONTWRITEBYTECODE, which the tmux
    # server inherits) every run would compile the ~300 modules again (~0.3 s each start).
    import compileall

    compileall.compile_dir(src, quiet=1)
    env = {"PYTHONPATH": str(src), "TERM": "xterm-256color"}
    command = [sys.executable, "-m", "reviewtui", "--range", args.range_spec, str(repo)]
    marks = {"loading": LOADING_MARK, "row": ROW_MARK, "kept": KEPT_MARK}
    floor = Series("bare Textual app (floor)", note="100-row DataTable on screen")
    loading = Series("loading view, cold", note="start -> loading view on screen")
    cold = Series("first unit row, cold", note="start -> table with its rows")
    warm_loading = Series("loading view, warm", note="(not seen: too quick to catch)")
    kept = Series("kept rows, warm", note="start -> last open's rows on the loading view")
    warm = Series("workbench, warm", note="start -> workbench with its rows and detail")
    cache = repo / ".git" / "reviewtui"
    loads: list[float] = []
    try:
        with tempfile.TemporaryDirectory(prefix="reviewtui-bench-tui-") as temp:
            isolate_environment(Path(temp))
            env |= {k: os.environ[k] for k in (
                "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "REVIEWTUI_DATA_DIR",
                "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")}
            for _ in range(args.terminal_runs):
                loads.append(os.getloadavg()[0])
                floor.times.append(bare_app_time(repo, env, size=size))
                if not args.warm_only:
                    shutil.rmtree(cache, ignore_errors=True)  # a first run: no cache at all
                    found = time_marks(command, repo, env, marks, size=size,
                                       timeout=args.timeout, until="row")
                    cold.times.append(found["row"])
                    if "loading" in found:
                        loading.times.append(found["loading"])
                found = time_marks(command, repo, env, marks, size=size,
                                   timeout=args.timeout, until="row")
                warm.times.append(found["row"])
                if "loading" in found:
                    warm_loading.times.append(found["loading"])
                    warm_loading.note = "start -> loading view on screen"
                if "kept" in found:
                    kept.times.append(found["kept"])
                print(f"run: floor {_ms(floor.times[-1])}, cold loading "
                      f"{_ms(loading.times[-1]) if loading.times else '-'}, "
                      f"cold row {_ms(cold.times[-1]) if cold.times else '-'}, "
                      f"warm kept rows {_ms(kept.times[-1]) if kept.times else '-'}, "
                      f"warm workbench {_ms(warm.times[-1])}",
                      file=sys.stderr, flush=True)
    except TerminalError as exc:
        print(f"bench_tui: {exc}", file=sys.stderr)
        return 1
    print(f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; repository {repo} ({args.range_spec}); "
          f"load average at the runs' starts: {', '.join(f'{v:.1f}' for v in loads)}")
    series = [s for s in (floor, loading, cold, warm_loading, kept, warm) if s.times]
    print_table(series)
    if args.json_out is not None:
        args.json_out.write_text(json.dumps({
            "repo": str(repo), "range": args.range_spec, "cpus": os.cpu_count(),
            "load": loads, "series": [s.summary() for s in series]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
