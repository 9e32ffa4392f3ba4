"""``ctrl+e``: the command that opens a file at a line in the person's editor.

``$VISUAL``, else ``$EDITOR`` (split like a shell would: ``"code --wait"`` works). Editors that
take ``+LINE FILE`` (vi, vim, nvim, nano, emacs, micro, helix, kakoune, joe, ne...) get it; VS
Code and its relatives get ``--goto FILE:LINE``; Sublime and Zed ``FILE:LINE``; anything else
just the file. No Textual here: the app suspends itself and runs the command.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path, PurePath

from reviewtui.errors import UsageError

PLUS_LINE = frozenset({"vi", "vim", "nvim", "gvim", "view", "nano", "pico", "emacs",
                       "emacsclient", "micro", "hx", "helix", "kak", "joe", "ne", "mg", "jed",
                       "ed", "ex", "mcedit"})
GOTO = frozenset({"code", "code-insiders", "codium", "vscodium", "cursor", "windsurf"})
COLON = frozenset({"subl", "sublime_text", "zed", "mate"})
NO_EDITOR = ("no editor: set $VISUAL or $EDITOR (for example EDITOR=nano, or "
             "EDITOR=\"code --wait\")")


def editor_command(path: Path, line: int, env: Mapping[str, str] | None = None) -> list[str]:
    """The command line that opens ``path`` at ``line``; ``UsageError`` when none is set."""
    env = os.environ if env is None else env
    setting = (env.get("VISUAL") or env.get("EDITOR") or "").strip()
    if not setting:
        raise UsageError(NO_EDITOR)
    try:
        words = shlex.split(setting)
    except ValueError as exc:
        raise UsageError(f"cannot read the editor setting {setting!r}: {exc}") from None
    if not words:
        raise UsageError(NO_EDITOR)
    name = PurePath(words[0]).name.lower().removesuffix(".exe")
    line = max(1, line)
    if name in PLUS_LINE:
        return [*words, f"+{line}", str(path)]
    if name in GOTO:
        return [*words, "--goto", f"{path}:{line}"]
    if name in COLON:
        return [*words, f"{path}:{line}"]
    return [*words, str(path)]
