"""``reviewtui publish [--dry-run] --pr N|URL``: the person's review, to its pull request.

``--dry-run`` prints each request exactly as it would be sent (method, path, JSON body: among
them the ``DELETE`` of each comment it takes back, named), the comments that go into the
summary and why, and the review threads already on the pull request
(read-only); the real run says what it created, edited and moved. The token is named by its
source only.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from reviewtui.app.publish import PublishOutcome


def render_outcome(outcome: PublishOutcome, *, dry_run: bool) -> list[str]:
    plan = outcome.plan
    pull = outcome.pull
    out = [f"{outcome.target.label}: {pull.title} ({pull.state}; head {pull.head_sha[:10]}, "
           f"reviewed {outcome.reviewed_head[:10]}; {outcome.token_source})"]
    if outcome.head_moved:
        out.append("warning: the head moved since the review: line comments go into the "
                   "summary instead")
    if outcome.threads:
        out.append(f"review threads already on the pull request ({len(outcome.threads)}, "
                   "read-only):")
        out += [f"  {line}" for line in outcome.threads]
    if plan.unchanged:
        out.append(f"already published as they are: {len(plan.unchanged)} comments")
    if dry_run:
        ops = plan.operations()
        out.append(f"would send {len(ops)} requests to {outcome.target.repo.api_url}:")
        for op in ops:
            out.append(f"{op.method} /{op.path}  # {op.what}")
            if op.body is not None:
                out.append(json.dumps(op.body, indent=2, ensure_ascii=False))
        for folded in plan.draft.folded:
            c = folded.comment
            out.append(f"in the summary: {c.path} {c.lines}: {c.title} ({folded.reason})")
        return out
    report = outcome.report
    if report is None:
        return out
    out += report.notes
    retracted = f", {len(report.retracted)} retracted" if report.retracted else ""
    if report.review_action:
        out.append(f"review {report.review_id} {report.review_action}: {report.posted} line "
                   f"comments, {report.edited} edited, {report.unchanged} unchanged, "
                   f"{len(report.folded)} in the summary{retracted}")
    else:
        out.append(f"{report.edited} comments edited, {report.unchanged} unchanged{retracted}")
    out += [f"in the summary: {line}" for line in report.folded]
    out += [f"retracted: {line}" for line in report.retracted]
    out.append(pull.url)
    return out


def run_publish(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from reviewtui.app.publish import publish_review

    outcome = publish_review(args.path, args.pr, dry_run=args.dry_run)
    if outcome.head_moved:
        print(f"publish: {outcome.target.label} moved since the review "
              f"({outcome.reviewed_head[:10]} -> {outcome.pull.head_sha[:10]}): line comments "
              "go into the summary", file=stderr)
    stdout.write("\n".join(render_outcome(outcome, dry_run=args.dry_run)) + "\n")
    return 0
