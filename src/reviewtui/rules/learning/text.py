"""``reviewtui rules learn`` as text: the candidates, their counts and examples, the evidence.

Plain strings (the core never prints): the command line writes them, the workbench's learning
screen shows the same lines.
"""

from __future__ import annotations

from pathlib import Path

from reviewtui.rules.learning import Accepted
from reviewtui.rules.learning.model import Candidate, Example, LearnReport, Rejection

TITLES = {"ready": "ready (reviewtui rules learn --accept ID writes one; --reject ID drops it)",
          "not_yet": "not yet", "rejected": "rejected", "blocked": "blocked"}


def shown(path: str | Path, root: Path) -> str:
    """``path`` relative to the repository root when it is inside it."""
    target = Path(path)
    return str(target.relative_to(root)) if target.is_relative_to(root) else str(target)


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


def example_line(example: Example, width: int = 0) -> str:
    """``tests/test_a.py:L6  rules function | llm diff_only "why"`` (location padded)."""
    rules = example.rule_level.value if example.rule_level else "-"
    reason = f' "{example.reason}"' if example.reason else ""
    return (f"{example.location.ljust(width)}  rules {rules} | {example.source} "
            f"{example.said}{reason}")


def example_lines(candidate: Candidate) -> list[str]:
    width = max((len(e.location) for e in candidate.examples), default=0)
    return [example_line(e, width) for e in candidate.examples]


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
    for status, title in TITLES.items():
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
            lines += [f"      {line}" for line in example_lines(candidate)]
    return "\n".join(lines) + "\n"


def accepted_text(done: Accepted, root: Path) -> str:
    verb = "replaced the rule for this kind in" if done.replaced else "written to"
    return (f"accepted {done.candidate.id}: {candidate_title(done.candidate)}\n"
            f"  {verb} {shown(done.path, root)} ({done.candidate.samples} samples from "
            f"{done.candidate.changes} changes); the next index, plan and workbench use it")


def rejected_text(rejection: Rejection, path: Path, root: Path) -> str:
    return (f"rejected {rejection.id} at {rejection.samples} samples: not proposed again until "
            f"it has {2 * rejection.samples} (remembered in {shown(path, root)})")
