"""Does the risk ranking put real security fixes first? Measured on real security releases.

For every release pair in ``security_fixes.toml`` (two adjacent releases of a public package from
PyPI, committed as two commits by ``make_large_diff.py``), this runs the real command,
``reviewtui index --json --sort priority --range old..new``, and reports for each CVE fix the rank
of the first unit that holds one of the fix's lines (the order a reviewer would read), the risk
class that unit got, and the share of units rated high or critical. The goal: every fix within
the top 5 units or the top 10 % of them, whichever is larger, counting only the units that hold
no line of any fix of the same release ("place"): in a release with several fixes, a reviewer
who reads the other fixes first has lost nothing, and a release with four fixes in six units
could not put all of them in the top five. The plain rank is shown beside it.

    python benchmarks/bench_risk.py              # builds missing datasets (PyPI), then ranks
    python benchmarks/bench_risk.py --markdown   # the table for benchmarks/README.md
    python benchmarks/bench_risk.py --large      # also the risk distribution on Django 5.0.6 -> 5.1

Standard library only; run it with the project's virtualenv active.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from make_large_diff import DATA_DIR, DEFAULT_REPO

BENCH_DIR = Path(__file__).resolve().parent
FIXES = BENCH_DIR / "security_fixes.toml"
SECURITY_DATA = DATA_DIR / "security"
_RANGE = re.compile(r"L(\d+)(?:-(\d+))?")


@dataclass(frozen=True)
class FixRank:
    package: str
    versions: str
    cve: str
    summary: str
    rank: int | None  # 1-based; None: no unit holds the fix's lines
    place: int | None  # the rank among the units that hold no line of the release's fixes
    risk: str | None
    goal: int
    units: int
    held_out: bool = False  # added after the rules were calibrated, never tuned on

    @property
    def ok(self) -> bool:
        return self.place is not None and self.place <= self.goal


def _lines(compact: str) -> set[int]:
    out: set[int] = set()
    for match in _RANGE.finditer(compact or ""):
        start = int(match.group(1))
        out.update(range(start, int(match.group(2) or start) + 1))
    return out


def _command() -> list[str]:
    exe = shutil.which("reviewtui")
    return [exe] if exe else [sys.executable, "-m", "reviewtui"]


def build(release: dict[str, str]) -> Path:
    repo = SECURITY_DATA / f"{release['package']}-{release['old']}-{release['new']}"
    if not repo.is_dir():
        subprocess.run([sys.executable, str(BENCH_DIR / "make_large_diff.py"), "--package",
                        release["package"], "--old", release["old"], "--new", release["new"],
                        "--out", str(repo)], check=True, stdout=subprocess.DEVNULL)
    return repo


_RISK_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def index(repo: Path, command: list[str] | None = None) -> dict[str, object]:
    """The review index in priority order. A ``command`` from before the priority score (a
    reviewtui without ``--sort``) is ranked by risk class, then rule confidence."""
    if command is None:
        proc = subprocess.run([*_command(), "index", "--json", "--sort", "priority", "--range",
                               "old..new", str(repo)], capture_output=True, text=True,
                              check=True)
        data: dict[str, object] = json.loads(proc.stdout)
        return data
    proc = subprocess.run([*command, "index", "--json", "--range", "old..new", str(repo)],
                          capture_output=True, text=True, check=True)
    data = json.loads(proc.stdout)
    data["units"] = sorted(data["units"], key=lambda u: (
        _RISK_ORDER.get(u["agent_decision"]["priority"], 4), -(u["rule_confidence"] or 0)))
    if not data["summary"].get("risk_distribution"):
        counts = dict.fromkeys(_RISK_ORDER, 0)
        for unit in data["units"]:
            counts[unit["agent_decision"]["priority"]] += 1
        data["summary"]["risk_distribution"] = counts
    return data


def rank_fixes(release: dict[str, object], data: dict[str, object]) -> list[FixRank]:
    units = data["units"]
    assert isinstance(units, list)
    goal = max(5, math.ceil(len(units) * 0.10))
    fixes = release.get("fix", [])
    assert isinstance(fixes, list)

    def holds(unit: dict[str, object], fix: dict[str, object]) -> bool:
        lines = unit["line_numbers"]
        assert isinstance(lines, dict)
        new_lines = _lines(lines["new_compact"])
        locations = fix["locations"]
        assert isinstance(locations, list)
        return any(unit["file_path"] == loc["path"] and bool(new_lines & set(loc["lines"]))
                   for loc in locations)

    out: list[FixRank] = []
    for fix in fixes:
        rank = place = risk = None
        others = 0  # units ahead that hold no line of any of the release's fixes
        for position, unit in enumerate(units, start=1):
            if holds(unit, fix):
                rank, place, risk = position, others + 1, unit["agent_decision"]["priority"]
                break
            if not any(holds(unit, other) for other in fixes):
                others += 1
        out.append(FixRank(str(release["package"]), f"{release['old']} → {release['new']}",
                           fix["cve"], fix.get("summary", ""), rank, place, risk, goal,
                           len(units), bool(release.get("held_out"))))
    return out


def share(data: dict[str, object]) -> float:
    summary = data["summary"]
    assert isinstance(summary, dict)
    counts = summary["risk_distribution"]
    total = sum(counts.values())
    return 100 * (counts["high"] + counts["critical"]) / total if total else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixes", type=Path, default=FIXES)
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--large", action="store_true",
                        help="also the distribution on the large Django dataset")
    parser.add_argument("--command", help="another reviewtui to rank with, e.g. an older "
                        "checkout: \"env PYTHONPATH=/tmp/old/src python -m reviewtui\" "
                        "(ordered by risk, then confidence, if it has no priority score)")
    args = parser.parse_args()
    releases = tomllib.loads(args.fixes.read_text(encoding="utf-8"))["release"]
    ranks: list[FixRank] = []
    shares: list[tuple[str, int, float]] = []
    command = args.command.split() if args.command else None
    for release in releases:
        data = index(build(release), command)
        ranks += rank_fixes(release, data)
        units = data["units"]
        assert isinstance(units, list)
        shares.append((f"{release['package']} {release['old']} → {release['new']}",
                       len(units), share(data)))
    if args.markdown:
        print("| package | release | CVE | fix | units | rank | place | goal | risk | ok |")
        print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |")
        for r in ranks:
            held = " (held out)" if r.held_out else ""
            summary = r.summary.replace("|", "\\|")
            print(f"| {r.package} | {r.versions}{held} | {r.cve} | {summary} | {r.units} | "
                  f"{r.rank or '-'} | {r.place or '-'} | ≤ {r.goal} | {r.risk or '-'} | "
                  f"{'yes' if r.ok else '**no**'} |")
        print()
        print("| release | units | high + critical |")
        print("| --- | ---: | ---: |")
        for name, count, pct in shares:
            print(f"| {name} | {count} | {pct:.1f} % |")
    else:
        for r in ranks:
            print(f"{r.package:10} {r.versions:18} {r.cve:16} rank {r.rank or '-':>3} of "
                  f"{r.units:<4} place {r.place or '-':>3} goal <= {r.goal:<3} {r.risk or '-':8} "
                  f"{'ok' if r.ok else 'MISSED'}{'  (held out)' if r.held_out else ''}")
        for name, count, pct in shares:
            print(f"{name}: {count} units, {pct:.1f}% high or critical")
    passed = sum(r.ok for r in ranks)
    held = [r for r in ranks if r.held_out]
    print(f"\n{passed} of {len(ranks)} fixes within the goal ({sum(r.ok for r in held)} of "
          f"{len(held)} held out); {len({r.package for r in ranks})} projects")
    if args.large and DEFAULT_REPO.is_dir():
        data = index(DEFAULT_REPO, command)
        units = data["units"]
        assert isinstance(units, list)
        print(f"Django 5.0.6 → 5.1: {len(units)} units, {share(data):.1f}% high or critical "
              f"({data['summary']['risk_distribution']})")  # type: ignore[index]
    return 0 if passed == len(ranks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
