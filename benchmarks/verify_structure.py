"""Check that skeleton analysis answers exactly like whole-file parsing on a large real diff.

For every changed, non-blank line of every supported file version in the diff, the innermost
enclosing definition (kind, name, lines, signature, decorators) and the definitions whose header
is changed must be identical whether the file is parsed whole or only around its changes. Prints
the number of mismatches (0 expected). Files are read as the repository's languages (``.h`` as
C++ in a C++ project).

    python benchmarks/verify_structure.py [REPO] [--range old..new]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from make_large_diff import DEFAULT_REPO
from reviewtui.code import Definition, analyze_source
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.units.languages import repository_languages
from reviewtui.units.structures import changed_runs, minified, structure_language

Key = tuple[str, str, int, int, int, str, tuple[str, ...]] | None


def _key(definition: Definition | None) -> Key:
    if definition is None:
        return None
    return (definition.kind, definition.qualified_name, definition.start_line,
            definition.header_line, definition.signature_end_line, definition.signature,
            definition.decorators)


@dataclass
class Tally:
    """Changed lines checked and mismatches, per language."""

    checked: Counter[str] = field(default_factory=Counter)
    mismatches: Counter[str] = field(default_factory=Counter)
    broken: Counter[str] = field(default_factory=Counter)  # whole file does not parse cleanly


def verify(loaded: LoadedChange, *, quiet: bool = False) -> Tally:
    """Whole-file against skeleton answers for every changed line of ``loaded``.

    A mismatch in a file whose whole parse has syntax errors is counted apart (``broken``):
    there the skeleton, which parses cleanly, may well be the better answer. Minified versions
    are left out, as the analysis leaves them unparsed.
    """
    tally = Tally()
    languages = repository_languages(loaded.repo, loaded.change_set)
    for change in loaded.change_set.files:
        language = structure_language(change, languages)
        if language is None:
            continue
        for side, kind in (("new", "+"), ("old", "-")):
            data = loaded.reader.new(change) if side == "new" else loaded.reader.old(change)
            runs = changed_runs(change.hunks, kind)
            if data is None or not runs or minified(data):
                continue  # a minified version is never parsed (units.structures.minified)
            full = analyze_source(language, data)
            part = analyze_source(language, data, runs)
            assert full is not None and part is not None
            bucket = tally.broken if full.has_errors else tally.mismatches
            rows = data.split(b"\n")
            for low, high in runs:
                for line in range(low, high + 1):
                    if not rows[line - 1].strip():
                        continue
                    tally.checked[language] += 1
                    if _key(full.enclosing(line)) != _key(part.enclosing(line)):
                        bucket[language] += 1
                        if not quiet:
                            print(f"{change.path} ({side}) line {line}: "
                                  f"{_key(full.enclosing(line))} != "
                                  f"{_key(part.enclosing(line))}")
                full_defs = [_key(d) for d in full.defined_in(low, high)]
                if full_defs != [_key(d) for d in part.defined_in(low, high)]:
                    bucket[language] += 1
                    if not quiet:
                        print(f"{change.path} ({side}) lines {low}-{high}: definitions differ")
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", type=Path, default=DEFAULT_REPO)
    parser.add_argument("--range", default="old..new", dest="range_spec")
    parser.add_argument("--quiet", action="store_true", help="print the totals only")
    args = parser.parse_args()
    if not args.repo.is_dir():
        print(f"{args.repo} does not exist: run benchmarks/make_large_diff.py first",
              file=sys.stderr)
        return 2
    loaded = load_change(args.repo, ChangeSelector(SelectorMode.RANGE, ref=args.range_spec))
    tally = verify(loaded, quiet=args.quiet)
    for language in sorted(tally.checked):
        print(f"{language}: checked {tally.checked[language]} changed lines, "
              f"{tally.mismatches[language]} mismatches"
              + (f" (+{tally.broken[language]} in files that do not parse cleanly)"
                 if tally.broken[language] else ""))
    mismatches = sum(tally.mismatches.values())
    print(f"checked {sum(tally.checked.values())} changed lines, {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
