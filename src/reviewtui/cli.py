"""The ``reviewtui`` command line.

``reviewtui [selectors] [PATH]`` is the interactive entry; the headless subcommands run the same
pipeline. Every ``ReviewTuiError`` becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence

from reviewtui import __version__
from reviewtui.errors import ReviewTuiError, UsageError
from reviewtui.git.selector import ChangeSelector, SelectorMode

SUBCOMMANDS = ("index", "rules", "plan", "bundle", "review", "ask", "sessions")


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
    parser.add_argument("--no-cache", action="store_true",
                        help="parse and score every file again, ignoring (and not writing) the "
                             "per-file results kept in .git/reviewtui/")
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
        epilog="subcommands: index (print the review index), plan (the fused rule + LLM "
               "plan), bundle (each unit's context bundle), review (the review agent's "
               "findings), ask (chat about the change), sessions (stored chats), rules (check "
               "a rule pack, explain a unit's score). "
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
    parser.add_argument("--scan", action="store_true",
                        help="also run the installed scanners (ruff, eslint, ...) on the changed "
                             "files; error findings raise a unit's level")
    parser.add_argument("--scan-tools", metavar="TOOLS",
                        help="comma-separated scanners to run (implies --scan)")
    _add_selectors(parser)
    return parser


def build_rules_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reviewtui rules",
                                     description="Inspect the rule packs and the rule scores.")
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = sub.add_parser("check", help="validate a rule pack (default: every pack in use)",
                           description="Validate FILE, or without FILE the shipped packs plus "
                                       "the repository's .reviewtui/rules.* and "
                                       "learned_rules.*.")
    check.add_argument("file", nargs="?", metavar="FILE", help="a .toml, .json or .yaml pack")
    check.add_argument("--repo", metavar="PATH", help="repository (default: current directory)")
    explain = sub.add_parser("explain", help="show how a unit was scored",
                             description="Show every matched rule, the risk score and the "
                                         "confidence formula for one unit of the change.")
    explain.add_argument("unit_id", metavar="UNIT_ID", help="a unit id (or a unique prefix)")
    _add_selectors(explain)
    return parser


def build_plan_parser() -> argparse.ArgumentParser:
    from reviewtui.cli_plan import add_plan_options

    parser = argparse.ArgumentParser(
        prog="reviewtui plan",
        description="Print the fused plan: the rules' levels, the LLM planner's, the final "
                    "level and who decided it, extra requests and skips.")
    parser.add_argument("--json", action="store_true", help="the fused plan JSON (seed 001)")
    add_plan_options(parser)
    _add_selectors(parser)
    return parser


def _run_plan(argv: Sequence[str]) -> int:
    from reviewtui.cli_plan import overrides_from_args, print_plan, print_planner_report
    from reviewtui.pipeline import load_change

    args = build_plan_parser().parse_args(argv)
    overrides = overrides_from_args(args)
    loaded = load_change(args.path, selector_from_args(args), use_cache=not args.no_cache)
    plan = loaded.plan(use_llm=not args.no_llm, overrides=overrides)
    print_planner_report(plan.planner, plan.conflicts, sys.stderr)
    print_plan(plan, args.json, sys.stdout)
    return 0


def build_bundle_parser() -> argparse.ArgumentParser:
    from reviewtui.cli_plan import add_plan_options

    parser = argparse.ArgumentParser(
        prog="reviewtui bundle",
        description="Print the context bundles of the planned units: the diff, the context of "
                    "each unit's final level and its extra requests, under a token budget.")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="the ContextBundle JSON list")
    output.add_argument("--markdown", action="store_true",
                        help="the JSON+Markdown hybrid the review prompt uses")
    parser.add_argument("--unit", action="append", default=[], metavar="ID",
                        help="only this unit (an id or unique prefix; repeatable; includes "
                             "skipped units)")
    parser.add_argument("--budget", type=int, metavar="TOKENS",
                        help="tokens per unit bundle (default: context.unit_budget)")
    parser.add_argument("--review-budget", type=int, metavar="TOKENS",
                        help="tokens for all bundles together (default: context.review_budget)")
    add_plan_options(parser)
    _add_selectors(parser)
    return parser


def _run_bundle(argv: Sequence[str]) -> int:
    from reviewtui.cli_plan import (
        overrides_from_args,
        print_bundles,
        print_planner_report,
        selected,
    )
    from reviewtui.pipeline import load_change

    args = build_bundle_parser().parse_args(argv)
    for name in ("budget", "review_budget"):
        value = getattr(args, name)
        if value is not None and value < 100:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 100 tokens")
    overrides = overrides_from_args(args)
    loaded = load_change(args.path, selector_from_args(args), use_cache=not args.no_cache)
    plan = loaded.plan(use_llm=not args.no_llm, overrides=overrides)
    print_planner_report(plan.planner, plan.conflicts, sys.stderr)
    units = selected(plan, args.unit)
    bundles = loaded.bundles(plan, units, unit_budget=args.budget,
                             review_budget=args.review_budget)
    fmt = "json" if args.json else "markdown" if args.markdown else "table"
    print_bundles(bundles, fmt, sys.stdout)
    return 0


def build_review_parser() -> argparse.ArgumentParser:
    from reviewtui.cli_chat import add_agent_options

    parser = argparse.ArgumentParser(
        prog="reviewtui review",
        description="Run the review agent on the kept units' bundles and print its findings "
                    "(severity P0-P3, confidence, file and lines, unit) and a verdict.")
    parser.add_argument("--format", choices=("markdown", "json", "sarif"), default="markdown",
                        help="output format (default markdown; sarif is SARIF 2.1.0)")
    parser.add_argument("--output", "-o", metavar="FILE", help="write to FILE, not stdout")
    parser.add_argument("--fail-on", choices=("P0", "P1", "P2", "P3"), metavar="SEVERITY",
                        help="exit with status 1 when a finding is this severe or worse "
                             "(P0-P3), for CI")
    parser.add_argument("--unit", action="append", default=[], metavar="ID",
                        help="only this unit (id or unique prefix; repeatable)")
    parser.add_argument("--prompt", metavar="TEXT",
                        help="what to look for (default: correctness, security, maintainability)")
    add_agent_options(parser)
    _add_selectors(parser)
    return parser


def build_ask_parser() -> argparse.ArgumentParser:
    from reviewtui.cli_chat import add_agent_options

    parser = argparse.ArgumentParser(
        prog="reviewtui ask",
        description="Ask about the change; the answer streams to stdout. Continues the last "
                    "session of this change unless --new or --session.")
    parser.add_argument("question", metavar="QUESTION", help="what to ask")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--session", metavar="ID", help="continue this session (id or prefix)")
    which.add_argument("--new", action="store_true", help="start a new session")
    add_agent_options(parser)
    _add_selectors(parser)
    return parser


def build_sessions_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reviewtui sessions",
                                     description="List the stored chat sessions, newest first.")
    parser.add_argument("--all", action="store_true", help="of every repository")
    parser.add_argument("--json", action="store_true", help="as JSON")
    parser.add_argument("--limit", type=int, default=50, metavar="N")
    parser.add_argument("path", nargs="?", default=None, metavar="PATH",
                        help="repository (default: the current directory)")
    return parser


def _run_agent(command: str, argv: Sequence[str]) -> int:
    from reviewtui import cli_chat

    gc.enable()  # a conversation can run for long: collect its garbage cycles as usual
    if command == "sessions":
        return cli_chat.run_sessions(build_sessions_parser().parse_args(argv), sys.stdout)
    parser = build_review_parser() if command == "review" else build_ask_parser()
    args = parser.parse_args(argv)
    if args.max_tool_rounds < 0:
        raise UsageError("--max-tool-rounds must be 0 or more")
    runner = cli_chat.run_review if command == "review" else cli_chat.run_ask
    return runner(args, selector_from_args(args), sys.stdout, sys.stderr)


def _run_index(argv: Sequence[str], *, default_json: bool = False) -> int:
    args = build_index_parser().parse_args(argv)
    from reviewtui.pipeline import load_change

    loaded = load_change(args.path, selector_from_args(args), use_cache=not args.no_cache)
    from reviewtui.cli_output import print_index, print_scan_summary

    scan = None
    if args.scan or args.scan_tools:
        tools = [t.strip() for t in args.scan_tools.split(",") if t.strip()] if (
            args.scan_tools) else None
        scan = loaded.scan(tools)
        print_scan_summary(scan, sys.stderr)
    index = loaded.review_index(scan)
    fmt = "planner" if args.planner else "json" if (args.json or default_json) else "table"
    print_index(index, fmt, sys.stdout)
    return 0


def _run_rules(argv: Sequence[str]) -> int:
    from reviewtui.cli_rules import run_check, run_explain

    args = build_rules_parser().parse_args(argv)
    if args.action == "check":
        return run_check(args.file, args.repo, sys.stdout)
    return run_explain(args.unit_id, args.path, selector_from_args(args), sys.stdout,
                       use_cache=not args.no_cache)


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] == "rules":
        return _run_rules(argv[1:])
    if argv and argv[0] == "plan":
        return _run_plan(argv[1:])
    if argv and argv[0] == "bundle":
        return _run_bundle(argv[1:])
    if argv and argv[0] in ("review", "ask", "sessions"):
        return _run_agent(argv[0], argv[1:])
    if argv and argv[0] in SUBCOMMANDS:
        return _run_index(argv[1:])
    args = build_parser().parse_args(argv)  # --help / --version / validation
    if sys.stdin.isatty() and sys.stdout.isatty():
        return _run_tui(args)
    return _run_index(argv)  # not a terminal (a pipe, a script): the index table


def _run_tui(args: argparse.Namespace) -> int:
    from reviewtui.pipeline import load_change
    from reviewtui.tui.app import ReviewApp

    loaded = load_change(args.path, selector_from_args(args), use_cache=not args.no_cache)
    # The workbench runs for long: collect garbage cycles again, but leave the loaded change
    # (hundreds of thousands of objects that live as long as the app) out of every scan.
    gc.freeze()
    gc.enable()
    ReviewApp(loaded).run()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    # A headless command is a short batch job that allocates a few hundred thousand long-lived
    # objects (diff lines, units, index models) and no garbage cycles worth collecting; the
    # cyclic collector would rescan that growing heap again and again (~15% of a large index).
    # Reference counting still frees what is dropped. Long-running commands turn it back on.
    collecting = gc.isenabled()
    gc.disable()
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
    finally:
        if collecting:
            gc.enable()


if __name__ == "__main__":
    raise SystemExit(main())
