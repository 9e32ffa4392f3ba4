"""``reviewtui eval``'s stage: SZZ mining of the repository's bug cases, ranking, metrics, fits.

``cases.mine_cases`` finds bug-introducing commits by blaming the lines of later fixes;
``rank.rank_case`` indexes one as ``index --commit`` would and ranks the unit that held the bug;
``metrics.eval_metrics`` measures the orders; ``fit.fit_weights`` fits the learned priority.
The use case itself (progress, caching, workers) is ``reviewtui.app.evaluate.run_eval``.
"""

from __future__ import annotations

from reviewtui.eval.cases import EvalCase, mine_cases
from reviewtui.eval.metrics import EvalMetrics, eval_metrics
from reviewtui.eval.rank import CaseResult, rank_case

__all__ = ["CaseResult", "EvalCase", "EvalMetrics", "eval_metrics", "mine_cases", "rank_case"]
