"""``reviewtui rules learn``: candidate rules from the evidence log; ``--accept`` / ``--reject``.

The listing reads only the repository's evidence log and rule packs (no change is collected),
so it is instant. Notes about the log (unreadable lines, a stale pack) go to stderr, one line
each; nothing is ever rewritten in the log.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from reviewtui.errors import UsageError
from reviewtui.git import open_repository
from reviewtui.rules import load_rule_pack
from reviewtui.rules.learning import accept, learn, reject
from reviewtui.rules.learning.rejections import rejections_path
from reviewtui.rules.learning.text import accepted_text, rejected_text, report_text


def _check_candidate_ids(args: argparse.Namespace) -> None:
    """``--accept ""`` / ``--reject ""`` name no candidate: refused before any work, rather
    than read as the option left out (the listing)."""
    for option, value in (("--accept", args.accept), ("--reject", args.reject)):
        if value is not None and not value.strip():
            raise UsageError(f"{option} needs a candidate ID, not an empty one",
                             hint="run 'reviewtui rules learn' to list them")


def run_learn(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    _check_candidate_ids(args)
    repo = open_repository(args.path)
    pack = load_rule_pack(repo.root).pack
    if args.accept:
        done = accept(repo.root, repo.common_dir, pack, args.accept)
        if args.json:
            _json(out, {"accepted": done.candidate.model_dump(mode="json"),
                        "file": str(done.path), "replaced": done.replaced})
        else:
            out.write(accepted_text(done, repo.root) + "\n")
        return 0
    if args.reject:
        rejection = reject(repo.root, repo.common_dir, pack, args.reject)
        if args.json:
            _json(out, {"rejected": rejection.model_dump(mode="json")})
        else:
            out.write(rejected_text(rejection, rejections_path(repo.common_dir), repo.root)
                      + "\n")
        return 0
    report = learn(repo.root, repo.common_dir, pack)
    for problem in report.problems:
        err.write(f"reviewtui: note: {problem}\n")
    if args.json:
        _json(out, report.model_dump(mode="json"))
    else:
        out.write(report_text(report, repo.root))
    return 0


def _json(out: TextIO, data: object) -> None:
    out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
