"""Would the review agent have caught the bug? ``reviewtui eval --review``, one case at a time.

A case's bug commit is loaded as ``review --commit REV --rules-plan`` would load it (the rules
plan alone: the planner's answer would be one more model's opinion to measure, and a cost),
and the agent reviews the kept units that fit the review budget. The case is *detected* when a
finding lies on a target file within ``NEAR`` lines of a target line; every other finding is
counted, not judged (it may be a real problem nobody fixed yet). The same case is reviewed a
second time with every unit at ``diff_only`` and no extra requests: the difference is what the
context scheduler adds for this model.

Nothing here touches the person's review: no session is written, no evidence is logged (the
plan is fused without the evidence log), and tool results live in the run's memory only.
Outcomes are appended to ``.git/reviewtui/eval/reviews-<key>.jsonl``, keyed by the ranking's
key, the model, the context mode and the tool rounds, so a stopped run continues and never pays
twice.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from reviewtui.eval.journal import Journal
from reviewtui.eval.rank import CaseResult
from reviewtui.models import ContextLevel

if TYPE_CHECKING:
    from reviewtui.agent.findings import Finding
    from reviewtui.agent.review import PreparedReview, Reviewer
    from reviewtui.llm.metered import Account, MeteredClient
    from reviewtui.llm.tokens import TokenCounter
    from reviewtui.plan import FusedPlan

ContextMode = Literal["planned", "diff_only"]
CONTEXT_MODES: tuple[ContextMode, ...] = ("planned", "diff_only")
NEAR = 3  # lines: a finding this close to a target line detects the bug
REVIEW_VERSION = 1  # bump when a review's prompt, scoring or outcome's shape changes


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class SeenFinding(_Model):
    """A finding of the agent, as the evaluation keeps it."""

    title: str
    severity: str
    file_path: str
    start_line: int
    end_line: int
    near_target: bool  # within NEAR lines of a target line of its file


class ReviewOutcome(_Model):
    bug: str
    mode: ContextMode
    model: str
    status: Literal["ok", "failed"]
    reason: str | None = None
    detected: bool = False
    findings: list[SeenFinding] = []
    other_findings: int = 0  # findings not near any target line
    dropped: int = 0  # findings the agent put off the change (not shown to a person)
    units_reviewed: int = 0
    units_deferred: int = 0  # kept units over the review budget
    holder_reviewed: bool = False  # a unit holding the bug was among those reviewed
    holder_skipped: bool = False  # the plan skipped every unit holding the bug
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False  # counted here: the server gave no usage
    seconds: float = 0.0


class ReviewSummary(_Model):
    """One context mode over the reviewed cases (failed cases are counted apart)."""

    mode: ContextMode
    cases: int
    failed: int
    detected: float  # share of cases
    holder_reviewed: float  # share of cases whose bug unit was sent at all
    findings_per_case: float
    other_per_case: float
    requests: int
    prompt_tokens: int
    completion_tokens: int
    seconds_per_case: float
    tokens_estimated: bool


def near_target(path: str, start: int, end: int, targets: Sequence[tuple[str, int]],
                near: int = NEAR) -> bool:
    """Does the range ``start``-``end`` of ``path`` lie within ``near`` lines of a target?"""
    low, high = min(start, end), max(start, end)
    return any(t_path == path and low - near <= line <= high + near
               for t_path, line in targets)


def seen(finding: Finding, targets: Sequence[tuple[str, int]]) -> SeenFinding:
    return SeenFinding(title=finding.title, severity=finding.severity,
                       file_path=finding.file_path, start_line=finding.start_line,
                       end_line=finding.end_line,
                       near_target=near_target(finding.file_path, finding.start_line,
                                               finding.end_line, targets))


def diff_only_plan(plan: FusedPlan) -> FusedPlan:
    """``plan`` with every unit at ``diff_only`` and no extra requests: the change as a plain
    diff review would send it (the same units kept and skipped)."""
    items = [item.model_copy(update={
        "final_context_level": ContextLevel.DIFF_ONLY, "extra_requests": [],
        "provenance": item.provenance.model_copy(update={"level": "user",
                                                         "extra_requests": []})})
             for item in plan.plan]
    return plan.model_copy(update={"plan": items})


@dataclass(frozen=True)
class PreparedRun:
    """One case in one context mode, its requests built and not yet sent."""

    result: CaseResult
    mode: ContextMode
    reviewer: Reviewer
    prepared: PreparedReview
    prompt_tokens: int  # the first request of each batch, counted

    @property
    def requests(self) -> int:
        return len(self.prepared.messages)


def prepare_runs(root: Path, result: CaseResult, modes: Sequence[ContextMode],
                 client: MeteredClient, counter: TokenCounter, *,
                 max_tool_rounds: int) -> list[PreparedRun]:
    """Load the case's bug commit once and build each mode's requests."""
    from reviewtui.agent.review import Reviewer
    from reviewtui.agent.workspace import Workspace
    from reviewtui.git import ChangeSelector, SelectorMode
    from reviewtui.pipeline import load_change
    from reviewtui.plan import plan_change

    loaded = load_change(root, ChangeSelector(SelectorMode.COMMIT, ref=result.case.bug),
                         use_cache=False).with_reach(keep=False)
    planned = plan_change(loaded.review_index(), None, conflict_log=None)
    runs: list[PreparedRun] = []
    for mode in modes:
        plan = planned if mode == "planned" else diff_only_plan(planned)
        reviewer = Reviewer(Workspace(loaded, plan), client, counter,
                            max_tool_rounds=max_tool_rounds)
        prepared = reviewer.prepare()
        runs.append(PreparedRun(result, mode, reviewer, prepared,
                                reviewer.first_request_tokens(prepared)))
    return runs


def failed(result: CaseResult, mode: ContextMode, model: str, reason: str,
           account: Account | None = None) -> ReviewOutcome:
    """A case whose review gave nothing usable, with what its requests cost all the same."""
    outcome = ReviewOutcome(bug=result.case.bug, mode=mode, model=model, status="failed",
                            reason=reason)
    if account is None:
        return outcome
    return outcome.model_copy(update={
        "requests": account.requests, "prompt_tokens": account.prompt_tokens,
        "completion_tokens": account.completion_tokens, "tokens_estimated": account.estimated})


def review_run(run: PreparedRun, client: MeteredClient) -> ReviewOutcome:
    """Send the run's requests and score the findings; ``ReviewError`` when the model gave
    nothing usable, any other ``LLMError`` as the client raised it."""
    started = time.perf_counter()
    client.take()
    review = run.reviewer.review(prepared=run.prepared)
    account = client.take()
    targets = [(path, line) for path, line in run.result.case.targets]
    findings = [seen(f, targets) for f in review.findings]
    sent = {bundle.unit_id for bundle in run.prepared.allocated.bundles}
    skipped = {i.unit_id for i in run.reviewer.workspace.plan.plan if i.skip_review}
    holders = {h.unit_id for h in run.result.holders}
    return ReviewOutcome(
        bug=run.result.case.bug, mode=run.mode, model=review.model or client.config.model or "",
        status="ok", detected=any(f.near_target for f in findings), findings=findings,
        other_findings=sum(1 for f in findings if not f.near_target),
        dropped=len(review.dropped), units_reviewed=review.units_reviewed,
        units_deferred=len(review.not_reviewed),
        holder_reviewed=bool(holders & sent),
        holder_skipped=bool(holders) and holders <= skipped,
        requests=account.requests, prompt_tokens=account.prompt_tokens,
        completion_tokens=account.completion_tokens, tokens_estimated=account.estimated,
        seconds=round(time.perf_counter() - started, 3))


def summarise(outcomes: Sequence[ReviewOutcome], mode: ContextMode) -> ReviewSummary:
    spent = [o for o in outcomes if o.mode == mode]
    ok = [o for o in spent if o.status == "ok"]
    count = len(ok) or 1
    return ReviewSummary(
        mode=mode, cases=len(ok),
        failed=sum(1 for o in outcomes if o.mode == mode and o.status == "failed"),
        detected=sum(o.detected for o in ok) / count,
        holder_reviewed=sum(o.holder_reviewed for o in ok) / count,
        findings_per_case=sum(len(o.findings) for o in ok) / count,
        other_per_case=sum(o.other_findings for o in ok) / count,
        # what was spent: the failed cases' requests too
        requests=sum(o.requests for o in spent),
        prompt_tokens=sum(o.prompt_tokens for o in spent),
        completion_tokens=sum(o.completion_tokens for o in spent),
        seconds_per_case=sum(o.seconds for o in ok) / count,
        tokens_estimated=any(o.tokens_estimated for o in spent))


def review_key(results_key: str, model: str, mode: ContextMode, max_tool_rounds: int) -> str:
    """What an outcome depends on: the ranking's key (reviewtui, the settings, the rule packs,
    hence the plan and the bundles), the model, the context mode and the agent's tool rounds."""
    text = f"{REVIEW_VERSION}:{results_key}:{model}:{mode}:{max_tool_rounds}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class ReviewStore(Journal[ReviewOutcome]):
    """The reviewed cases of one key (ranking, model, context mode), appended as they come;
    a failed review is not kept, so the next run tries it again."""

    def __init__(self, folder: Path | None, key: str) -> None:
        super().__init__(folder / f"reviews-{key}.jsonl" if folder is not None else None,
                         ReviewOutcome, lambda outcome: outcome.bug)

    @property
    def outcomes(self) -> dict[str, ReviewOutcome]:
        return self.items

    def add(self, record: ReviewOutcome) -> None:
        if record.status == "ok":
            super().add(record)
