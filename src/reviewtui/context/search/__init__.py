"""Project-wide search for the bundles' extra requests: callers, usages, implementors, text.

Entry point: ``ProjectSearch`` (``project``), which answers every ``search_*`` / ``callers`` /
``search`` request with numbered snippets of the change's "after" side. Underneath:
``side`` (that side as something to ``git grep`` and read), ``cached_side`` (the greps capped
and the files read and parsed once for all the queries), ``references`` (is a hit a real
reference? tree-sitter decides), ``implementations`` (who implements an interface),
``config_usage`` (where a changed config key is read) and ``snippets`` (hits -> ranked, merged,
numbered snippets).
"""

from __future__ import annotations

from reviewtui.context.search.project import ProjectSearch

__all__ = ["ProjectSearch"]
