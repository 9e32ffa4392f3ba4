"""Fit a unit's context pieces into its token budget, and share a review's budget among units.

A bundle is worth sending only if it fits the model's window, and a reviewer must know what was
left out: so pieces go in by importance (diff first), long ones are clipped at line boundaries
with a visible ``… clipped: N more lines`` marker instead of being cut mid-line, and every
decision lands in a ``BudgetAccount``. Token counting is injected (tiktoken or an estimate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewtui.models import BudgetAccount, BudgetPiece

Counter = Callable[[str], int]

DIFF_FLOOR = 200  # tokens every unit keeps for its diff, however tight the review budget


@dataclass(frozen=True, slots=True)
class Piece:
    """One candidate part of a bundle.

    ``rank``: 0 = the diff (never dropped), 1 = the level's context, 2 = previous_version,
    3 = callers and search results (in their order), 4 = scanner issues; lower ranks go first,
    equal ranks in the given order. Names must be unique (``callers[0]``, ``callers[1]``...).
    """

    name: str
    text: str | None
    rank: int
    clip: bool = True

    @property
    def required(self) -> bool:
        return self.rank == 0


def clip_marker(count: int) -> str:
    return f"… clipped: {count} more line{'s' if count != 1 else ''}"


def _is_block_start(lines: list[str], i: int) -> bool:
    """Hunk headers (``@@``) and excerpt headers (``# path:L..``) open a block."""
    line = lines[i]
    if line.startswith("@@ "):
        return i == 0 or not lines[i - 1].startswith("@@ ")
    return line.startswith("# ")


def _blocks(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = []
    for i, line in enumerate(lines):
        if not blocks or _is_block_start(lines, i):
            blocks.append([])
        blocks[-1].append(line)
    return blocks


def _with_markers(parts: list[tuple[list[str], int]]) -> str:
    """Join kept lines; each part's count of left-out lines becomes one (merged) marker."""
    out: list[str] = []
    pending = 0
    for kept, left_out in parts:
        if kept:
            if pending:
                out.append(clip_marker(pending))
                pending = 0
            out.extend(kept)
        pending += left_out
    if pending:
        out.append(clip_marker(pending))
    return "\n".join(out)


def _largest(low: int, high: int, fits: Callable[[int], bool]) -> int | None:
    """The largest k in ``low..high`` with ``fits(k)``, assuming fits is monotone."""
    best: int | None = None
    while low <= high:
        mid = (low + high) // 2
        if fits(mid):
            best, low = mid, mid + 1
        else:
            high = mid - 1
    return best


def _clip_lines(lines: list[str], room: int, count: Counter) -> str | None:
    def text(k: int) -> str:
        return _with_markers([(lines[:k], len(lines) - k)])

    k = _largest(1, len(lines) - 1, lambda k: count(text(k)) <= room)
    return None if k is None else text(k)


def _clip_blocks(blocks: list[list[str]], room: int, count: Counter) -> str | None:
    """Whole blocks (hunks, definitions) that fit, in order; then the first left-out one clipped."""
    costs = [count("\n".join(block)) for block in blocks]
    chosen: list[bool] = []
    spent = 0
    for cost in costs:
        fits = spent + cost + 1 <= room
        chosen.append(fits)
        spent += cost + 1 if fits else 0

    def text(partial: int | None = None, keep: int = 0) -> str:
        parts: list[tuple[list[str], int]] = []
        for i, block in enumerate(blocks):
            if chosen[i]:
                parts.append((block, 0))
            elif i == partial:
                parts.append((block[:keep], len(block) - keep))
            else:
                parts.append(([], len(block)))
        return _with_markers(parts)

    while any(chosen) and count(text()) > room:  # counts need not add up exactly
        chosen[max(i for i, c in enumerate(chosen) if c)] = False
    if not any(chosen) or all(chosen):
        return None
    first = chosen.index(False)
    keep = _largest(1, len(blocks[first]) - 1, lambda k: count(text(first, k)) <= room)
    return text(first, keep) if keep is not None else text()


def _clip_chars(text: str, room: int, count: Counter) -> str:
    """Last resort for the diff: cut inside the first line, marked if the marker still fits."""
    total = text.count("\n") + 1

    def marked(c: int) -> str:
        head = text[:c]
        return head + "\n" + clip_marker(total - head.count("\n"))

    c = _largest(1, len(text), lambda c: count(marked(c)) <= room)
    if c is not None:
        return marked(c)
    c = _largest(0, len(text), lambda c: count(text[:c]) <= room)
    head = text[: c or 0]
    return head.rstrip() if count(head.rstrip()) <= room else head


def clip_text(text: str, room: int, count: Counter, *, required: bool = False) -> str | None:
    """The longest head of ``text`` within ``room`` tokens, cut at line boundaries, marked.

    Whole blocks (hunks, definitions) are kept before any block is cut. None if not even one
    line fits, unless ``required``: then the text is cut inside its first line.
    """
    lines = text.split("\n")
    blocks = _blocks(lines)
    clipped = _clip_blocks(blocks, room, count) if len(blocks) > 1 else None
    if clipped is None or count(clipped) > room:
        clipped = _clip_lines(lines, room, count)
    if clipped is None and required:
        clipped = _clip_chars(text, room, count)
    return clipped


def _kept_lines(text: str) -> int:
    return sum(1 for line in text.split("\n") if not line.startswith("… clipped: "))


def fit_pieces(pieces: Sequence[Piece], limit: int, count: Counter,
               counter_name: str) -> tuple[dict[str, str | None], BudgetAccount]:
    """Take pieces by rank within ``limit`` tokens: whole, clipped at lines, or dropped.

    Returns the text per piece name (None when dropped or empty) and the account, which lists
    every piece in the given order; ``used`` never exceeds ``limit``. The diff (rank 0) is never
    dropped: when even a clipped diff does not fit, it is clipped down to the limit.
    """
    limit = max(0, limit)
    texts: dict[str, str | None] = {piece.name: None for piece in pieces}
    records: dict[int, BudgetPiece] = {}
    used = 0
    for i in sorted(range(len(pieces)), key=lambda i: (pieces[i].rank, i)):
        piece = pieces[i]
        if not piece.text:
            records[i] = BudgetPiece(name=piece.name, status="empty", tokens=0,
                                     original_tokens=0)
            continue
        original = count(piece.text)
        room = limit - used
        if original <= room:
            texts[piece.name] = piece.text
            used += original
            records[i] = BudgetPiece(name=piece.name, status="included", tokens=original,
                                     original_tokens=original)
            continue
        clipped = (clip_text(piece.text, room, count, required=piece.required)
                   if piece.clip or piece.required else None)
        tokens = count(clipped) if clipped is not None else 0
        if clipped is None or tokens > room:
            records[i] = BudgetPiece(name=piece.name, status="dropped", tokens=0,
                                     original_tokens=original,
                                     note=f"needs {original} tokens, {room} left")
            continue
        texts[piece.name] = clipped
        used += tokens
        total = piece.text.count("\n") + 1
        records[i] = BudgetPiece(name=piece.name, status="clipped", tokens=tokens,
                                 original_tokens=original,
                                 note=f"kept {_kept_lines(clipped)} of {total} lines")
    account = BudgetAccount(limit=limit, used=used, counter=counter_name,
                            pieces=[records[i] for i in range(len(pieces))])
    return texts, account


def split_review_budget(units_wanted: Sequence[int], review_budget: int, unit_budget: int, *,
                        floor: int = DIFF_FLOOR) -> list[int]:
    """Each unit's budget: min(unit_budget, its need), shared max-min fairly when too much.

    Small needs are met in full and the rest split evenly among the larger ones (water
    filling). No unit gets less than ``min(floor, its need)``, so every diff stays readable,
    even if those floors together exceed ``review_budget``.
    """
    wants = [max(0, min(unit_budget, need)) for need in units_wanted]
    if sum(wants) <= review_budget:
        return wants
    floors = [min(floor, want) for want in wants]
    if sum(floors) >= review_budget:
        return floors

    def share(level: int) -> list[int]:
        return [min(want, max(low, level)) for want, low in zip(wants, floors, strict=True)]

    level = _largest(0, max(wants), lambda lv: sum(share(lv)) <= review_budget) or 0
    shares = share(level)
    spare = review_budget - sum(shares)
    for i, want in enumerate(wants):  # the rounding remainder, one token each
        if spare <= 0:
            break
        if shares[i] < want:
            shares[i] += 1
            spare -= 1
    return shares
