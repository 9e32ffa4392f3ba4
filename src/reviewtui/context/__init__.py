"""The context stage: each planned unit's ContextBundle under a token budget (seeds 000/001).

Entry point: ``ContextScheduler(...).build(requests)`` -> ``ContextBundle``s; the pipeline's
``LoadedChange.bundles`` wires it to the change, the fused plan, the project search and the
scanners. ``render_bundle_markdown`` gives the JSON+Markdown hybrid for the review prompt.
Underneath: ``levels`` (what each context level shows), ``requests`` (the extra requests, run
through ``search/``, the project-wide search package), ``budget`` (pieces fitted to tokens) and
``render``.
"""

from __future__ import annotations

from reviewtui.context.render import bundles_json, render_bundle_markdown, render_bundles_markdown
from reviewtui.context.requests import RequestRunner
from reviewtui.context.scheduler import BundleRequest, ContextScheduler
from reviewtui.context.search import ProjectSearch

__all__ = [
    "BundleRequest",
    "ContextScheduler",
    "ProjectSearch",
    "RequestRunner",
    "bundles_json",
    "render_bundle_markdown",
    "render_bundles_markdown",
]
