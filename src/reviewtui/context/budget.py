"""Fit one unit's context pieces into its token budget, keeping an account of every piece.

A bundle is worth sending only if it fits the model's window, and a reviewer must know what was
left out: so pieces go in by importance (diff first), long ones are clipped at line boundaries
with a visible ``… clipped: N more lines`` marker instead of being cut mid-line (only the diff's
very long lines are cut, to a window around what changed, marked), and every
decision lands in a ``BudgetAccount``. Token counting is injected (tiktoken or an estimate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewtui.context.long_lines import cut_marks, window_long_lines
from reviewtui.models import BudgetAccount, BudgetPiece

Counter = Callable[[str], int]

MIN_USEFUL = 48  # tokens: with less room left, fetching a piece to clip it is not worth it


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
    line fits, unless ``required``: then the text is cut inside its first line. A ``required``
    text (the diff) first has its very long lines cut to a window around the characters that
    changed (``long_lines``), so a change inside one long line is never clipped away whole.
    """
    if required:
        windowed, fits = window_long_lines(text, room, count)
        if fits:
            return windowed
        text = windowed  # long lines at their narrowest window; clipped at lines below
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


class Fitter:
    """Takes one unit's pieces in rank order within ``limit`` tokens, one piece at a time.

    Each piece is included whole, clipped at line boundaries, or dropped; a piece the caller
    decided not to fetch (``worth`` said no) is recorded as ``not_fetched`` with its estimate.
    ``used`` never exceeds ``limit``; a required piece (the diff) is cut inside its first line
    rather than dropped.
    """

    def __init__(self, limit: int, count: Counter, counter_name: str) -> None:
        self.limit = max(0, limit)
        self.used = 0
        self._count = count
        self._counter_name = counter_name
        self._records: list[BudgetPiece] = []

    @property
    def room(self) -> int:
        return self.limit - self.used

    def worth(self, estimate: int) -> bool:
        """Is fetching a piece of about ``estimate`` tokens worth it: will some of it fit?"""
        return self.room > 0 and self.room >= min(estimate, MIN_USEFUL)

    def skip(self, name: str, estimate: int) -> None:
        self._records.append(BudgetPiece(
            name=name, status="not_fetched", tokens=0, original_tokens=max(0, estimate),
            note=f"not fetched (over budget): ~{max(0, estimate)} tokens, {self.room} left"))

    def add(self, name: str, text: str | None, *, required: bool = False,
            clip: bool = True) -> str | None:
        """The text of ``name`` as it goes into the bundle (None: empty or dropped)."""
        if not text:
            self._records.append(BudgetPiece(name=name, status="empty", tokens=0,
                                             original_tokens=0))
            return None
        original = self._count(text)
        room = self.room
        if original <= room:
            self.used += original
            self._records.append(BudgetPiece(name=name, status="included", tokens=original,
                                             original_tokens=original))
            return text
        clipped = (clip_text(text, room, self._count, required=required)
                   if clip or required else None)
        tokens = self._count(clipped) if clipped is not None else 0
        if clipped is None or tokens > room:
            self._records.append(BudgetPiece(name=name, status="dropped", tokens=0,
                                             original_tokens=original,
                                             note=f"needs {original} tokens, {room} left"))
            return None
        self.used += tokens
        total = text.count("\n") + 1
        note = f"kept {_kept_lines(clipped)} of {total} lines"
        if cuts := cut_marks(clipped):
            note += (f", {cuts} long line{'s' if cuts != 1 else ''} cut to a window around "
                     "the change")
        self._records.append(BudgetPiece(name=name, status="clipped", tokens=tokens,
                                         original_tokens=original, note=note))
        return clipped

    def account(self) -> BudgetAccount:
        return BudgetAccount(limit=self.limit, used=self.used, counter=self._counter_name,
                             pieces=list(self._records))


def fit_pieces(pieces: Sequence[Piece], limit: int, count: Counter,
               counter_name: str) -> tuple[dict[str, str | None], BudgetAccount]:
    """Take pieces by rank within ``limit`` tokens: whole, clipped at lines, or dropped.

    Returns the text per piece name (None when dropped or empty) and the account, which lists
    every piece in the given order. The diff (rank 0) is never
    dropped: when even a clipped diff does not fit, it is clipped down to the limit.
    """
    fitter = Fitter(limit, count, counter_name)
    texts: dict[str, str | None] = {}
    order = sorted(range(len(pieces)), key=lambda i: pieces[i].rank)  # stable for equal ranks
    for i in order:
        piece = pieces[i]
        texts[piece.name] = fitter.add(piece.name, piece.text, required=piece.required,
                                       clip=piece.clip)
    account = fitter.account()
    position = {i: n for n, i in enumerate(order)}
    pieces_in_order = [account.pieces[position[i]] for i in range(len(pieces))]
    return texts, account.model_copy(update={"pieces": pieces_in_order})
