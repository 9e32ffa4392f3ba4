"""``reviewtui rules learn``: candidate rules from the evidence log; ``--accept`` / ``--reject``.

The listing reads only the repository's evidence log and rule packs (no change is collected),
so it is instant. Notes about the log (unreadable lines, a stale pack) go to stderr, one line
each; nothing is ever rewritten in the log.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from reviewtui.git import open_repository
from reviewtui.rules import load_rule_pack
from reviewtui.rules.learning import Candidate, LearnReport, accept, learn, reject
from reviewtui.rules.learning.model import Example
from reviewtui.rules.learning.rejections import rejections_path

_TITLES = {"ready": "ready (reviewtui rules learn --accept ID writes one; --reject ID drops it)",
           "not_yet": "not yet", "rejected": "rejected", "blocked": "blocked"}


def run_learn(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    repo = open_repository(args.path)
    pack = load_rule_pack(repo.root).pack
    if args.accept:
        done = accept(repo.root, repo.common_dir, pack, args.accept)
        if args.json:
            _json(out, {"accepted": done.candidate.model_dump(mode="json"),
                        "file": str(done.path), "replaced": done.replaced})
        else:
            verb = "replaced the rule for this kind in" if done.replaced else "written to"
            out.write(f"accepted {done.candidate.id}: {candidate_title(done.candidate)}\n"
                      f"  {verb} {shown(done.path, repo.root)} ({done.candidate.samples} "
                      f"samples from "
                      f"{done.candidate.changes} changes); the next index, plan and workbench "
                      f"use it\n")
        return 0
    if args.reject:
        rejection = reject(repo.root, repo.common_dir, pack, args.reject)
        if args.json:
            _json(out, {"rejected": rejection.model_dump(mode="json")})
        else:
            out.write(f"rejected {rejection.id} at {rejection.samples} samples: not proposed "
                      f"again until it has {2 * rejection.samples} (remembered in "
                      f"{shown(rejections_path(repo.common_dir), repo.root)})\n")
        return 0
    report = learn(repo.root, repo.common_dir, pack)
    for problem in report.problems:
        err.write(f"reviewtui: note: {problem}\n")
    if args.json:
        _json(out, report.model_dump(mode="json"))
    else:
        out.write(report_text(report, repo.root))
    return 0


def shown(path: str | Path, root: Path) -> str:
    """``path`` relative to the repository root when it is inside it."""
    target = Path(path)
    return str(target.relative_to(root)) if target.is_relative_to(root) else str(target)


def _json(out: TextIO, data: object) -> None:
    out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def candidate_title(candidate: Candidate) -> str:
    """``python: in_single_function+test_file -> diff_only (the rules say function)``."""
    rules = max(candidate.rule_levels, key=lambda lv: candidate.rule_levels[lv])
    return f"{candidate.key.label()} -> {candidate.level.value} (the rules say {rules})"


def candidate_counts(candidate: Candidate) -> str:
    stale = f", {candidate.stale} stale not counted" if candidate.stale else ""
    return (f"{candidate.samples} samples ({candidate.llm} llm, {candidate.user} user), "
            f"agreement {candidate.agreement:.2f} ({candidate.agreeing} of {candidate.samples}),"
            f" {candidate.files} files, {candidate.changes} changes, confidence "
            f"{candidate.confidence:.2f}{stale}")


def example_line(example: Example) -> str:
    rules = example.rule_level.value if example.rule_level else "-"
    reason = f' "{example.reason}"' if example.reason else ""
    return f"{example.location}  rules {rules} | {example.source} {example.said}{reason}"


def evidence_line(report: LearnReport, root: Path) -> str:
    ev = report.evidence
    parts = [f"{ev.used} samples ({ev.llm} llm, {ev.user} user)"]
    if ev.stale:
        older = f"; {ev.unstamped} lines from an older version" if ev.unstamped else ""
        parts.append(f"{ev.stale} stale (scored under another rule pack{older}), not used")
    if ev.consumed:
        parts.append(f"{ev.consumed} already in learned rules")
    if ev.unreadable:
        parts.append(f"{len(ev.unreadable)} unreadable lines skipped")
    return f"evidence: {shown(ev.log, root)}: {ev.records} records; " + "; ".join(parts)


def report_text(report: LearnReport, root: Path) -> str:
    lines = [evidence_line(report, root),
             f"rule pack {report.evidence.pack}; learning.min_samples {report.min_samples}, "
             f"learning.min_agreement {report.min_agreement:.2f}"]
    if not report.candidates:
        lines += ["", "no candidates: no kind of unit where the planner or the person said "
                      "another level than the rules (plan with a model, or set levels in the "
                      "workbench, to gather evidence)"]
    for status, title in _TITLES.items():
        group = [c for c in report.candidates if c.status == status]
        if not group:
            continue
        lines += ["", f"{title}:"]
        for candidate in group:
            lines.append(f"  {candidate.id}  {candidate_title(candidate)}")
            lines.append(f"      {candidate_counts(candidate)}")
            lines += [f"      why not: {reason}" for reason in candidate.reasons]
            if candidate.requests:
                asked = ", ".join(f"{r} x{n}" for r, n in candidate.requests.items())
                lines.append(f"      the person also asked for: {asked}")
            lines += [f"      {example_line(e)}" for e in candidate.examples]
    return "\n".join(lines) + "\n"
