"""``reviewtui`` in a terminal: load the change, then hand it to the Textual workbench."""

from __future__ import annotations

import argparse
import gc

from reviewtui.cli.selectors import selector_from_args


def run_workbench(args: argparse.Namespace) -> int:
    from reviewtui.cli.intent import read_description
    from reviewtui.pipeline import load_change
    from reviewtui.tui.app import ReviewApp

    # The table opens in priority order, which counts each changed definition's reach.
    loaded = load_change(args.path, selector_from_args(args),
                         use_cache=not args.no_cache).with_reach()
    # The workbench reads its own stored description (``i`` edits it) when it opens.
    description = read_description(args.description,
                                   patch_from_stdin=getattr(args, "patch", None) == "-")
    opened = getattr(args, "opened_pull", None)
    source = "--description"
    if description is None and opened is not None:
        from reviewtui.app.open_pr import PULL_DESCRIPTION_SOURCE

        description = opened.description  # --pr: the pull request's title, body and labels
        source = PULL_DESCRIPTION_SOURCE
    # The workbench runs for long: collect garbage cycles again, but leave the loaded change
    # (hundreds of thousands of objects that live as long as the app) out of every scan.
    gc.freeze()
    gc.enable()
    ReviewApp(loaded, watch=args.watch, description=description, description_source=source,
              pull=args.pr if opened is not None else None).run()
    return 0
