"""The command line: ``reviewtui`` (the workbench) and the headless subcommands.

``parser`` holds every command line; ``main`` picks the subcommand and turns errors into one
line. One module per subcommand group runs it over the same pipeline the workbench uses:
``index`` (the review index), ``plan`` (``plan`` and ``bundle``), ``agent`` (``review``,
``ask``, ``sessions``), ``export`` (the person's review), ``rules`` (``rules check`` /
``explain``), ``workbench`` (the TUI).
"""

from __future__ import annotations

from reviewtui.cli.main import main

__all__ = ["main"]
