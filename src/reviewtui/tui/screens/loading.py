"""The screen the workbench opens on while the change loads (see ``opening_actions``).

Its own screen (no header: the view's first line says what is happening), so that the
workbench's layout is composed once, after loading, on the screen underneath, and nothing of
it exists (or answers keys) before the change does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.screen import Screen

from reviewtui.tui.widgets.loading_view import LoadingView

if TYPE_CHECKING:
    from reviewtui.tui.kept_screen import KeptScreen


class LoadingScreen(Screen[None]):
    def __init__(self, kept: KeptScreen | None = None) -> None:
        super().__init__()
        self.kept = kept  # the first screen as last left, shown until the workbench opens

    def compose(self) -> ComposeResult:
        # The app's breakpoint classes now: Textual sets a screen's on its first resize,
        # after the first layout -- a narrow terminal painted the kept rows in the wide
        # layout's columns for a frame.
        width, height = self.app.size
        for points, size in ((self.app.HORIZONTAL_BREAKPOINTS, width),
                             (self.app.VERTICAL_BREAKPOINTS, height)):
            reached = [name for threshold, name in sorted(points or ()) if size >= threshold]
            if reached:
                self.add_class(reached[-1])
        # No Header here: a header on a screen popped just as the app's title changes fails
        # to update its title, and the workbench's own header follows at once.
        yield LoadingView(id="loading", kept=self.kept)
