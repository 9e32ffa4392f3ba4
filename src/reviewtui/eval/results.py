"""Each case's result, appended as it is computed, so a second run continues where one stopped.

``.git/reviewtui/eval/results-<key>.jsonl``: the key covers the mining settings and everything a
rank depends on (reviewtui's code, the ``[units]`` and ``[git]`` settings, the rule packs), so
editing a rule or upgrading reviewtui ranks the cases again, while an interrupted run, or one
asking for more cases, ranks only the cases it has not ranked. A line torn by a killed run is
skipped.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from reviewtui.eval.journal import Journal
from reviewtui.eval.rank import CaseResult

RANK_VERSION = 1  # bump when ranking or its result's shape changes


def results_key(mining_key: str, fingerprint: str) -> str:
    text = f"{RANK_VERSION}:{mining_key}:{fingerprint}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def result_journal(folder: Path | None, key: str) -> Journal[CaseResult]:
    return Journal(folder / f"results-{key}.jsonl" if folder is not None else None,
                   CaseResult, lambda result: result.case.bug)
