"""How do the Rust, C, C++, C#, PHP and Kotlin rules rate ordinary releases of real projects?

For each release pair below (two adjacent releases of a public package: a PyPI sdist or an npm
tarball that carries code in the language), this builds a two-commit repository with
``make_large_diff.py`` (npm tarballs are fetched with ``npm pack`` into the same download cache
first), runs the real command ``reviewtui index --json --sort priority --range old..new`` and
reports, for the units in the release's languages: the risk distribution, the share rated high
or critical (the goal for an ordinary release: at most 15 %), and the top-ranked units with the
rules that put them there, to be read by a person.

    python benchmarks/bench_languages.py              # builds missing datasets, then rates
    python benchmarks/bench_languages.py --markdown   # the tables for benchmarks/README.md
    python benchmarks/bench_languages.py --top 10     # more of the top-ranked units
    python benchmarks/bench_languages.py --command "env PYTHONPATH=/tmp/old/src python -m reviewtui"

Standard library only; run it with the project's virtualenv active (``npm`` on PATH for the
npm releases). Nothing downloaded is committed: it lives under ``benchmarks/.data/``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from make_large_diff import DATA_DIR, find_sdist, normalize_name

BENCH_DIR = Path(__file__).resolve().parent
LANGUAGE_DATA = DATA_DIR / "languages"
_RISKS = ("critical", "high", "medium", "low")
_LABEL = re.compile(r"(?:^|, )([a-z][\w:.-]*)\(")


@dataclass(frozen=True)
class Release:
    registry: str  # pypi | npm
    package: str
    old: str
    new: str
    languages: tuple[str, ...]  # the languages whose units are rated

    @property
    def name(self) -> str:
        return f"{self.package} {self.old} → {self.new}"


RELEASES = (
    Release("pypi", "cryptography", "40.0.2", "41.0.0", ("rust",)),
    Release("pypi", "cryptography", "41.0.5", "41.0.7", ("rust",)),
    Release("pypi", "bcrypt", "4.0.1", "4.1.0", ("rust",)),
    Release("pypi", "libcst", "1.1.0", "1.2.0", ("rust",)),
    Release("pypi", "ujson", "5.8.0", "5.9.0", ("c", "cpp")),
    Release("pypi", "msgpack", "1.0.7", "1.0.8", ("c", "cpp")),
    Release("pypi", "psutil", "5.9.7", "5.9.8", ("c",)),
    Release("pypi", "pybind11", "2.11.1", "2.12.0", ("cpp", "c")),
    Release("pypi", "greenlet", "3.0.2", "3.0.3", ("cpp", "c")),
    Release("pypi", "pythonnet", "3.0.1", "3.0.2", ("csharp",)),
    Release("pypi", "pythonnet", "3.0.2", "3.0.3", ("csharp",)),
    Release("npm", "@wordpress/block-library", "8.30.0", "8.31.0", ("php",)),
    Release("npm", "@wordpress/block-library", "8.31.0", "8.32.0", ("php",)),
    Release("npm", "expo-modules-core", "1.11.8", "1.11.12", ("kotlin",)),
    Release("npm", "expo-modules-core", "1.12.0", "1.12.3", ("kotlin",)),
    Release("npm", "react-native-screens", "3.29.0", "3.30.0", ("kotlin",)),
)


def _npm_pack(package: str, version: str) -> None:
    """Put the npm tarball where ``make_large_diff`` looks for a cached download."""
    target = DATA_DIR / "downloads" / f"{normalize_name(package)}-{version}"
    if find_sdist(target) is not None:
        return
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "pack", "--silent", f"{package}@{version}", "--pack-destination",
                    str(target)], check=True, stdout=subprocess.DEVNULL)


def build(release: Release) -> Path:
    slug = re.sub(r"[^\w.-]+", "-", normalize_name(release.package)).strip("-")
    repo = LANGUAGE_DATA / f"{slug}-{release.old}-{release.new}"
    if not repo.is_dir():
        if release.registry == "npm":
            for version in (release.old, release.new):
                _npm_pack(release.package, version)
        subprocess.run([sys.executable, str(BENCH_DIR / "make_large_diff.py"), "--package",
                        release.package, "--old", release.old, "--new", release.new, "--out",
                        str(repo)], check=True, stdout=subprocess.DEVNULL)
    return repo


def index(repo: Path, command: list[str] | None = None) -> list[dict[str, object]]:
    if command is None:
        exe = shutil.which("reviewtui")
        command = [exe] if exe else [sys.executable, "-m", "reviewtui"]
    proc = subprocess.run([*command, "index", "--json", "--sort", "priority", "--range",
                           "old..new", str(repo)], capture_output=True, text=True, check=True)
    units: list[dict[str, object]] = json.loads(proc.stdout)["units"]
    return units


def _risk(unit: dict[str, object]) -> str:
    decision = unit["agent_decision"]
    assert isinstance(decision, dict)
    return str(decision["priority"])


def distribution(units: list[dict[str, object]]) -> dict[str, int]:
    counts = dict.fromkeys(_RISKS, 0)
    for unit in units:
        counts[_risk(unit)] += 1
    return counts


def high_share(counts: dict[str, int]) -> float:
    total = sum(counts.values())
    return 100 * (counts["critical"] + counts["high"]) / total if total else 0.0


def by_base_security(units: list[dict[str, object]]) -> int:
    """High/critical units the base pack's ``security_sensitive`` tag already rates high."""
    return sum(1 for u in units if _risk(u) in ("critical", "high")
               and "pattern:security_sensitive(" in str(u["rule_notes"]))


def where(unit: dict[str, object], limit: int = 3) -> str:
    """The unit's first added line ranges (new numbering), or its removed ones."""
    numbers = unit["line_numbers"]
    assert isinstance(numbers, dict)
    compact = numbers["new_compact"] or numbers["old_compact"]
    ranges = str(compact).split(",")
    side = "" if numbers["new_compact"] else "removed "
    return side + ",".join(ranges[:limit]) + (",…" if len(ranges) > limit else "")


def labels(unit: dict[str, object]) -> str:
    notes = str(unit["rule_notes"] or "")
    matched = notes.split("matched: ", 1)[1] if "matched: " in notes else ""
    found = [m for m in _LABEL.findall(matched) if not m.startswith(("size:", "symbol:"))]
    return ", ".join(dict.fromkeys(found)) or "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--top", type=int, default=5, help="top-ranked units to list")
    parser.add_argument("--command", help="another reviewtui to rate with, e.g. a checkout "
                        "from before the packs: \"env PYTHONPATH=/tmp/old/src python -m "
                        "reviewtui\"")
    args = parser.parse_args()
    command = args.command.split() if args.command else None
    rows: list[tuple[Release, int, dict[str, int], float, int]] = []
    tops: list[tuple[Release, list[dict[str, object]]]] = []
    for release in RELEASES:
        units = [u for u in index(build(release), command)
                 if u["language"] in release.languages]
        counts = distribution(units)
        rows.append((release, len(units), counts, high_share(counts), by_base_security(units)))
        tops.append((release, units[:args.top]))
    if args.markdown:
        print("| release | languages | units | critical | high | medium | low | high + critical "
              "| of which security_sensitive |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for release, count, counts, pct, secure in rows:
            print(f"| {release.name} | {', '.join(release.languages)} | {count} | "
                  + " | ".join(str(counts[r]) for r in _RISKS) + f" | {pct:.1f} % | {secure} |")
        print()
        print("| release | top units (priority order) | risk | rules |")
        print("| --- | --- | --- | --- |")
        for release, units in tops:
            for unit in units:
                print(f"| {release.name} | `{unit['file_path']}` {where(unit)} | {_risk(unit)} "
                      f"| {labels(unit)} |")
    else:
        for (release, count, counts, pct, secure), (_, units) in zip(rows, tops, strict=True):
            print(f"{release.name} [{', '.join(release.languages)}]: {count} units {counts} "
                  f"-> {pct:.1f}% high or critical ({secure} security_sensitive)")
            for unit in units:
                print(f"    {_risk(unit):8} {unit['priority_score']:>5} {unit['file_path']} "
                      f"{where(unit)}  {labels(unit)}")
    total = sum(row[1] for row in rows)
    overall = {risk: sum(row[2][risk] for row in rows) for risk in _RISKS}
    print(f"\nall: {total} units, {high_share(overall):.1f}% high or critical ({overall})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
