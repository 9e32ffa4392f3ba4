"""``reviewtui rules check``, ``explain`` and ``learn``: the rule stage, inspectable."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from reviewtui.cli.selectors import selector_from_args
from reviewtui.errors import NotARepositoryError, UsageError
from reviewtui.git import ChangeSelector, open_repository
from reviewtui.rules import RulePack, check_pack_file, load_rule_pack
from reviewtui.rules.explain import explain
from reviewtui.rules.pack_lint import file_warnings
from reviewtui.rules.packs import repository_pack_files


def _summary(pack: RulePack) -> str:
    languages = []
    for name, rules in sorted(pack.languages.items()):
        count = (len(rules.decorators) + len(rules.paths) + len(rules.symbols)
                 + len(rules.metrics) + len(rules.keywords))
        also = [alias for alias in rules.applies_to if alias != name]
        languages.append(f"{name} {count}" + (f" (also {'/'.join(also)})" if also else ""))
    parts = [f"{len(pack.patterns)} change patterns"]
    if languages:
        parts.append("language rules: " + ", ".join(languages))
    parts.append(f"{len(pack.learned)} learned rules")
    return "; ".join(parts)


def run_rules(args: argparse.Namespace) -> int:
    if args.action == "check":
        return run_check(args.file, args.repo, sys.stdout)
    if args.action == "learn":
        from reviewtui.cli.learn import run_learn

        return run_learn(args, sys.stdout, sys.stderr)
    return run_explain(args.unit_id, args.path, selector_from_args(args), sys.stdout,
                       use_cache=not args.no_cache)


def run_check(file: str | None, repo: str | None, out: TextIO) -> int:
    if file is not None:
        path = Path(file)
        if path.is_dir():
            raise UsageError(f"{file}: a folder, not a rule pack file (give a .toml, .json or "
                             f".yaml pack, or --repo {file} to check that repository's packs)")
        if not path.is_file():
            raise UsageError(f"{file}: no such rule pack file")
        pack = check_pack_file(path)
        out.write(f"ok: {path}: {_summary(pack)}\n")
        return _warn(file_warnings([path]), out)
    try:
        root: Path | None = open_repository(repo).root
    except NotARepositoryError:
        if repo is not None:
            raise
        root = None
    loaded = load_rule_pack(root)
    for source in loaded.sources:
        out.write(f"ok: {source}\n")
    out.write(f"merged: {_summary(loaded.pack)}\n")
    return _warn(file_warnings(repository_pack_files(root) if root is not None else []), out)


def _warn(warnings: list[str], out: TextIO) -> int:
    """What the packs say that never takes effect: valid, but a check that finds it fails."""
    for warning in warnings:
        out.write(f"warning: {warning}\n")
    if warnings:
        out.write(f"{len(warnings)} warning{'s' if len(warnings) > 1 else ''}: the packs load, "
                  "but what is named above never takes effect\n")
    return 1 if warnings else 0


def run_explain(unit_id: str, path: str | None, selector: ChangeSelector, out: TextIO, *,
                use_cache: bool = True) -> int:
    from reviewtui.cli.progress import load_change

    loaded = load_change(path, selector, use_cache=use_cache).with_reach()
    unit = loaded.unit(unit_id)
    if unit is None:
        matching = [u.unit_id for u in loaded.units if u.unit_id.startswith(unit_id)]
        if len(matching) > 1:
            raise UsageError(f"{len(matching)} units start with {unit_id!r} "
                             f"({', '.join(matching[:5])}{', ...' if len(matching) > 5 else ''});"
                             " give more of the id")
        close = [u.unit_id for u in loaded.units if u.unit_id.startswith(unit_id[:4])][:5]
        hint = f" (similar: {', '.join(close)})" if close else ""
        raise UsageError(f"no unit {unit_id!r} in this change ({len(loaded.units)} units; "
                         f"run 'reviewtui index' to list them){hint}")
    from reviewtui.rules.explain import learned_lines
    from reviewtui.rules.triage_model import load_weights, rule_features
    from reviewtui.rules.unit_tokens import unit_tokens

    suggestion = loaded.suggestions[unit.unit_id]
    weights, weights_path = load_weights(loaded.root)
    features = loaded.learned_features.get(unit.unit_id) or (
        loaded.triage_features()[unit.unit_id] | rule_features(suggestion))
    learned = learned_lines(unit, weights.contributions(features, unit_tokens(unit)), features,
                            weights_path, loaded.learned_evidence.get(unit.unit_id))
    out.write(explain(unit, loaded.rules, suggestion, loaded.rule_pack.sources, learned))
    return 0
