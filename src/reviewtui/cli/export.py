"""``reviewtui export``: the person's review of the change, as Markdown, JSON, SARIF or rdjson.

The review is what the change's session keeps (findings and their states, the reviewer's
comments, the verdict) over the change as it is now (which units were reviewed, skipped or
left); the workbench's ``X`` writes the same thing.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from reviewtui.cli.selectors import selector_from_args

if TYPE_CHECKING:
    from reviewtui.git.selector import ChangeSelector
    from reviewtui.pipeline import LoadedChange


def run_export(args: argparse.Namespace) -> int:
    from reviewtui.agent.deliverable import export_review, write_export
    from reviewtui.agent.workspace import Workspace
    from reviewtui.app.auto_review import other_auto_review
    from reviewtui.app.pull_review import kept_review
    from reviewtui.cli.intent import loaded_with_intent
    from reviewtui.cli.progress import load_change
    from reviewtui.git.selector import SelectorMode
    from reviewtui.sessions import SessionStore

    def load(selector: ChangeSelector) -> LoadedChange:
        changed = load_change(args.path, selector, use_cache=not args.no_cache)
        return loaded_with_intent(changed, args)

    named = selector_from_args(args)
    with SessionStore() as store:
        # a pull request whose head moved since its review: that review, as publish sends it
        kept = kept_review(store, load(named), getattr(args, "opened_pull", None), load)
        if kept.session is None and named.mode is SelectorMode.AUTO:  # a fix applied since
            kept = other_auto_review(store, kept.loaded, load,  # changed which change it names
                                     include_untracked=not args.no_untracked) or kept
        session, loaded = kept.session, kept.loaded
        if kept.moved:
            print(f"export: {kept.moved}", file=sys.stderr)
        overrides = store.overrides(session.session_id) if session else None
        ws = Workspace(loaded, loaded.plan(use_llm=False, overrides=overrides))
        text, review = export_review(ws, store, args.format, everything=args.all_findings)
    if session is None:
        print("export: no review kept for this change yet (run 'reviewtui review' or the "
              "workbench)", file=sys.stderr)
    if args.output:
        target = write_export(text, args.output)
        print(f"export: {len(review.comments)} comments, {len(review.findings)} findings "
              f"written to {target}", file=sys.stderr)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0
