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

from pydantic import ValidationError

from reviewtui.eval.rank import CaseResult

RANK_VERSION = 1  # bump when ranking or its result's shape changes


def results_key(mining_key: str, fingerprint: str) -> str:
    text = f"{RANK_VERSION}:{mining_key}:{fingerprint}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class ResultStore:
    def __init__(self, folder: Path | None, key: str) -> None:
        self.path = folder / f"results-{key}.jsonl" if folder is not None else None
        self.results: dict[str, CaseResult] = {}
        if self.path is None or not self.path.is_file():
            return
        for line in self.path.read_text("utf-8", "replace").splitlines():
            try:
                result = CaseResult.model_validate_json(line)
            except ValidationError:
                continue
            self.results[result.case.bug] = result

    def add(self, result: CaseResult) -> None:
        self.results[result.case.bug] = result
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(result.model_dump_json() + "\n")
        except OSError:
            self.path = None
