"""The footer's key hints, composed again only when what they show changes.

Textual's ``Footer`` mounts one widget per shown key (about 30 here) and composes them all again
each time the screen's bindings change -- a focus move, a binding added, a screen pushed --
whether or not the keys it shows are any different. Opening the workbench changes the bindings
five times, which mounted 140 key widgets and took ~40 % of the time until the first rows were
on screen (a 100-unit change, headless: 1.2 s with it, 0.7 s without a footer). This footer
looks and works the same (the keys are clickable, grouped keys share a label), but compares
what it would show with what it shows and leaves its children alone when they are the same.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.widgets import Footer


class KeyFooter(Footer):
    """``Footer`` that skips a recompose which would show the same keys."""

    _shown: tuple[Hashable, ...] | None = None

    def _keys(self) -> tuple[Hashable, ...]:
        """What ``Footer.compose`` would show, in its order."""
        active = self.screen.active_bindings
        keys: list[Hashable] = [
            (b.key, self.app.get_key_display(b), b.description, b.action, enabled, tooltip,
             b.group.description if b.group else None, b.group.compact if b.group else None)
            for (_, b, enabled, tooltip) in active.values() if b.show]
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE and palette:
            keys.append(("palette", palette[1].key, palette[2]))
        return (self._bindings_ready, self.compact, *keys)

    def compose(self) -> ComposeResult:
        self._shown = self._keys()
        yield from super().compose()

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        shown = self._keys()
        if shown == self._shown:
            return
        self._shown = shown
        await super().recompose()
