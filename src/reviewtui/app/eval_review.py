"""``reviewtui eval --review``: the review agent on each ranked case, planned and diff-only.

The flow, shared by every front end: the model must be configured (``review_model``, checked
before the history is mined, so a missing model costs nothing); ``run_eval_review`` loads each
ranked case not reviewed before and builds its requests, counts them into an estimate (requests,
prompt tokens, output tokens at the model's ``max_output_tokens``, a cost when ``[eval]``
has prices) and hands it to ``confirm`` -- the front end shows it and asks when
``needs_confirmation`` -- and only then sends anything. Each outcome is cached as it arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reviewtui.errors import EvalError, LLMResponseError, ReviewError, ReviewTuiError
from reviewtui.eval.review import (
    CONTEXT_MODES,
    ContextMode,
    PreparedRun,
    ReviewOutcome,
    ReviewStore,
    ReviewSummary,
    failed,
    prepare_runs,
    review_key,
    review_run,
    summarise,
)

if TYPE_CHECKING:
    from reviewtui.app.evaluate import EvalProgress, EvalReport
    from reviewtui.config import EvalSettings
    from reviewtui.llm import LLMConfig


@dataclass(frozen=True, slots=True)
class EvalReviewRequest:
    modes: tuple[ContextMode, ...] = CONTEXT_MODES
    max_tool_rounds: int = 8


@dataclass(frozen=True, slots=True)
class ReviewEstimate:
    """What the reviews still to run will send, before any of it is sent."""

    model: str
    cases: int  # cases to review
    runs: int  # case x context mode
    reused: int  # runs taken from an earlier evaluation
    requests: int  # the first request of each batch; tool calls add more
    prompt_tokens: int
    output_tokens: int  # at most: requests x the model's max_output_tokens
    cost: float | None  # with [eval] prices, in their currency
    threshold: int  # [eval] review_confirm_tokens

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.output_tokens

    @property
    def needs_confirmation(self) -> bool:
        return self.runs > 0 and (self.threshold == 0 or self.tokens > self.threshold)


@dataclass(frozen=True)
class EvalReviewReport:
    model: str
    modes: tuple[ContextMode, ...]
    estimate: ReviewEstimate
    outcomes: dict[str, dict[ContextMode, ReviewOutcome]]  # bug commit -> mode -> outcome
    summaries: dict[ContextMode, ReviewSummary] = field(default_factory=dict)
    cost: float | None = None  # of the tokens the outcomes used, with [eval] prices


def review_model(path: str | Path | None) -> LLMConfig:
    """The configured model; ``LLMNotConfiguredError`` (saying how to configure one) if none."""
    from reviewtui.config import load_settings
    from reviewtui.errors import LLMNotConfiguredError
    from reviewtui.git import open_repository
    from reviewtui.llm import NOT_CONFIGURED_HINT, resolve_llm

    config = resolve_llm(load_settings(open_repository(path).root).llm)
    if not config.configured:
        raise LLMNotConfiguredError(NOT_CONFIGURED_HINT)
    return config


def price(settings: EvalSettings, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The cost of the tokens at ``[eval]`` prices; None when either price is unset."""
    if settings.price_input_per_million is None or settings.price_output_per_million is None:
        return None
    return (prompt_tokens * settings.price_input_per_million
            + completion_tokens * settings.price_output_per_million) / 1_000_000


def run_eval_review(report: EvalReport, request: EvalReviewRequest,
                    confirm: Callable[[ReviewEstimate], bool],
                    on_progress: Callable[[EvalProgress], None] | None = None,
                    ) -> EvalReviewReport:
    """Review ``report``'s ranked cases in each of ``request.modes``; ``EvalError`` when
    ``confirm`` declines the estimate. LLM errors other than a malformed answer stop the run
    (what was reviewed is kept for the next one)."""
    from reviewtui.app.evaluate import EvalProgress
    from reviewtui.config import load_settings
    from reviewtui.llm import token_counter
    from reviewtui.llm.metered import MeteredClient

    config = review_model(report.root)
    model = config.model or ""
    settings = load_settings(report.root).eval
    counter = token_counter(model)
    stores = {mode: ReviewStore(report.cache_dir, review_key(report.key, model, mode,
                                                             request.max_tool_rounds))
              for mode in request.modes}
    outcomes: dict[str, dict[ContextMode, ReviewOutcome]] = {}
    ranked = [r for r in report.results if r.status == "ok"]
    runs: list[PreparedRun] = []
    reused = 0
    client = MeteredClient(config, counter)
    try:
        for number, result in enumerate(ranked, start=1):
            bug = result.case.bug
            kept = {m: stores[m].outcomes[bug] for m in request.modes if bug in stores[m].outcomes}
            outcomes[bug] = dict(kept)
            reused += len(kept)
            todo = [m for m in request.modes if m not in kept]
            if on_progress is not None:
                on_progress(EvalProgress("prepare", number, len(ranked), result.case.case_id))
            if not todo:
                continue
            try:
                runs += prepare_runs(report.root, result, todo, client, counter,
                                     max_tool_rounds=request.max_tool_rounds)
            except ReviewTuiError as exc:
                for mode in todo:
                    outcomes[bug][mode] = failed(result, mode, model, str(exc))
        estimate = _estimate(runs, config, settings, reused)
        if not confirm(estimate):
            raise EvalError("the review was not run", hint="nothing was sent to the model")
        for number, run in enumerate(runs, start=1):
            if on_progress is not None:
                on_progress(EvalProgress("review", number - 1, len(runs),
                                         f"{run.result.case.case_id} {run.mode}"))
            try:
                outcome = review_run(run, client)
            except (ReviewError, LLMResponseError) as exc:
                outcome = failed(run.result, run.mode, model, str(exc), client.take())
            stores[run.mode].add(outcome)
            outcomes[run.result.case.bug][run.mode] = outcome
        if on_progress is not None and runs:
            on_progress(EvalProgress("review", len(runs), len(runs), ""))
    finally:
        client.close()
    every = [o for by_mode in outcomes.values() for o in by_mode.values()]
    summaries = {mode: summarise(every, mode) for mode in request.modes}
    cost = price(settings, sum(o.prompt_tokens for o in every),  # failed ones cost too
                 sum(o.completion_tokens for o in every))
    return EvalReviewReport(model, request.modes, estimate, outcomes, summaries, cost)


def _estimate(runs: Sequence[PreparedRun], config: LLMConfig, settings: EvalSettings,
              reused: int) -> ReviewEstimate:
    requests = sum(run.requests for run in runs)
    prompt = sum(run.prompt_tokens for run in runs)
    output = requests * config.max_output_tokens
    return ReviewEstimate(
        model=config.model or "", cases=len({run.result.case.bug for run in runs}),
        runs=len(runs), reused=reused, requests=requests, prompt_tokens=prompt,
        output_tokens=output, cost=price(settings, prompt, output),
        threshold=settings.review_confirm_tokens)
