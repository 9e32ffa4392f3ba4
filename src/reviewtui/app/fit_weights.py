"""``reviewtui eval --fit``: fit the learned priority on this repository's own bug history.

Time-ordered, so the figure is honest: the weights are fitted on the older 70 % of the cases and
the report compares them with the weights in use on the newer 30 % only (no training case is
newer than the evaluation window). How far the fit moves from the weights in use is chosen the
same way inside the training window (``eval.fit.fit_own``): a repository's few dozen bugs
often rank its newest ones worse than the weights fitted on other projects' hundreds, and then
the fit is the weights in use. The fit is proposed only when it ranks the newer cases better
than the weights in use (mean reciprocal rank): a fit that does no better is reported and not
proposed, so that accepting never makes the order worse on the cases that tested it. A
proposal is written to ``.git/reviewtui/eval/triage_weights.toml``; ``--accept-weights``
copies it to ``.reviewtui/triage_weights.toml`` (reviewable, committable), which then wins
over the shipped weights; deleting that file reverts.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from reviewtui.app.evaluate import EvalReport
from reviewtui.errors import EvalError
from reviewtui.eval.fit import evaluate, fit_own, time_split
from reviewtui.eval.metrics import EvalMetrics
from reviewtui.git import open_repository
from reviewtui.rules.triage_model import TriageWeights, load_weights, write_weights
from reviewtui.rules.weights_files import repository_weights_path

REPOSITORY_TOKENS = 200  # a repository's own fit learns its own tokens (JITLine's way)


@dataclass(frozen=True)
class FitReport:
    weights: TriageWeights
    proposal: Path
    trained_on: int
    evaluated_on: int
    window_start: int  # the bug-commit time of the oldest held-out case
    before: EvalMetrics  # the weights in use, on the newer cases
    after: EvalMetrics  # the fitted weights, on the same cases
    in_use: Path
    l2: float | None  # how far the fit moved (its penalty); None: it kept the weights in use
    validated_on: int  # the newest training cases that choice was made on
    proposed: bool  # it ranked the newer cases better than the weights in use: written

    @property
    def mrr(self) -> tuple[float, float]:
        """(the weights in use, the fitted ones): mean reciprocal rank on the newer cases."""
        return (_mrr(self.before), _mrr(self.after))


def _mrr(metrics: EvalMetrics) -> float:
    return metrics.all.orders["reviewtui"].mrr


def proposal_path(common_dir: Path) -> Path:
    return common_dir / "reviewtui" / "eval" / "triage_weights.toml"


def fit_repository(report: EvalReport) -> FitReport:
    repo = open_repository(report.root)
    train, test = time_split(report.results)
    if not test:
        raise EvalError("no case to evaluate a fit on", hint="raise --max-cases")
    window = time.strftime("%Y-%m-%d", time.gmtime(test[0].case.time))
    current, in_use = load_weights(repo.root)
    own = fit_own(train, current, tokens=REPOSITORY_TOKENS, before=test[0].case.time,
                  fitted_on=f"{repo.root.name}: {len(train)} bug-introducing commits before "
                            f"{window}")
    weights = own.weights
    before, after = evaluate(test, current), evaluate(test, weights)
    proposed = _mrr(after) > _mrr(before) + 1e-9
    proposal = proposal_path(repo.common_dir)
    if proposed:
        write_weights(proposal, weights, [
            "The learned priority fitted on this repository's bug history "
            "(reviewtui eval --fit).",
            "Accept it with 'reviewtui eval --accept-weights': it becomes",
            ".reviewtui/triage_weights.toml, which wins over the shipped weights until deleted."])
    else:  # an earlier proposal is not this fit's: accepting it now would be a surprise
        with contextlib.suppress(OSError):
            proposal.unlink(missing_ok=True)
    return FitReport(weights, proposal, len(train), len(test), test[0].case.time, before,
                     after, in_use, own.l2, own.validated_on, proposed)


def accept_weights(path: str | Path | None) -> Path:
    """Copy the proposed weights to ``.reviewtui/triage_weights.toml``; the path written."""
    repo = open_repository(path)
    proposal = proposal_path(repo.common_dir)
    if not proposal.is_file():
        raise EvalError("no fitted weights to accept",
                        hint="run 'reviewtui eval --fit' first; a fit that ranks the newer "
                             "cases no better than the weights in use proposes nothing")
    target = repository_weights_path(repo.root)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(proposal, target)
    except OSError as exc:
        raise EvalError(f"cannot write {target}: {exc.strerror or exc}") from None
    load_weights(repo.root)  # a ConfigError now, not at the next index, if it does not load
    return target
