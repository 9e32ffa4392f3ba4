"""The options every command that reads a change shares: which change (the selectors, ``--pr``
included), the cache switch and the repository ``PATH``; and the ``ChangeSelector`` they stand
for."""

from __future__ import annotations

import argparse

from reviewtui.git.selector import ChangeSelector, SelectorMode


def add_selectors(parser: argparse.ArgumentParser, *, description: bool = True) -> None:
    """The options that say which change to review, ``--description`` (unless the command
    sends nothing to a model nor shows the intent), ``--no-cache`` and the ``PATH``."""
    group = parser.add_argument_group("what to review (default: pending changes, else the "
                                      "branch against its merge base)")
    chooser = group.add_mutually_exclusive_group()
    chooser.add_argument("--staged", action="store_true", help="staged changes against HEAD")
    chooser.add_argument("--working", action="store_true",
                         help="unstaged and untracked changes against the index")
    chooser.add_argument("--all", action="store_true", dest="all_changes",
                         help="staged, unstaged and untracked changes against HEAD")
    chooser.add_argument("--base", nargs="?", const="", metavar="REF",
                         help="HEAD against its merge base with REF (default: main/master)")
    chooser.add_argument("--commit", metavar="REV", help="one commit against its first parent")
    chooser.add_argument("--range", metavar="A..B", dest="range_spec",
                         help="A..B (A to B) or A...B (merge base of A and B to B)")
    chooser.add_argument("--patch", metavar="FILE", help="a patch file, or - for stdin")
    chooser.add_argument("--pr", metavar="N|URL",
                         help="a pull request (GitHub) or merge request (GitLab) by number on "
                              "the upstream (else origin) remote's forge, or by URL: its head "
                              "and base are "
                              "fetched into refs/reviewtui/pr/HOST/OWNER/REPO/N/ (no "
                              "checkout), merge-base..head reviewed, its title, body and "
                              "labels taken as the stated purpose")
    group.add_argument("--no-untracked", action="store_true",
                       help="leave untracked files out of auto/--working/--all")
    if description:
        parser.add_argument("--description", metavar="FILE",
                            help="the change's stated purpose (a pull request's description, "
                                 "say): a text file, or - for stdin; sent with the commit "
                                 "messages to the planner, the review agent and the chat")
    parser.add_argument("--no-cache", action="store_true",
                        help="parse and score every file again and ask the model for a new "
                             "plan, ignoring (and not writing) the per-file results and the "
                             "plans kept in .git/reviewtui/")
    parser.add_argument("path", nargs="?", default=None, metavar="PATH",
                        help="repository (default: the current directory, searched upwards)")


def selector_from_args(args: argparse.Namespace) -> ChangeSelector:
    """The selector the options name. ``--pr`` opens the pull request first (its forge's API,
    ``git fetch``) and keeps it on ``args.opened_pull`` for the stated purpose."""
    if getattr(args, "pr", None) is not None:
        opened = getattr(args, "opened_pull", None)
        if opened is None:
            from reviewtui.app.open_pr import open_pull_request

            opened = args.opened_pull = open_pull_request(args.path, args.pr)
        return opened.selector
    untracked = not args.no_untracked
    if args.staged:
        return ChangeSelector(SelectorMode.STAGED, include_untracked=untracked)
    if args.working:
        return ChangeSelector(SelectorMode.WORKING, include_untracked=untracked)
    if args.all_changes:
        return ChangeSelector(SelectorMode.ALL, include_untracked=untracked)
    if args.base is not None:
        return ChangeSelector(SelectorMode.BASE, ref=args.base or None)
    if args.commit is not None:
        return ChangeSelector(SelectorMode.COMMIT, ref=args.commit)
    if args.range_spec is not None:
        return ChangeSelector(SelectorMode.RANGE, ref=args.range_spec)
    if args.patch is not None:
        return ChangeSelector(SelectorMode.PATCH, patch=args.patch)
    return ChangeSelector(SelectorMode.AUTO, include_untracked=untracked)


def selector_words(args: argparse.Namespace) -> list[str]:
    """The options and ``PATH`` that name the same change again (for a command to suggest:
    ``reviewtui findings undo ID --pr 7``)."""
    words: list[str] = []
    for flag, value in (("--pr", getattr(args, "pr", None)), ("--commit", args.commit),
                        ("--range", args.range_spec), ("--patch", args.patch)):
        if value is not None:
            words += [flag, str(value)]
    if args.base is not None:
        words += ["--base", args.base] if args.base else ["--base"]
    words += [flag for flag, on in (("--staged", args.staged), ("--working", args.working),
                                    ("--all", args.all_changes),
                                    ("--no-untracked", args.no_untracked)) if on]
    if args.path is not None:
        words.append(str(args.path))
    return words
