"""Clip one piece of a bundle to a number of tokens, at line boundaries, marked.

Whole blocks (hunks, definitions) are kept before any block is cut; a cut leaves a visible
``… clipped: N more lines`` marker instead of stopping mid-line. Only a required piece (the
diff) is ever cut inside a line: its very long lines first, to a window around what changed
(``long_lines``), then, as a last resort, its first line. Token counting is injected.
"""

from __future__ import annotations

from collections.abc import Callable

from reviewtui.context.long_lines import window_long_lines

Counter = Callable[[str], int]

__all__ = ["clip_marker", "clip_text", "kept_lines"]


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


def kept_lines(text: str) -> int:
    return sum(1 for line in text.split("\n") if not line.startswith("… clipped: "))
