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

from reviewtui.context.clip import clip_marker, clip_text, kept_lines
from reviewtui.context.long_lines import cut_marks
from reviewtui.models import BudgetAccount, BudgetPiece

Counter = Callable[[str], int]
Wrap = Callable[[str], str]

__all__ = ["MIN_USEFUL", "RENDERING", "Fitter", "Piece", "Rendering", "clip_marker",
           "clip_text", "fit_pieces"]

MIN_USEFUL = 48  # tokens: with less room left, fetching a piece to clip it is not worth it
RENDERING = "rendering"  # the account's piece for the heading, the metadata and the notes


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


def _same(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class Rendering:
    """How the bundle is sent around its pieces: ``head`` renders the heading and metadata
    block for an account (the metadata names the pieces clipped, dropped or not fetched, and
    the tokens used), ``notes`` the notes section, and ``listing(status, name, first)`` is
    about what naming one more piece under ``status`` adds to the metadata (``first``: the
    first under it). Each piece's own part (section title, fence, label) is the ``wrap`` it
    is added with."""

    head: Callable[[BudgetAccount], str]
    notes: Callable[[Sequence[str]], str]
    listing: Callable[[str, str, bool], int]


@dataclass(frozen=True, slots=True)
class _Source:
    text: str
    wrap: Wrap
    clip: bool
    required: bool = False


class Fitter:
    """Takes one unit's pieces in rank order within ``limit`` tokens, one piece at a time.

    Each piece is included whole, clipped at line boundaries, or dropped; a piece the caller
    decided not to fetch (``worth`` said no) is recorded as ``not_fetched`` with its estimate.
    ``used`` never exceeds ``limit`` (unless the heading and metadata alone do not fit it); a
    required piece (the diff) is cut inside its first line rather than dropped.

    With a ``rendering``, the budget counts the bundle as it is sent: the heading and metadata
    block are charged before any piece (the ``rendering`` piece of the account, with the
    notes), each piece is counted with its ``wrap`` (section title, fence, label), and naming
    a piece in the metadata as clipped, dropped or not fetched is charged when it happens.
    ``account()`` then counts the metadata exactly, with the tokens it states; if that is more
    than was charged, the last pieces give the difference back (clipped further or dropped;
    the diff, last of all, is clipped further but never dropped: naming many dropped search
    results after it may take more than the room it left).
    """

    def __init__(self, limit: int, count: Counter, counter_name: str,
                 rendering: Rendering | None = None) -> None:
        self.limit = max(0, limit)
        self._count = count
        self._counter_name = counter_name
        self._rendering = rendering
        self._records: list[BudgetPiece] = []
        self._kept: dict[str, str] = {}
        self._sources: dict[str, _Source] = {}
        self.notes: list[str] = []
        self._notes_tokens = 0
        self._pending: dict[str, int] = {}
        self._head = self._head_tokens(self.limit)

    @property
    def used(self) -> int:
        return self._head + self._notes_tokens + sum(r.tokens for r in self._records)

    @property
    def room(self) -> int:
        """What is left, less what naming the pieces still expected would take."""
        reserve = 0
        if self._pending and self._rendering is not None:
            listed = self._rendering.listing
            first = not any(r.status == "not_fetched" for r in self._records)
            key = listed("not_fetched", "", first) - listed("not_fetched", "", False)
            reserve = sum(self._pending.values()) + key
        return self.limit - self.used - reserve

    def expect(self, names: Sequence[str]) -> None:
        """Pieces that will be added or skipped later: the metadata may have to name them
        (as not fetched, dropped...), so room for that is kept until they are."""
        if self._rendering is not None:
            for name in names:
                self._pending[name] = self._rendering.listing("not_fetched", name, False)

    def resolve(self, name: str) -> None:
        """An expected piece is being fetched: its room is its own again."""
        self._pending.pop(name, None)

    def worth(self, estimate: int) -> bool:
        """Is fetching a piece of about ``estimate`` tokens worth it: will some of it fit?"""
        return self.room > 0 and self.room >= min(estimate, MIN_USEFUL)

    def text(self, name: str) -> str | None:
        """The text of ``name`` as it goes into the bundle, once ``account()`` settled it."""
        return self._kept.get(name)

    def _head_tokens(self, used: int) -> int:
        if self._rendering is None:
            return 0
        account = BudgetAccount(limit=self.limit, used=used, counter=self._counter_name,
                                pieces=self._records)
        return self._count(self._rendering.head(account))

    def _listing(self, status: str, name: str) -> int:
        """About what naming one more piece under ``status`` adds to the metadata block."""
        if self._rendering is None:
            return 0
        first = not any(r.status == status for r in self._records)
        return self._rendering.listing(status, name, first)

    def note(self, text: str) -> bool:
        """A note for the bundle's notes section, charged to the budget as it comes; one that
        does not fit what is left is left out (False)."""
        if self._rendering is None:
            self.notes.append(text)
            return True
        tokens = self._count(self._rendering.notes([*self.notes, text]))
        if tokens - self._notes_tokens > self.room:
            return False
        self.notes.append(text)
        self._notes_tokens = tokens
        return True

    def skip(self, name: str, estimate: int) -> None:
        self.resolve(name)
        room = self.room
        self._head += self._listing("not_fetched", name)
        self._records.append(BudgetPiece(
            name=name, status="not_fetched", tokens=0, original_tokens=max(0, estimate),
            note=f"not fetched (over budget): ~{max(0, estimate)} tokens, {max(0, room)} left"))

    def add(self, name: str, text: str | None, *, required: bool = False,
            clip: bool = True, wrap: Wrap | None = None) -> str | None:
        """The text of ``name`` as it goes into the bundle (None: empty or dropped);
        ``wrap`` renders it as it is sent (its tokens are what the piece costs)."""
        self.resolve(name)
        if not text:
            self._records.append(BudgetPiece(name=name, status="empty", tokens=0,
                                             original_tokens=0))
            return None
        render = wrap or _same
        original = self._count(render(text))
        room = self.room
        self._sources[name] = _Source(text, render, clip, required)
        if original <= room:
            self._kept[name] = text
            self._records.append(BudgetPiece(name=name, status="included", tokens=original,
                                             original_tokens=original))
            return text
        listing = self._listing("clipped", name)
        fitted = self._clip(text, room - listing, render, required=required, clip=clip)
        if fitted is None:
            self._head += self._listing("dropped", name)
            self._records.append(BudgetPiece(name=name, status="dropped", tokens=0,
                                             original_tokens=original,
                                             note=f"needs {original} tokens, {room} left"))
            return None
        clipped, tokens = fitted
        self._head += listing
        self._kept[name] = clipped
        self._records.append(_clipped(name, text, clipped, tokens, original))
        return clipped

    def _clip(self, text: str, room: int, render: Wrap, *, required: bool,
              clip: bool) -> tuple[str, int] | None:
        """``text`` clipped so that ``render`` of it takes at most ``room`` tokens; a required
        text is never None (cut down to nothing, it may still be over)."""
        if not (clip or required):
            return None
        target = room - (self._count(render("")) if render is not _same else 0)
        clipped, tokens = "", 0
        for _ in range(3):  # the wrap's tokens need not add up exactly
            found = clip_text(text, target, self._count, required=required)
            if found is None:
                return None
            clipped, tokens = found, self._count(render(found))
            if tokens <= room or not found:
                break
            target -= tokens - room
        return (clipped, tokens) if tokens <= room or required else None

    def _trim(self, over: int) -> bool:
        """Take ``over`` tokens back from the last piece that can give them; False if none."""
        for index in range(len(self._records) - 1, -1, -1):
            record = self._records[index]
            source = self._sources.get(record.name)
            if source is None or record.status not in ("included", "clipped"):
                continue
            allowed = record.tokens - over
            fitted = (self._clip(source.text, max(0, allowed), source.wrap,
                                 required=source.required, clip=source.clip)
                      if allowed > 0 or source.required else None)
            original = record.original_tokens
            if source.required and fitted is not None and fitted[1] >= record.tokens:
                return False  # the diff cannot give anything back
            if fitted is None:
                self._kept.pop(record.name, None)
                self._records[index] = BudgetPiece(
                    name=record.name, status="dropped", tokens=0, original_tokens=original,
                    note=f"needs {original} tokens, {max(0, allowed)} left")
            else:
                self._kept[record.name] = fitted[0]
                self._records[index] = _clipped(record.name, source.text, *fitted, original)
            return True
        return False

    def _settle(self) -> None:
        """Count the metadata exactly, stating the tokens it makes in all; trim if over."""
        while True:
            content = self._notes_tokens + sum(r.tokens for r in self._records)
            stated = self.used
            for _ in range(4):  # the head states the total it is part of: a fixed point
                self._head = self._head_tokens(stated)
                if self._head + content == stated:
                    break
                stated = self._head + content
            if self.used <= self.limit or not self._trim(self.used - self.limit):
                return

    def account(self) -> BudgetAccount:
        """The account of the bundle as it goes in (with a rendering: settled, as sent)."""
        if self._rendering is not None:
            self._settle()
        pieces = list(self._records)
        if self._rendering is not None:
            framing = self._head + self._notes_tokens
            pieces.insert(0, BudgetPiece(
                name=RENDERING, status="included", tokens=framing, original_tokens=framing,
                note="the unit's heading, metadata block and notes, as sent"))
        return BudgetAccount(limit=self.limit, used=self.used, counter=self._counter_name,
                             pieces=pieces)


def _clipped(name: str, text: str, clipped: str, tokens: int, original: int) -> BudgetPiece:
    note = f"kept {kept_lines(clipped)} of {text.count(chr(10)) + 1} lines"
    if cuts := cut_marks(clipped):
        note += (f", {cuts} long line{'s' if cuts != 1 else ''} cut to a window around "
                 "the change")
    return BudgetPiece(name=name, status="clipped", tokens=tokens, original_tokens=original,
                       note=note)


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
