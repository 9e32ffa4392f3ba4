"""Fit the learned priority's weights on ranked cases: a pairwise logistic ranker.

For every case, each unit that held the bug is paired with each unit that did not; the model
should score the holder higher. The hand-set priority stays in as a fixed offset (``base /
scale`` logits), so the weights learn what to *add* to today's order -- including negative
weights on the rule parts it over-rewards. Each case weighs the same however many pairs it has
(a 400-unit change does not drown 40 small ones), and an L2 penalty keeps weights small where
the data says little. Newton's method on a few dozen features converges in a handful of steps.

Fitting is honest only on data the weights were not fitted on: ``time_split`` trains on a
repository's older cases and reports on its newer ones, and refuses a training case newer than
the evaluation window; the benchmark fits on the other projects (leave one project out).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reviewtui.errors import EvalError
from reviewtui.eval.metrics import EvalMetrics, eval_metrics
from reviewtui.eval.rank import CaseResult, first_holder
from reviewtui.rules.triage_model import ALL_FEATURES, TriageWeights

L2 = 0.5  # chosen by leave-one-project-out on the development projects only
L2_TOKENS = 5.0  # the token model's weights: many, each seen in few cases
OWN_L2 = 0.5  # a repository's own fit, towards the weights in use (benchmarks/fit_triage.py)
# How far a repository's own fit may move from the weights in use: ``fit_own`` tries each on
# the newest cases of its training window and keeps the weights in use when none does better.
OWN_L2_CHOICES: tuple[float, ...] = (0.5, 2.0, 8.0)
MIN_CASES = 8
# Features whose direction is the product's promise, not the data's to flip: a definition fixed
# again and again is read before an identical one (fix history), and code other files use
# before code nobody calls (reach). SZZ's few hundred cases put their fitted weights either
# side of zero from one run to the next; the fit keeps them at zero or above (projected Newton).
MONOTONE: frozenset[str] = frozenset({"fixed_before", "definition_fixed", "recent_fix",
                                      "rule_reach"})
# SZZ blames lines that exist after the bug commit, so a unit that only removed code can never
# hold a blamed line: fitted, the features of removed code would learn that artifact (a removed
# check would rank last; on 120 cases per project `removed_code_log` came out -0.6, and a removed
# bounds check fell below a reworded log message). They keep these hand-set weights instead, and
# the fit leaves them be.
PRIOR: dict[str, float] = {"check_removed": 0.6, "error_removed": 0.3, "pure_removal": 0.0,
                           "removed_code_log": 0.0}
# SZZ's bugs are ordinary ones, so a fit tempers the rules' risk class and security signals
# (their weights come out negative). What keeps real security fixes first (bench_risk.py) is
# the bound on the learned part (TriageWeights.bound: the rules' tempering within +-12 points,
# the total lift at most +12, under a risk class's 15): the fit is linear, the bound applies
# when scoring. Fixing the rule parts' weights by hand, fitting a smooth saturation, or fitting
# the others with the rules' weights first shrunk to the bound was tried: no better on
# held-out data.


def usable(cases: Sequence[CaseResult]) -> list[CaseResult]:
    """Cases a fit can learn from: ranked, with their units' features, a holder and others."""
    return [c for c in cases if c.status == "ok" and c.samples
            and 0 < sum(s.holds for s in c.samples) < len(c.samples)
            and len(c.samples[0].features) == len(ALL_FEATURES)]


def token_vocabulary(cases: Sequence[CaseResult], size: int, min_share: float = 0.01
                     ) -> list[str]:
    """The ``size`` tokens of added lines (``+tok``) found in the most units (at least
    ``min_share`` of them). Tokens of removed lines are left out for the reason of ``PRIOR``:
    SZZ never blames a removal, so their weights learn "what was removed is safe" (fitted,
    ``-if`` and ``-i`` came out among the most negative tokens, and a removed bounds check
    sank below a reworded log message)."""
    counts: dict[str, int] = {}
    units = 0
    for case in cases:
        for sample in case.samples:
            units += 1
            for token in sample.tokens:
                if token.startswith("+"):
                    counts[token] = counts.get(token, 0) + 1
    floor = max(3, int(min_share * units))
    common = sorted((t for t, n in counts.items() if n >= floor), key=lambda t: (-counts[t], t))
    return common[:size]


def fit_weights(cases: Sequence[CaseResult], *, scale: float = 10.0, l2: float = L2,
                steps: int = 25, fitted_on: str = "", before: int | None = None,
                tokens: int = 0, l2_tokens: float = L2_TOKENS,
                prior: TriageWeights | None = None, cap: float = 12.0) -> TriageWeights:
    """Weights that order holders before the other units of their change; ``before``: the
    start of an evaluation window (a bug-commit time) no training case may reach; ``tokens``:
    the size of the token model's vocabulary (0: no token model); ``prior``: weights to stay
    near where the cases say little (a repository's few dozen cases adjust the shipped weights
    rather than replace them)."""
    import numpy as np

    chosen = usable(cases)
    if before is not None and any(c.case.time >= before for c in chosen):
        raise EvalError("a training case is as new as the evaluation window",
                        hint="fit only on cases older than the ones it is evaluated on")
    if len(chosen) < MIN_CASES:
        raise EvalError(f"{len(chosen)} usable cases: at least {MIN_CASES} are needed to fit",
                        hint="raise --max-cases or widen --since")
    vocabulary = token_vocabulary(chosen, tokens) if tokens else []
    column = {token: i for i, token in enumerate(vocabulary)}
    rows: list[list[float]] = []
    bases: list[float] = []
    first, second, pair_weight_list = [], [], []
    for case in chosen:
        start = len(rows)
        for sample in case.samples:
            present = [0.0] * len(vocabulary)
            for token in sample.tokens:
                if token in column:
                    present[column[token]] = 1.0
            rows.append(list(sample.features) + present)
            bases.append(sample.base)
        holders = [start + i for i, s in enumerate(case.samples) if s.holds]
        others = [start + i for i, s in enumerate(case.samples) if not s.holds]
        share = 1.0 / (len(holders) * len(others))
        for h in holders:
            for o in others:
                first.append(h)
                second.append(o)
                pair_weight_list.append(share)
    matrix = np.asarray(rows)
    base = np.asarray(bases) / scale
    full = matrix[first] - matrix[second]
    names = [*ALL_FEATURES, *vocabulary]
    fitted = [i for i, name in enumerate(names) if name not in PRIOR]
    fixed = np.asarray([PRIOR.get(name, 0.0) for name in names])
    x = full[:, fitted]
    offset = base[first] - base[second] + full @ fixed
    pair_weight = np.asarray(pair_weight_list) / len(chosen)
    penalty = np.asarray([l2 if i < len(ALL_FEATURES) else l2_tokens for i in fitted])
    penalty = penalty / len(chosen)
    centre = np.zeros(len(fitted))
    if prior is not None:
        known = {**prior.weights, **prior.tokens}
        centre = np.asarray([known.get(names[i], 0.0) for i in fitted])
    monotone = np.asarray([names[i] in MONOTONE for i in fitted])
    w = np.where(monotone, np.maximum(centre, 0.0), centre)
    for _ in range(steps):
        margin = offset + x @ w
        p = 1.0 / (1.0 + np.exp(np.clip(margin, -30, 30)))  # P(wrong order)
        gradient = -(x.T @ (pair_weight * p)) + penalty * (w - centre)
        curvature = pair_weight * p * (1 - p)
        hessian = (x.T * curvature) @ x + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        previous = w.copy()
        w = np.where(monotone, np.maximum(w - step, 0.0), w - step)
        if float(np.max(np.abs(w - previous))) < 1e-6:
            break
    values = fixed.copy()
    values[fitted] = w
    weights = {name: round(float(v), 4) for name, v in zip(ALL_FEATURES, values, strict=False)}
    learned_tokens = {token: round(float(v), 4)
                      for token, v in zip(vocabulary, values[len(ALL_FEATURES):], strict=True)
                      if abs(v) >= 0.005}
    return TriageWeights(scale=scale, cap=cap, weights=weights, tokens=learned_tokens,
                         fitted_on=fitted_on, cases=len(chosen))


@dataclass(frozen=True)
class OwnFit:
    weights: TriageWeights
    l2: float | None  # the penalty chosen; None: the weights in use were kept
    validated_on: int  # the newest training cases the choice was made on (0: no choice)


def fit_own(cases: Sequence[CaseResult], prior: TriageWeights, *, tokens: int,
            fitted_on: str = "", before: int | None = None) -> OwnFit:
    """A repository's own fit, only as far from ``prior`` (the weights in use) as its own
    newer cases support: each penalty of ``OWN_L2_CHOICES`` is fitted on the older 70 % of
    ``cases`` and scored (mean reciprocal rank) on their newest 30 %, beside ``prior``; the
    best is fitted again on all of ``cases``; ``prior`` itself when it ranked them best (a few
    dozen bugs often say less than other projects' hundreds did)."""
    inner_train, inner_test = time_split(cases)
    if len(usable(inner_train)) < MIN_CASES or not inner_test:
        return OwnFit(fit_weights(cases, l2=OWN_L2, tokens=tokens, prior=prior,
                                  fitted_on=fitted_on, before=before), OWN_L2, 0)
    best: float | None = None
    best_mrr = evaluate(inner_test, prior).all.orders["reviewtui"].mrr
    for l2 in OWN_L2_CHOICES:
        trial = fit_weights(inner_train, l2=l2, tokens=tokens, prior=prior,
                            before=inner_test[0].case.time)
        mrr = evaluate(inner_test, trial).all.orders["reviewtui"].mrr
        if mrr > best_mrr + 1e-9:
            best, best_mrr = l2, mrr
    if best is None:
        kept = prior.model_copy(update={"fitted_on": (
            f"{fitted_on}: kept the weights in use (they ranked the newest "
            f"{len(inner_test)} of these cases best)" if fitted_on else prior.fitted_on)})
        return OwnFit(kept, None, len(inner_test))
    return OwnFit(fit_weights(cases, l2=best, tokens=tokens, prior=prior, fitted_on=fitted_on,
                              before=before), best, len(inner_test))


def rescored(case: CaseResult, weights: TriageWeights) -> CaseResult:
    """``case`` with reviewtui's rank as ``weights`` would have ordered its units."""
    if case.status != "ok" or not case.samples:
        return case
    scores = [round(s.base + weights.points(dict(zip(ALL_FEATURES, s.features, strict=True)),
                                            s.tokens), 1) for s in case.samples]
    order = sorted(range(len(scores)), key=lambda i: -scores[i])  # stable: file order
    holding = {i for i, s in enumerate(case.samples) if s.holds}
    ranking = first_holder(order, [s.lines for s in case.samples], holding)
    return case.model_copy(update={"rankings": {**case.rankings, "reviewtui": ranking}})


def evaluate(cases: Sequence[CaseResult], weights: TriageWeights) -> EvalMetrics:
    return eval_metrics([rescored(c, weights) for c in cases])


def time_split(cases: Sequence[CaseResult], share: float = 0.3
               ) -> tuple[list[CaseResult], list[CaseResult]]:
    """(older cases to train on, newer cases to report on): the newest ``share`` of the
    usable cases by bug-commit time are held out; no training case is newer than the oldest
    held-out one."""
    ordered = sorted(usable(cases), key=lambda c: c.case.time)
    cut = len(ordered) - max(1, round(share * len(ordered)))
    while 0 < cut < len(ordered) and ordered[cut - 1].case.time == ordered[cut].case.time:
        cut -= 1  # cases of the same second go to the evaluation side, never both
    return ordered[:cut], ordered[cut:]
