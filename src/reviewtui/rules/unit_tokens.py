"""The bag of tokens of a unit's changed code lines: the learned priority's token features.

A JITLine-style model (Pornprasit & Tantithamthavorn, MSR 2021) weighs the tokens of the added
and removed code lines; ``rules.scoring`` takes them once per unit (cached with the file), and
``rules explain`` and ``eval`` read them again.
"""

from __future__ import annotations

import re
from itertools import groupby
from operator import itemgetter

from reviewtui.code.languages import is_code
from reviewtui.rules.triage_features import changed_code_lines
from reviewtui.units import ReviewUnit
from reviewtui.units.line_tags import mask_strings

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|==|!=|<=|>=|&&|\|\||\+\+|--|[-+*/%<>!?]")
MAX_TOKENS = 400


def unit_tokens(unit: ReviewUnit) -> list[str]:
    """The distinct tokens of the unit's added (``+tok``) and removed (``-tok``) code lines,
    lower-cased: the bag of tokens of a JITLine-style model (Pornprasit & Tantithamthavorn,
    MSR 2021), whose weights say which tokens pushed a unit up. The words of string literals
    are left out (``"job %s starts"`` is a message, not code: fitted with them, ``%`` and
    ``s`` learned that reworded log messages hold bugs). None for a file that is not code."""
    if not is_code(unit.language):
        return []
    seen: dict[str, None] = {}
    # the lines of one kind in a row at once: no token spans a line break
    for kind, run in groupby(changed_code_lines(unit), key=itemgetter(0)):
        masked = mask_strings("\n".join([text for _, text in run]))
        if masked.isascii():  # lowercased first: the same tokens, lowercased, in one call
            found = _TOKEN.findall(masked.lower())
        else:
            found = [token.lower() for token in _TOKEN.findall(masked)]
        tokens = list(dict.fromkeys(found))  # each once, in the order first found
        if len(seen) + len(tokens) < MAX_TOKENS:
            seen.update(dict.fromkeys(map(kind.__add__, tokens)))
            continue
        for token in tokens:
            seen[kind + token] = None
            if len(seen) >= MAX_TOKENS:
                return list(seen)
    return list(seen)
