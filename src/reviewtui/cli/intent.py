"""The change's stated purpose for every command that reads a change (``--description``).

``loaded_with_intent`` is what each command calls after ``load_change``: it reads the
``--description FILE|-`` text (else a ``--pr``'s title, body and labels), the description the
person wrote in the workbench (kept in this
change's session; a store that cannot be opened is no reason to fail), and gathers the intent
through the core (``LoadedChange.with_intent``). ``intent_line`` is the one-line header the
tables print.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from reviewtui.errors import ReviewTuiError, UsageError

if TYPE_CHECKING:
    from reviewtui.pipeline import LoadedChange

MAX_DESCRIPTION_BYTES = 1024 * 1024  # a description, not a data file


def read_description(spec: str | None, *, patch_from_stdin: bool = False) -> str | None:
    """The text of ``--description FILE`` (``-``: standard input), decoded as UTF-8 (bad
    bytes replaced); ``UsageError`` when it cannot be read."""
    if spec is None:
        return None
    if spec == "-":
        if patch_from_stdin:
            raise UsageError("--description - and --patch - cannot both read standard input")
        data = sys.stdin.buffer.read(MAX_DESCRIPTION_BYTES + 1)
    else:
        try:
            with Path(spec).open("rb") as handle:
                data = handle.read(MAX_DESCRIPTION_BYTES + 1)
        except OSError as exc:
            raise UsageError(f"cannot read the description {spec}: "
                             f"{exc.strerror or exc}") from None
    if len(data) > MAX_DESCRIPTION_BYTES:
        raise UsageError(f"the description {spec} is over {MAX_DESCRIPTION_BYTES // 1024} KiB")
    return data.decode("utf-8", "replace")


def stored_description(loaded: LoadedChange) -> str | None:
    """The description written in the workbench for this change, if the store has one."""
    from reviewtui.sessions.store import SessionStore, default_store_path

    if loaded.repo is None:
        return None
    try:
        if not default_store_path().is_file():
            return None  # nothing written yet: reading must not create the store
        with SessionStore() as store:
            return store.change_description(str(loaded.root), loaded.change_set.key)
    except ReviewTuiError:
        return None


def loaded_with_intent(loaded: LoadedChange, args: argparse.Namespace) -> LoadedChange:
    """``loaded`` with its stated purpose gathered (commits, branch, description)."""
    text = read_description(getattr(args, "description", None),
                            patch_from_stdin=getattr(args, "patch", None) == "-")
    opened = getattr(args, "opened_pull", None)
    if text is None and opened is not None:  # --pr: the pull request's title, body, labels
        from reviewtui.app.open_pr import PULL_DESCRIPTION_SOURCE

        return loaded.with_intent(opened.description, stored=stored_description(loaded),
                                  source=PULL_DESCRIPTION_SOURCE)
    return loaded.with_intent(text, stored=stored_description(loaded))


def intent_line(loaded: LoadedChange) -> str:
    """``intent: <one line>`` for a table's header; "" when nothing was gathered."""
    return f"intent: {loaded.intent.headline()}" if loaded.intent is not None else ""
