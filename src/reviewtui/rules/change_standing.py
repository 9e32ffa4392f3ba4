"""Where each unit stands among its change's units: features of the learned priority model.

Kamei et al.'s change-level view of defect-prone commits, turned to the order *within* one
change: a unit's share of the changed lines, whether it is the largest, its file's share,
whether it is alone in its file, and its term of the change's entropy. ``rules.triage_features``
adds what the unit's own lines do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reviewtui.units import ReviewUnit


def change_features(units: Sequence[ReviewUnit]) -> dict[str, dict[str, float]]:
    """Where each unit stands among its change's units (Kamei et al.'s change-level view,
    turned to order within the change). ``entropy_share`` is the unit's term of the change's
    entropy over its units' changed lines (-p log2 p, scaled to [0, 1]): a change spread thin
    is riskier, and a term is largest for a unit neither negligible nor the whole change."""
    sizes = {u.unit_id: u.added_lines + u.removed_lines for u in units}
    total = sum(sizes.values()) or 1
    largest = max(sizes.values(), default=0)
    per_file: dict[str, list[str]] = {}
    for unit in units:
        per_file.setdefault(unit.file_path, []).append(unit.unit_id)
    out = {}
    for unit in units:
        in_file = per_file[unit.file_path]
        out[unit.unit_id] = {
            "share_of_change": sizes[unit.unit_id] / total,
            "largest_in_change": 1.0 if sizes[unit.unit_id] == largest and largest else 0.0,
            "file_share": sum(sizes[u] for u in in_file) / total,
            "alone_in_file": 1.0 if len(in_file) == 1 else 0.0,
            "entropy_share": _entropy_term(sizes[unit.unit_id] / total, len(units)),
        }
    return out


_ENTROPY_PEAK = math.log2(math.e) / math.e  # -p log2 p at its largest, p = 1/e


def _entropy_term(share: float, units: int) -> float:
    """-p log2 p of one unit's share of the change, scaled to [0, 1]."""
    if share <= 0 or units < 2:
        return 0.0
    return round(-share * math.log2(share) / _ENTROPY_PEAK, 4)
