"""The chat's static review context: the change's stated purpose, the review index and the kept
units' diffs, within a share of the model's context window.

It is sent whole with every request (the packer never prunes it), so it is fitted here, once per
session object. What does not fit is never cut in the middle of a diff — a diff half shown, its
code fence left open, reads as the whole change — and never left out silently: whole diffs are
kept in the units' order (a smaller one after a large one that did not fit may still get in), and
a note names the units whose diffs were left out, so the model knows the change is larger than
what it sees and reads them with its tools (``get_unit``, ``get_bundle``). Only when the purpose
and the index alone are over the share is the text cut, at a line, with a marker saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewtui.conversation.summary import truncate_tokens

__all__ = ["CUT_MARKER", "StaticContext", "UnitDiff", "fit_static"]

CUT_MARKER = "[… the review context was cut here to fit the model's context window]"
NAMED = 40  # left-out units named in the note; the rest are counted

UnitDiff = tuple[str, str, str]  # (unit id, location, the diff text)


@dataclass(frozen=True)
class StaticContext:
    text: str
    diffs_sent: int
    diffs_kept: int  # the kept units: every one of them has a diff

    @property
    def complete(self) -> bool:
        return self.diffs_sent == self.diffs_kept


def _section(unit_id: str, location: str, diff: str) -> str:
    return f"### {location} ({unit_id})\n```diff\n{diff}\n```"


def _note(left: Sequence[UnitDiff], total: int) -> str:
    names = ", ".join(f"{unit_id} ({location})" for unit_id, location, _ in left[:NAMED])
    more = f" and {len(left) - NAMED} more (the review index lists them)" if (
        len(left) > NAMED) else ""
    return (f"[The diffs of {len(left)} of the {total} kept units are left out to fit the "
            f"model's context window; read them with get_unit or get_bundle: {names}{more}.]")


def fit_static(head: str, diffs: Sequence[UnitDiff], count: Callable[[str], int],
               limit: int) -> StaticContext:
    """``head`` (purpose and index, ending where the diffs start) and as many whole ``diffs``
    as fit ``limit`` tokens with the note naming the others."""
    sections = [_section(*diff) for diff in diffs]
    costs = [count(section + "\n\n") for section in sections]
    used = count(head)
    chosen: list[int] = []
    for position, cost in enumerate(costs):
        if used + cost <= limit:
            chosen.append(position)
            used += cost

    def assemble(kept: list[int]) -> str:
        taken = set(kept)
        left = [diff for position, diff in enumerate(diffs) if position not in taken]
        parts = [sections[p] for p in kept] + ([_note(left, len(diffs))] if left else [])
        return head + "\n\n".join(parts)

    text = assemble(chosen)
    while chosen and count(text) > limit:  # room for the note: the last diffs in give way
        chosen.pop()
        text = assemble(chosen)
    if count(text) > limit:  # the purpose and the index alone: no diff is left in it
        text = truncate_tokens(text, limit, count, CUT_MARKER)
    return StaticContext(text, len(chosen), len(diffs))
