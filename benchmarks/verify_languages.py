"""Structure of Rust, C, C++, C#, PHP and Kotlin on real diffs, checked three ways.

Per language, two releases of a real published project (PyPI sdists, npm tarballs; built by
``make_large_diff.py`` into ``.data/``) give a real diff. On it:

1. skeletons against whole files (``verify_structure.verify``): for every changed line, the
   innermost definition and the changed headers must be the same; 0 mismatches expected;
2. an independent parser, Universal Ctags (``apt-get install universal-ctags``), on the after
   side of every changed file of the language: the definitions whose name line the diff shows
   (functions, methods, macros, types, namespaces), matched by kind group, name and line; and,
   where ctags knows where a definition ends (C, C++, C#), the innermost definition around every
   changed line. Differences are listed by cause: closures and local functions (ctags does not
   tag them), and the rest, printed with ``--show`` for hand checking;
3. the time of ``reviewtui index --json`` (first run, ``--no-cache``, and again with the
   per-file cache) as a ratio to ``git diff``.

    python benchmarks/verify_languages.py [--languages rust,c] [--runs 5] [--show 20]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from make_large_diff import build_dataset, default_repo_path, existing_dataset_ok
from reviewtui.code import Definition, FileStructure, analyze_source
from reviewtui.code.kinds import CLASS_KINDS, FUNCTION_KINDS
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.git.model import FileChange
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.units.languages import repository_languages
from reviewtui.units.structures import structure_language
from verify_structure import verify


@dataclass(frozen=True)
class Dataset:
    language: str
    package: str
    old: str
    new: str
    npm: bool
    ctags: str  # ctags' name of the language

    @property
    def repo(self) -> Path:
        return default_repo_path(self.package, self.old, self.new)


DATASETS = (
    Dataset("rust", "cryptography", "40.0.2", "41.0.0", False, "Rust"),
    Dataset("c", "pillow", "10.4.0", "11.0.0", False, "C"),
    Dataset("cpp", "pybind11", "2.13.6", "3.0.0", False, "C++"),
    Dataset("csharp", "pythonnet", "3.0.5", "3.1.0", False, "C#"),
    Dataset("php", "@wordpress/block-library", "8.0.0", "9.11.0", True, "PHP"),
    Dataset("kotlin", "expo-modules-core", "1.12.26", "2.2.0", True, "Kotlin"),
)

# Kinds grouped the same way for both tools: callables, types, namespaces.
_OURS = {**dict.fromkeys(FUNCTION_KINDS, "callable"), **dict.fromkeys(CLASS_KINDS, "type"),
         "namespace": "namespace"}
_CTAGS = {"function": "callable", "method": "callable", "prototype": "callable",
          "macro": "callable", "class": "type", "struct": "type", "union": "type",
          "enum": "type", "interface": "type", "implementation": "type", "trait": "type",
          "object": "type", "namespace": "namespace", "module": "namespace"}
_WITH_END = frozenset({"c", "cpp", "csharp"})  # ctags 5.9 records where these end

Key = tuple[str, str, int]  # (kind group, name, line of the name)
_LOCAL = "closures and local functions"
_BROKEN = "files tree-sitter cannot parse cleanly"
_MODULE_DECLARATION = "mod x; declarations"


@dataclass
class Comparison:
    matched: int = 0
    ours_only: Counter[str] = field(default_factory=Counter)  # by cause
    ctags_only: Counter[str] = field(default_factory=Counter)
    enclosing_checked: Counter[bool] = field(default_factory=Counter)  # by "parses cleanly"
    enclosing_same: Counter[bool] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)


def _shown_rows(change: FileChange) -> set[int]:
    return {n for hunk in change.hunks for n in range(hunk.new_start, hunk.new_end + 1)}


def _is_local(definition: Definition, by_name: dict[str, Definition]) -> bool:
    """A closure or lambda bound to a variable, or a local function (a callable inside a
    callable): ctags tags none of them."""
    if definition.kind not in FUNCTION_KINDS:
        return False
    if f"{definition.name} =" in definition.signature:
        return True
    parent = by_name.get(definition.parent or "")
    return parent is not None and parent.kind in FUNCTION_KINDS


def _anonymous(definition: Definition) -> bool:
    """A C ``typedef struct {...} name;``: ctags names the typedef, not the struct."""
    return definition.signature in ("typedef struct", "typedef union", "typedef enum")


def _ours(structure: FileStructure) -> tuple[list[tuple[str, Definition]], set[Definition]]:
    """Comparable definitions with their kind group, and the local callables among them."""
    by_name = {d.qualified_name: d for d in structure.definitions}
    found: list[tuple[str, Definition]] = []
    local: set[Definition] = set()
    for definition in structure.definitions:
        group = _OURS.get(definition.kind)
        if group is None or _anonymous(definition):
            continue
        found.append((group, definition))
        if _is_local(definition, by_name):
            local.add(definition)
    return found, local


def _norm(name: str) -> str:
    """ctags calls every C++ operator ``operator``; spaces differ between the tools."""
    name = name.replace(" ", "")
    return "operator" if name.startswith("operator") else name


def _same(group: str, definition: Definition, key: Key) -> bool:
    """ctags names a definition at its first line (``impl<...>``, ``template <...>``) or at its
    name; either is the same definition."""
    return (key[0] == group and key[1] == _norm(definition.name)
            and definition.start_line <= key[2] <= definition.header_line)


def _ctags(dataset: Dataset, files: dict[str, bytes]) -> dict[str, list[dict[str, object]]]:
    """ctags' tags per file path (the after side, written to a scratch folder)."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for path, data in files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        (root / ".files").write_text("".join(f"{p}\n" for p in files))
        out = subprocess.run(
            ["ctags", "--output-format=json", "--fields=+neKS", "--kinds-C=+p",
             "--kinds-C++=+p", f"--language-force={dataset.ctags}", "-L", ".files", "-o", "-"],
            cwd=root, capture_output=True, check=True).stdout
    tags: dict[str, list[dict[str, object]]] = {}
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") == "tag":
            tags.setdefault(str(tag["path"]), []).append(tag)
    return tags


def _ctags_key(tag: dict[str, object]) -> Key | None:
    kind, name = str(tag.get("kind")), str(tag.get("name"))
    group = _CTAGS.get(kind)
    if group is None or name.startswith(("__anon", "<")):
        return None
    if kind == "macro" and "signature" not in tag:
        return None  # an object-like #define: not a definition here
    return (group, _norm(name), int(str(tag["line"])))


def _innermost_tag(tags: list[dict[str, object]], line: int) -> str | None:
    best: tuple[int, str] | None = None
    for tag in tags:
        if _ctags_key(tag) is None or "end" not in tag:
            continue
        start, end = int(str(tag["line"])), int(str(tag["end"]))
        if start <= line <= end and (best is None or start >= best[0]):
            best = (start, _norm(str(tag["name"])))
    return best[1] if best else None


def _innermost_ours(structure: FileStructure, local: set[Definition],
                    line: int) -> Definition | None:
    for definition in structure.containing(line):
        if (definition.kind in _OURS and definition not in local
                and definition.header_line <= line):
            return definition
    return None


def _compare_enclosing(result: Comparison, path: str, change: FileChange, data: bytes,
                       structure: FileStructure, local: set[Definition],
                       tags: list[dict[str, object]]) -> None:
    rows = data.split(b"\n")
    for hunk in change.hunks:
        for line in hunk.lines:
            number = line.new_no or 0
            if line.kind != "+" or not rows[number - 1].strip():
                continue
            mine = _innermost_ours(structure, local, number)
            if mine is not None and _anonymous(mine):
                continue  # ctags has no name for it
            clean = not structure.has_errors
            result.enclosing_checked[clean] += 1
            theirs = _innermost_tag(tags, number)
            if (_norm(mine.name) if mine else None) == theirs:
                result.enclosing_same[clean] += 1
            elif clean:
                result.examples.append(f"enclosing  {path}:{number} ours="
                                       f"{mine.name if mine else None} ctags={theirs}")


def compare(dataset: Dataset, loaded: LoadedChange) -> Comparison:
    languages = repository_languages(loaded.repo, loaded.change_set)
    changes = {c.path: c for c in loaded.change_set.files
               if structure_language(c, languages) == dataset.language and c.new_path
               and c.hunks}
    files = {path: data for path, c in changes.items() if (data := loaded.reader.new(c))}
    tags = _ctags(dataset, files)
    result = Comparison()
    for path, data in sorted(files.items()):
        structure = analyze_source(dataset.language, data)
        assert structure is not None
        shown = _shown_rows(changes[path])
        everything, local = _ours(structure)
        file_tags = tags.get(path, [])
        all_theirs = [(key, tag) for tag in file_tags if (key := _ctags_key(tag)) is not None]
        # The sample: definitions whose first lines or name line the diff shows, either side.
        ours = [(g, d) for g, d in everything
                if any(n in shown for n in range(d.start_line, d.header_line + 1))
                or any(_same(g, d, key) and key[2] in shown for key, _ in all_theirs)]
        theirs = [(key, tag) for key, tag in all_theirs
                  if key[2] in shown or any(_same(g, d, key) for g, d in ours)]
        matched = {id(d) for g, d in ours for key, _ in theirs if _same(g, d, key)}
        result.matched += len(matched)
        for group, definition in ours:
            if id(definition) in matched:
                continue
            cause = (_LOCAL if definition in local else _BROKEN if structure.has_errors
                     else "other")
            result.ours_only[cause] += 1
            if cause == "other":
                result.examples.append(f"ours only  {path}:{definition.header_line} {group} "
                                       f"{definition.qualified_name}")
        for key, tag in theirs:
            if any(_same(g, d, key) for g, d in ours):
                continue
            cause = (_BROKEN if structure.has_errors else _MODULE_DECLARATION
                     if tag.get("kind") == "module" and str(tag.get("pattern", "")).endswith(
                         ";$/") else "other")
            result.ctags_only[cause] += 1
            if cause == "other":
                result.examples.append(f"ctags only {path}:{key[2]} {key[0]} {key[1]}")
        if dataset.language in _WITH_END:
            _compare_enclosing(result, path, changes[path], data, structure, local, file_tags)
    return result


def _median_time(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def timing(repo: Path, runs: int) -> tuple[float, float, float]:
    """Medians of ``git diff``, ``index --json --no-cache`` and ``index --json`` (cached)."""
    tool = shutil.which("reviewtui") or sys.executable
    prefix = [tool] if tool != sys.executable else [sys.executable, "-m", "reviewtui"]
    index = [*prefix, "index", "--json", "--range", "old..new", str(repo)]
    subprocess.run(index, stdout=subprocess.DEVNULL, check=True)  # warm-up, fills the cache
    git = _median_time(["git", "-C", str(repo), "diff", "old..new"], runs)
    cold = _median_time([*index[:3], "--no-cache", *index[3:]], runs)
    warm = _median_time(index, runs)
    return git, cold, warm


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", default=",".join(d.language for d in DATASETS))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--show", type=int, default=0, help="print this many differences")
    parser.add_argument("--no-timing", action="store_true")
    args = parser.parse_args()
    if shutil.which("ctags") is None:
        print("ctags is missing: apt-get install universal-ctags", file=sys.stderr)
        return 2
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    wanted = set(args.languages.split(","))
    rows = []
    for dataset in (d for d in DATASETS if d.language in wanted):
        if not existing_dataset_ok(dataset.repo, dataset.package, dataset.old, dataset.new):
            build_dataset(dataset.repo, dataset.package, dataset.old, dataset.new,
                          npm=dataset.npm)
        loaded = load_change(dataset.repo, ChangeSelector(SelectorMode.RANGE, ref="old..new"),
                             use_cache=False)
        tally = verify(loaded, quiet=True)
        found = compare(dataset, loaded)
        for example in found.examples[: args.show]:
            print(f"  {dataset.language}: {example}")
        git, cold, warm = (0.0, 0.0, 0.0) if args.no_timing else timing(dataset.repo, args.runs)
        units = sum(1 for u in loaded.units if u.language == dataset.language)
        rows.append((dataset, tally.checked[dataset.language],
                     tally.mismatches[dataset.language], tally.broken[dataset.language], units,
                     found, git, cold, warm))
    print("| language | project | changed lines | units | skeleton mismatches | ctags: same "
          "| ours only: closures / in files with parse errors / other "
          "| ctags only: in files with parse errors / other "
          "| innermost same as ctags: clean files / files with parse errors "
          "| git diff | index first run | index again |")
    print("|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|")
    for dataset, checked, mismatches, broken, units, found, git, cold, warm in rows:
        same, checked_lines = found.enclosing_same, found.enclosing_checked
        inner = (" / ".join(f"{same[c]} of {checked_lines[c]}" for c in (True, False))
                 if checked_lines else "n/a")
        extra = f" (+{broken} in files that do not parse)" if broken else ""
        timed = ("| | |" if args.no_timing else
                 f"| {git:.2f} s | {cold:.2f} s ({cold / git:.1f}×) | {warm:.2f} s "
                 f"({warm / git:.1f}×) |")
        ours, theirs = found.ours_only, found.ctags_only
        modules = (f" (+{theirs[_MODULE_DECLARATION]} `mod x;`)"
                   if theirs[_MODULE_DECLARATION] else "")
        print(f"| {dataset.language} | {dataset.package} {dataset.old} → {dataset.new} "
              f"| {checked} | {units} | {mismatches}{extra} | {found.matched} "
              f"| {ours[_LOCAL]} / {ours[_BROKEN]} / {ours['other']} "
              f"| {theirs[_BROKEN]} / {theirs['other']}{modules} | {inner} {timed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
