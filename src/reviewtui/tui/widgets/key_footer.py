"""The footer's key hints, composed again only when what they show changes.

Textual's ``Footer`` mounts one widget per shown key (about 30 here) and composes them all again
each time the screen's bindings change -- a focus move, a binding added, a screen pushed --
whether or not the keys it shows are any different. Opening the workbench changes the bindings
five times, which mounted 140 key widgets and took ~40 % of the time until the first rows were
on screen (a 100-unit change, headless: 1.2 s with it, 0.7 s without a footer). This footer
looks and works the same (the keys are clickable, grouped keys share a label), but compares
what it would show with what it shows and leaves its children alone when they are the same.

When they differ it is mostly going back and forth between a few sets (the table's keys, the
filter's, the chat input's): opening the filter and leaving it mounted ~30 key widgets each
time, 60-180 ms before the screen settled. So each set of keys is composed once, into a page
of its own, and a set seen before is shown again by hiding the page on screen and showing its
own (the last ``PAGES_KEPT`` sets are kept).
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.compose import compose
from textual.containers import HorizontalGroup
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

PAGES_KEPT = 8  # sets of keys whose widgets stay mounted (hidden) to be shown again


class KeyFooter(Footer):
    """``Footer`` that skips a recompose which would show the same keys, and shows a set of
    keys it showed before without composing it again. (No command palette key: it docks
    right of the footer, not of a page.)"""

    DEFAULT_CSS = """
    KeyFooter > .key-page { width: auto; }
    """
    _shown: tuple[Hashable, ...] | None = None
    _pages: dict[tuple[Hashable, ...], Widget]

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

    def keys_shown(self) -> list[FooterKey]:
        """The key widgets on screen (those of the page shown), in the footer's order."""
        page = self._pages.get(self._shown) if self._shown is not None else None
        return list(page.query(FooterKey)) if page is not None else []

    def _page(self) -> Widget:
        """The keys ``Footer`` would compose now, in a row of their own."""
        def keys() -> ComposeResult:
            with HorizontalGroup(classes="key-page"):
                yield from super(KeyFooter, self).compose()

        (page,) = compose(self, keys())
        return page

    def compose(self) -> ComposeResult:
        self._shown = self._keys()
        page = self._page()
        self._pages = {self._shown: page}
        yield page

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        shown = self._keys()
        if shown == self._shown:
            return
        self._shown = shown
        page = self._pages.pop(shown, None)
        if page is None:
            page = self._page()
            page.display = False
            await self.mount(page)
        self._pages[shown] = page  # the most recently shown last
        for other in self._pages.values():
            other.display = other is page
        while len(self._pages) > PAGES_KEPT:
            await self._pages.pop(next(iter(self._pages))).remove()
