"""The answer of an analysis asked to use its cache alone, when the cache does not know a file.

Its own module so that a caller waiting for that answer (the workbench's loading worker, which
then follows the forked analysis instead) need not import the analysis itself -- the rule
engine, the parsers and their grammars -- to catch it.
"""

from __future__ import annotations


class NotCached(Exception):
    """``cached_only`` and the cache does not know every file: nothing was computed."""
