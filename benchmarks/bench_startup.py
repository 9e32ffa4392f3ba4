"""How long a fresh interpreter takes to be ready: the workbench module and ``--version``.

Every command is a new Python process (``sys.executable``) timed from the outside, start-up
included, beside its floor:

* ``python -c pass`` (floor of ``reviewtui --version``, target <= 0.1 s);
* ``python -c "import textual.app, textual.widgets"`` (floor of the workbench module: Textual
  itself);
* ``python -c "import reviewtui.tui.app"`` (the workbench module, before any change is loaded);
* ``python -m reviewtui --version``.

``--vs-src DIR`` also times the two reviewtui commands against another checkout's ``src``
(``PYTHONPATH=DIR``), e.g. the commit before a change, so before and after are measured in the
same run. ``--src DIR`` picks the checkout measured (default: whatever this interpreter
imports, which for a development install is the working tree).

The commands run in rounds, A B C ... A B C ..., after ``--warmup`` untimed rounds, so a drift
of the machine's speed hits all of them alike; each row prints the median, min and max wall
time of ``--runs`` rounds, the ratio to its floor as the median of the per-round ratios
(pairing keeps the ratio meaningful on a busy machine), and the median CPU time (user + system,
the kernel's account of the finished child), which a busy machine disturbs much less.
``PYTHONDONTWRITEBYTECODE`` is removed from the environment: an installed package has its
bytecode compiled, and the warm-up rounds write it for a checkout. The user's ``REVIEWTUI_*``
and ``OPENAI_*`` variables are left out.

Usage::

    python benchmarks/bench_startup.py
    python benchmarks/bench_startup.py --runs 30 --vs-src /tmp/old-checkout/src
    python benchmarks/bench_startup.py --json-out startup.json

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

PYTHON = sys.executable
FLOOR = "python -c pass"
TEXTUAL = "import textual"


@dataclass
class Command:
    """One command to time, the floor it is read against, and its timings (seconds)."""

    name: str
    argv: list[str]
    pythonpath: str | None
    floor: str | None = None
    target: float | None = None
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith(("REVIEWTUI_", "OPENAI_"))}
        if self.pythonpath is not None:
            env["PYTHONPATH"] = self.pythonpath
        return env


class BenchError(RuntimeError):
    """A command does not run; the message says which and why."""


def commands(src: Path | None, vs_src: Path | None) -> list[Command]:
    inherited = os.environ.get("PYTHONPATH")
    found = [Command(FLOOR, [PYTHON, "-c", "pass"], inherited),
             Command(TEXTUAL, [PYTHON, "-c", "import textual.app, textual.widgets"], inherited)]
    checkouts = [("", str(src) if src is not None else inherited)]
    if vs_src is not None:
        checkouts.append((f" [{vs_src}]", str(vs_src)))
    for label, path in checkouts:
        found.append(Command(f"import reviewtui.tui.app{label}",
                             [PYTHON, "-c", "import reviewtui.tui.app"], path, floor=TEXTUAL))
        found.append(Command(f"reviewtui --version{label}",
                             [PYTHON, "-m", "reviewtui", "--version"], path, floor=FLOOR,
                             target=0.1))
    return found


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(command: Command) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command``."""
    cpu = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(command.argv, env=command.env(), stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace").strip()[-1500:]
        raise BenchError(f"{command.name} failed (exit {proc.returncode}):\n{tail}")
    return elapsed, _children_cpu() - cpu


def measure(found: list[Command], runs: int, warmup: int) -> None:
    for _ in range(warmup):
        for command in found:
            run_once(command)
    for number in range(runs):
        for command in found:
            wall, cpu = run_once(command)
            command.times.append(wall)
            command.cpu.append(cpu)
        print(f"round {number + 1}/{runs}", file=sys.stderr, end="\r", flush=True)
    print(file=sys.stderr)


def paired_ratio(command: Command, by_name: dict[str, Command]) -> float | None:
    if command.floor is None:
        return None
    floor = by_name[command.floor].times
    return statistics.median(a / b for a, b in zip(command.times, floor, strict=True))


def report(found: list[Command], runs: int, warmup: int) -> dict[str, object]:
    by_name = {c.name: c for c in found}
    rows = []
    for command in found:
        ratio = paired_ratio(command, by_name)
        rows.append({"name": command.name, "argv": command.argv,
                     "pythonpath": command.pythonpath, "times": command.times,
                     "median": statistics.median(command.times), "min": min(command.times),
                     "max": max(command.times), "cpu": command.cpu,
                     "cpu_median": statistics.median(command.cpu), "floor": command.floor,
                     "ratio": ratio, "target": command.target})
    return {"runs": runs, "warmup": warmup, "python": platform.python_version(),
            "platform": platform.platform(), "cpus": os.cpu_count(), "results": rows}


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def print_report(result: dict[str, object]) -> None:
    rows = result["results"]
    assert isinstance(rows, list)
    print(f"Python {result['python']}, {result['cpus']} cores; {result['runs']} rounds "
          f"(+{result['warmup']} warm-up), wall time of a whole process")
    width = max(len(r["name"]) for r in rows)
    print(f"{'command':<{width}}  {'median':>7}  {'min':>7}  {'max':>7}  {'x floor':>8}  "
          f"{'cpu':>7}  target")
    for r in rows:
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] is not None else "-"
        target = f"<= {_ms(r['target'])}" if r["target"] is not None else ""
        print(f"{r['name']:<{width}}  {_ms(r['median']):>7}  {_ms(r['min']):>7}  "
              f"{_ms(r['max']):>7}  {ratio:>8}  {_ms(r['cpu_median']):>7}  {target}".rstrip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=20, help="timed rounds (default: 20)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed rounds (default: 2)")
    parser.add_argument("--src", type=Path, help="the checkout's src/ to measure")
    parser.add_argument("--vs-src", type=Path, help="another checkout's src/, timed alongside")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be at least 1 and --warmup not negative")
    for path in (args.src, args.vs_src):
        if path is not None and not (path / "reviewtui" / "__init__.py").is_file():
            parser.error(f"{path} holds no reviewtui package")
    found = commands(args.src, args.vs_src)
    try:
        measure(found, args.runs, max(1, args.warmup))
    except BenchError as exc:
        print(f"bench_startup: {exc}", file=sys.stderr)
        return 1
    result = report(found, args.runs, args.warmup)
    print_report(result)
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
