"""Check that skeleton analysis answers exactly like whole-file parsing on a large real diff.

For every changed, non-blank line of every supported file version in the diff, the innermost
enclosing definition and the definitions whose header is changed must be identical whether the
file is parsed whole or only around its changes. Prints the number of mismatches (0 expected).

    python benchmarks/verify_structure.py [REPO] [--range old..new]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from make_large_diff import DEFAULT_REPO
from reviewtui.code import Definition, analyze_source
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.units.structures import changed_runs, structure_language

Key = tuple[str, str, int, int, int] | None


def _key(definition: Definition | None) -> Key:
    if definition is None:
        return None
    return (definition.kind, definition.qualified_name, definition.start_line,
            definition.header_line, definition.signature_end_line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", type=Path, default=DEFAULT_REPO)
    parser.add_argument("--range", default="old..new", dest="range_spec")
    args = parser.parse_args()
    if not args.repo.is_dir():
        print(f"{args.repo} does not exist: run benchmarks/make_large_diff.py first",
              file=sys.stderr)
        return 2
    loaded = load_change(args.repo, ChangeSelector(SelectorMode.RANGE, ref=args.range_spec))
    checked = mismatches = 0
    for change in loaded.change_set.files:
        language = structure_language(change)
        if language is None:
            continue
        for side, kind in (("new", "+"), ("old", "-")):
            data = loaded.reader.new(change) if side == "new" else loaded.reader.old(change)
            runs = changed_runs(change.hunks, kind)
            if data is None or not runs:
                continue
            full = analyze_source(language, data)
            part = analyze_source(language, data, runs)
            assert full is not None and part is not None
            rows = data.split(b"\n")
            for low, high in runs:
                for line in range(low, high + 1):
                    if not rows[line - 1].strip():
                        continue
                    checked += 1
                    if _key(full.enclosing(line)) != _key(part.enclosing(line)):
                        mismatches += 1
                        print(f"{change.path} ({side}) line {line}: "
                              f"{_key(full.enclosing(line))} != {_key(part.enclosing(line))}")
                full_defs = [_key(d) for d in full.defined_in(low, high)]
                if full_defs != [_key(d) for d in part.defined_in(low, high)]:
                    mismatches += 1
                    print(f"{change.path} ({side}) lines {low}-{high}: definitions differ")
    print(f"checked {checked} changed lines, {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
