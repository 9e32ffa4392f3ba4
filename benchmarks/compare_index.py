"""Check that two versions of reviewtui print the same ``index`` for the same changes.

A speed-up of the analysis must not change what it finds, so this runs
``reviewtui index --json --range A..B --no-cache REPO`` (and any extra variants,
e.g. ``--sort priority``) with two source trees on ``PYTHONPATH`` (say, main's
``src`` exported with ``git archive`` and a branch's ``src``) and compares the
JSON documents after dropping the fields that record when the run happened.
``--no-cache`` is passed so that both sides analyse every file again (and write
no per-file cache nor snapshot into the repository). ``PYTHONHASHSEED`` is fixed.

Usage::

    python benchmarks/compare_index.py --base /tmp/base/src --new src REPO [REPO ...]
    python benchmarks/compare_index.py --base B --new N --variant "--sort priority" REPO

Exit status 0 when every pair is identical, 1 otherwise (the first differences are
printed). Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

# Fields whose value is the moment of the run, not its result.
VOLATILE_KEYS = frozenset({"generated_at", "created_at", "timestamp", "elapsed", "duration_s"})


def scrub(value: object) -> object:
    """The document without its volatile fields (recursively)."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def run(src: Path, python: str, repo: Path, rng: str, extra: list[str]) -> tuple[object, float]:
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONHASHSEED="0")
    cmd = [python, "-m", "reviewtui", "index", "--json", "--range", rng, "--no-cache",
           *extra, str(repo)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    return scrub(json.loads(proc.stdout)), elapsed


def differences(a: object, b: object, path: str = "$", limit: int = 10) -> list[str]:
    """Up to ``limit`` paths where ``a`` and ``b`` differ."""
    out: list[str] = []

    def walk(x: object, y: object, where: str) -> None:
        if len(out) >= limit or x == y:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for key in sorted(set(x) | set(y)):
                walk(x.get(key), y.get(key), f"{where}.{key}")
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (p, q) in enumerate(zip(x, y, strict=True)):
                walk(p, q, f"{where}[{i}]")
        else:
            out.append(f"{where}: {json.dumps(x)[:300]} != {json.dumps(y)[:300]}")

    walk(a, b, path)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="reference src directory")
    parser.add_argument("--new", type=Path, required=True, help="src directory to check")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--range", default="old..new")
    parser.add_argument("--variant", action="append", default=[],
                        help="extra index arguments, one run pair each (default: none)")
    parser.add_argument("repos", nargs="+", type=Path)
    args = parser.parse_args()
    variants = [shlex.split(v) for v in args.variant] or [[]]
    failed = False
    for repo in args.repos:
        for extra in variants:
            base, t_base = run(args.base.resolve(), args.python, repo, args.range, extra)
            new, t_new = run(args.new.resolve(), args.python, repo, args.range, extra)
            diffs = differences(base, new)
            units = len(base.get("units", [])) if isinstance(base, dict) else 0
            label = f"{repo} {shlex.join(extra) or '(by file)'}"
            status = "identical" if not diffs else "DIFFERENT"
            print(f"{label}: {units} units, {status} (base {t_base:.1f} s, new {t_new:.1f} s)")
            for line in diffs:
                print("  " + line)
            failed |= bool(diffs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
