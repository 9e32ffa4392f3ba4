"""Time ``reviewtui index`` on a large diff against plain ``git diff``.

Runs, on the repository built by ``make_large_diff.py`` (tags ``old``/``new``):

* ``reviewtui index --json --range old..new REPO`` (the tool; prefix set
  with ``--cmd``, subcommand with ``--subcommand``, extra tool arguments after
  ``--``). Its per-file cache (``.git/reviewtui/``) is filled by the warm-up
  run, so this is the time of running it again on the same change;
* the same with ``--no-cache`` ("cold": every file parsed and scored again;
  leave it out with ``--no-cold``);
* the same as a first run ("first run": ``.git/reviewtui`` removed before every run, untimed,
  so the per-file cache and the snapshot are written as a person's first ``index`` of a change
  writes them; leave it out with ``--no-first``);
* ``git -C REPO diff old..new`` (baseline "git diff");
* ``git -C REPO -c core.quotePath=false diff --no-color --no-ext-diff
  --no-textconv -M --src-prefix=a/ --dst-prefix=b/ old new`` (baseline
  "git diff (tool flags)": the diff reviewtui itself asks git for).

Every command writes its output to ``/dev/null``. ``PYTHONDONTWRITEBYTECODE``
is removed from the environment: an installed package has its bytecode
compiled (pip does it), so a checkout that never caches it would time the
compiler too.  After ``--warmup`` untimed
runs per command (the first of which checks the exit status and that the
tool prints valid JSON), the commands are timed ``--runs`` times each,
interleaved round-robin so slow drifts of the machine hit all of them alike.
Medians (and min/max) are printed in seconds with the ratios tool/baseline;
``--json-out FILE`` also writes them as JSON.

Usage::

    python benchmarks/make_large_diff.py          # once, builds the repo
    python benchmarks/bench_index.py
    python benchmarks/bench_index.py --cmd "python -m reviewtui" --runs 5
    python benchmarks/bench_index.py --baseline-only
    python benchmarks/bench_index.py --subcommand index --no-json -- --planner

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from make_large_diff import DEFAULT_REPO, TOOL_DIFF_FLAGS

OLD_TAG = "old"
NEW_TAG = "new"

TOOL_NAME = "reviewtui"
GIT_DIFF = "git diff"
GIT_DIFF_TOOL_FLAGS = "git diff (tool flags)"


ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


class BenchError(RuntimeError):
    """The benchmark cannot run (missing repo, failing command, ...)."""


@dataclass
class Bench:
    """One command to time, and its timings."""

    name: str
    cmd: list[str]
    check_json: bool = False
    fresh: Path | None = None  # removed before every run: the tool's first run in the repo
    times: list[float] = field(default_factory=list)
    output_bytes: int | None = None

    def summary(self) -> dict[str, object]:
        """Return the JSON-serialisable result of this command."""
        return {
            "cmd": self.cmd,
            "times": self.times,
            "median": statistics.median(self.times),
            "min": min(self.times),
            "max": max(self.times),
            "output_bytes": self.output_bytes,
        }


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    """Parse the command line; arguments after ``--`` go to the tool."""
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(
        description="Time 'reviewtui SUBCOMMAND' on a large diff against 'git diff'.",
        epilog="Arguments after '--' are passed to the tool before REPO.",
    )
    parser.add_argument(
        "repo",
        nargs="?",
        type=Path,
        default=DEFAULT_REPO,
        help="repository built by make_large_diff.py (default: %(default)s)",
    )
    parser.add_argument(
        "--cmd",
        default="reviewtui",
        help="command prefix of the tool, e.g. 'python -m reviewtui' (default: %(default)s)",
    )
    parser.add_argument(
        "--subcommand", default="index", help="tool subcommand to time (default: %(default)s)"
    )
    parser.add_argument(
        "--range",
        dest="rev_range",
        default=f"{OLD_TAG}..{NEW_TAG}",
        help="revision range given to the tool with --range (default: %(default)s)",
    )
    parser.add_argument("--no-json", action="store_true", help="do not pass --json to the tool")
    parser.add_argument("--no-cold", action="store_true",
                        help="do not also time the tool with --no-cache")
    parser.add_argument("--no-first", action="store_true",
                        help="do not also time a first run (.git/reviewtui removed before it)")
    parser.add_argument("--runs", type=int, default=7, help="timed runs each (default: 7)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs each (default: 1)")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds allowed per run (default: 600)"
    )
    parser.add_argument(
        "--baseline-only", action="store_true", help="time only the git diff baselines"
    )
    parser.add_argument("--json-out", type=Path, help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.warmup < 0:
        parser.error("--warmup must not be negative")
    return args, extra


def run_git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a small git command in ``repo`` and capture its output."""
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
    )


def check_repo(repo: Path) -> None:
    """Fail with a helpful message unless ``repo`` holds the ``old``/``new`` tags."""
    hint = "run 'python benchmarks/make_large_diff.py' first to build it"
    if not repo.is_dir():
        raise BenchError(f"repository {repo} does not exist; {hint}")
    if shutil.which("git") is None:
        raise BenchError("git is not on PATH")
    for tag in (OLD_TAG, NEW_TAG):
        proc = run_git(repo, "rev-parse", "--verify", "--quiet", f"{tag}^{{commit}}")
        if proc.returncode != 0:
            raise BenchError(f"{repo} has no '{tag}' commit (not a dataset repo?); {hint}")


def check_command(prefix: list[str]) -> None:
    """Fail with a helpful message if the tool's executable cannot be found."""
    if not prefix:
        raise BenchError("--cmd is empty")
    if shutil.which(prefix[0]) is None:
        raise BenchError(
            f"{prefix[0]!r} not found on PATH; activate the virtualenv "
            "(. .venv/bin/activate) or pass e.g. --cmd '.venv/bin/python -m reviewtui'"
        )


def validate_run(bench: Bench, timeout: float) -> None:
    """Run ``bench`` once untimed, capturing output, to check that it works."""
    _make_fresh(bench)
    with tempfile.TemporaryFile() as out:
        proc = subprocess.run(
            bench.cmd,
            stdout=out,
            stderr=subprocess.PIPE,
            timeout=timeout,
            check=False,
            env=ENV,
        )
        if proc.returncode != 0:
            tail = proc.stderr.decode(errors="replace").strip()[-2000:]
            raise BenchError(
                f"{bench.name} failed (exit {proc.returncode}): {shlex.join(bench.cmd)}\n{tail}"
            )
        bench.output_bytes = out.tell()
        if bench.check_json:
            out.seek(0)
            try:
                json.load(out)
            except ValueError as exc:
                raise BenchError(f"{bench.name} did not print valid JSON: {exc}") from exc


def timed_run(bench: Bench, timeout: float) -> float:
    """Run ``bench`` once with output to /dev/null and return the wall time."""
    _make_fresh(bench)
    start = time.perf_counter()
    proc = subprocess.run(
        bench.cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=timeout,
        check=False,
        env=ENV,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace").strip()[-2000:]
        raise BenchError(f"{bench.name} failed (exit {proc.returncode}) during timing:\n{tail}")
    return elapsed


def _make_fresh(bench: Bench) -> None:
    if bench.fresh is not None:
        shutil.rmtree(bench.fresh, ignore_errors=True)


def machine_info() -> dict[str, object]:
    """Describe the machine the numbers were taken on."""
    git_version = subprocess.run(
        ["git", "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "git": git_version,
    }


def build_benches(args: argparse.Namespace, extra: list[str], repo: Path) -> list[Bench]:
    """Return the commands to time, the tool first."""
    benches: list[Bench] = []
    if not args.baseline_only:
        prefix = shlex.split(args.cmd)
        check_command(prefix)
        tool_cmd = [*prefix, args.subcommand]
        if not args.no_json:
            tool_cmd.append("--json")
        tool_cmd += ["--range", args.rev_range, *extra, str(repo)]
        benches.append(
            Bench(f"{TOOL_NAME} {args.subcommand}", tool_cmd, check_json=not args.no_json)
        )
        if not args.no_cold:
            cold = [*tool_cmd[:-1], "--no-cache", tool_cmd[-1]]
            benches.append(Bench(f"{TOOL_NAME} {args.subcommand} --no-cache", cold,
                                 check_json=not args.no_json))
        if not args.no_first:
            common = run_git(repo, "rev-parse", "--path-format=absolute",
                             "--git-common-dir").stdout.strip()
            benches.append(Bench(f"{TOOL_NAME} {args.subcommand}, first run", tool_cmd,
                                 check_json=not args.no_json,
                                 fresh=Path(common) / "reviewtui"))
    benches.append(Bench(GIT_DIFF, ["git", "-C", str(repo), "diff", f"{OLD_TAG}..{NEW_TAG}"]))
    benches.append(
        Bench(
            GIT_DIFF_TOOL_FLAGS,
            [
                "git",
                "-C",
                str(repo),
                "-c",
                "core.quotePath=false",
                "diff",
                *TOOL_DIFF_FLAGS,
                OLD_TAG,
                NEW_TAG,
            ],
        )
    )
    return benches


def run_benchmark(args: argparse.Namespace, extra: list[str]) -> dict[str, object]:
    """Check, warm up, time all commands and return the results."""
    repo = args.repo.resolve()
    check_repo(repo)
    benches = build_benches(args, extra, repo)
    for bench in benches:
        print(f"{bench.name}: {shlex.join(bench.cmd)}", file=sys.stderr)
    for i in range(args.warmup):
        for bench in benches:
            if i == 0:
                validate_run(bench, args.timeout)
            else:
                timed_run(bench, args.timeout)
    for i in range(args.runs):
        for bench in benches:
            bench.times.append(timed_run(bench, args.timeout))
        print(f"run {i + 1}/{args.runs} done", file=sys.stderr)

    medians = {b.name: statistics.median(b.times) for b in benches}
    ratios: dict[str, float] = {}
    tools = [b.name for b in benches if b.name not in (GIT_DIFF, GIT_DIFF_TOOL_FLAGS)]
    for tool in tools:
        for base in (GIT_DIFF, GIT_DIFF_TOOL_FLAGS):
            ratios[f"{tool} / {base}"] = medians[tool] / medians[base]
    return {
        "repo": str(repo),
        "range": f"{OLD_TAG}..{NEW_TAG}",
        "runs": args.runs,
        "warmup": args.warmup,
        "machine": machine_info(),
        "results": {b.name: b.summary() for b in benches},
        "ratios": ratios,
    }


def print_report(result: dict[str, object]) -> None:
    """Print the medians and ratios as a small table."""
    results = result["results"]
    assert isinstance(results, dict)
    width = max(len(name) for name in results)
    print(f"repo: {result['repo']}  runs: {result['runs']} (+{result['warmup']} warm-up)")
    print(f"{'command':<{width}}  {'median s':>9}  {'min s':>8}  {'max s':>8}  {'output':>10}")
    for name, res in results.items():
        size = res["output_bytes"]
        size_text = f"{size / 1e6:.1f} MB" if isinstance(size, int) else "-"
        print(
            f"{name:<{width}}  {res['median']:9.3f}  {res['min']:8.3f}  {res['max']:8.3f}"
            f"  {size_text:>10}"
        )
    ratios = result["ratios"]
    assert isinstance(ratios, dict)
    for label, ratio in ratios.items():
        print(f"ratio {label}: {ratio:.1f}x")


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args, extra = parse_args(argv)
    try:
        result = run_benchmark(args, extra)
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except subprocess.TimeoutExpired as exc:
        print(f"error: timed out after {exc.timeout} s: {exc.cmd}", file=sys.stderr)
        return 1
    print_report(result)
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json_out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
