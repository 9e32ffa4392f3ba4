"""The context stage: each planned unit's ContextBundle under a token budget (seeds 000/001).

Entry point: ``BundleStream(ContextScheduler(...), requests)``: iterate it for the bundles, built
lazily in priority order, then read its ``allocation`` (who got the review budget, who was
deferred and why). The pipeline's ``LoadedChange.bundle_stream`` wires it to the change, the
fused plan, the project search and the scanners. ``render_bundle_markdown`` gives the
JSON+Markdown hybrid for the review prompt. Underneath: ``priority`` (the allocation order, in
one key), ``estimate`` (sizes before any work), ``allocate`` (whole units by priority),
``scheduler`` (one unit's bundle, lazily), ``levels`` (what each context level shows),
``requests`` (the extra requests, run through ``search/``), ``budget`` (pieces fitted to tokens,
counted as ``render`` sends them: ``sections``), ``clip`` and ``long_lines`` (cutting a piece to
fit) and ``render`` (JSON, JSON Lines and Markdown, streamed).
"""

from __future__ import annotations

from reviewtui.context.allocate import BundleStream
from reviewtui.context.priority import UnitPriority, unit_priority
from reviewtui.context.render import (
    allocation_summary,
    render_bundle_markdown,
    write_bundles,
)
from reviewtui.context.requests import RequestRunner
from reviewtui.context.scheduler import BundleRequest, ContextScheduler
from reviewtui.context.search import ProjectSearch

__all__ = [
    "BundleRequest",
    "BundleStream",
    "ContextScheduler",
    "ProjectSearch",
    "RequestRunner",
    "UnitPriority",
    "allocation_summary",
    "render_bundle_markdown",
    "unit_priority",
    "write_bundles",
]
