"""The ``reviewtui`` command line.

``reviewtui [selectors] [PATH]`` is the interactive entry; the headless subcommands run the same
pipeline. Every ``ReviewTuiError`` becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from reviewtui import __version__
from reviewtui.errors import ReviewTuiError
from reviewtui.git.selector import ChangeSelector, SelectorMode

SUBCOMMANDS = ("index",)


def _add_selectors(parser: argparse.ArgumentParser) -> None:
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
    group.add_argument("--no-untracked", action="store_true",
                       help="leave untracked files out of auto/--working/--all")
    parser.add_argument("path", nargs="?", default=None, metavar="PATH",
                        help="repository (default: the current directory, searched upwards)")


def selector_from_args(args: argparse.Namespace) -> ChangeSelector:
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui",
        description="Review a code change with an LLM, from the terminal.",
        epilog="subcommands: index (print the review index). "
               "Run 'reviewtui SUBCOMMAND --help' for details.",
    )
    parser.add_argument("--version", action="version", version=f"reviewtui {__version__}")
    _add_selectors(parser)
    return parser


def build_index_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui index",
        description="Print the review index: the change cut into review units.",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="the review_index JSON (seed 001)")
    output.add_argument("--planner", action="store_true",
                        help="the slim planner_index JSON (seed 001)")
    _add_selectors(parser)
    return parser


def _run_index(argv: Sequence[str], *, default_json: bool = False) -> int:
    from reviewtui.cli_output import print_index

    args = build_index_parser().parse_args(argv)
    from reviewtui.pipeline import load_change

    loaded = load_change(args.path, selector_from_args(args))
    index = loaded.review_index()
    fmt = "planner" if args.planner else "json" if (args.json or default_json) else "table"
    print_index(index, fmt, sys.stdout)
    return 0


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS:
        return _run_index(argv[1:])
    build_parser().parse_args(argv)  # --help / --version / validation
    return _run_index(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(args)
    except ReviewTuiError as exc:
        print(f"reviewtui: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("reviewtui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
