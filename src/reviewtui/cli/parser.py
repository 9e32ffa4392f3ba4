"""Every ``reviewtui`` command line, in one place: the selectors, each subcommand's options.

The first word picks the subcommand (``reviewtui index ...``); anything else is the workbench's
own command line (``reviewtui [selectors] [PATH]``), so a repository may even be called
``index`` when given as ``./index``. Building a parser imports nothing heavy: the pipeline loads
only once a command runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from reviewtui import __version__
from reviewtui.git.selector import ChangeSelector, SelectorMode

SUBCOMMANDS = ("index", "rules", "plan", "bundle", "review", "ask", "sessions", "export",
               "eval", "findings")


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
    group.add_argument("--no-untracked", action="store_true",
                       help="leave untracked files out of auto/--working/--all")
    if description:
        parser.add_argument("--description", metavar="FILE",
                            help="the change's stated purpose (a pull request's description, "
                                 "say): a text file, or - for stdin; sent with the commit "
                                 "messages to the planner, the review agent and the chat")
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
               "findings), ask (chat about the change), sessions (stored chats), export (the "
               "person's review as Markdown, JSON or SARIF), findings (the kept findings; "
               "apply or undo a finding's fix), rules (check a rule pack, explain "
               "a unit's score, learn rules from the evidence), eval (measure the triage on the "
               "repository's own bug history). "
               "Run 'reviewtui SUBCOMMAND --help' for details.",
    )
    parser.add_argument("--version", action="version", version=f"reviewtui {__version__}")
    parser.add_argument("--watch", action="store_true",
                        help="the workbench collects the change again when files change")
    add_selectors(parser)
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
    parser.add_argument("--sort", choices=("file", "priority", "risk"), default="file",
                        help="unit order: by file (default), by priority (what to review "
                             "first; counts each changed definition's reach), or by risk")
    add_selectors(parser)
    return parser


def _rules_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE", help="a .toml, .json or .yaml pack")
    parser.add_argument("--repo", metavar="PATH", help="repository (default: current directory)")


def _rules_explain_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("unit_id", metavar="UNIT_ID", help="a unit id (or a unique prefix)")
    add_selectors(parser, description=False)


def _rules_learn_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="the candidates (or what --accept/--reject did) as JSON")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--accept", metavar="ID",
                        help="write this ready candidate to .reviewtui/learned_rules.toml")
    action.add_argument("--reject", metavar="ID",
                        help="do not propose this candidate again until its samples double")
    parser.add_argument("path", nargs="?", default=None, metavar="PATH",
                        help="repository (default: the current directory, searched upwards)")


# action -> (one-line help, description, the arguments it takes)
RULES_ACTIONS: dict[str, tuple[str, str, Callable[[argparse.ArgumentParser], None]]] = {
    "check": ("validate a rule pack (default: every pack in use)",
              "Validate FILE, or without FILE the shipped packs plus the repository's "
              ".reviewtui/rules.* and learned_rules.*.", _rules_check_arguments),
    "explain": ("show how a unit was scored",
                "Show every matched rule, the risk score and the confidence formula for one "
                "unit of the change.", _rules_explain_arguments),
    "learn": ("propose rules from what the planner and the person said",
              "Group the evidence log (.git/reviewtui/conflicts.jsonl: the LLM planner's and "
              "the person's levels against the rules') by kind of unit and propose learned "
              "rules: the level, samples, agreement, files, changes and examples. Ready ones "
              "can be accepted into .reviewtui/learned_rules.toml or rejected.",
              _rules_learn_arguments),
}


def build_rules_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reviewtui rules",
                                     description="Inspect the rule packs and the rule scores.")
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action, (summary, description, arguments) in RULES_ACTIONS.items():
        arguments(sub.add_parser(action, help=summary, description=description))
    return parser


def _parse_rules(argv: Sequence[str]) -> argparse.Namespace:
    """``rules ACTION ...``: each action is parsed on its own, so its options may come anywhere
    (argparse cannot intermix options with positionals across subparsers)."""
    if argv and argv[0] in RULES_ACTIONS:
        action = argv[0]
        _summary, description, arguments = RULES_ACTIONS[action]
        parser = argparse.ArgumentParser(prog=f"reviewtui rules {action}",
                                         description=description)
        arguments(parser)
        args = parser.parse_intermixed_args(argv[1:])
        args.action = action
        return args
    return build_rules_parser().parse_args(argv)  # --help, or a clear error for a bad ACTION


def _add_plan_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-llm", action="store_true",
                        help="plan on the rules alone, without asking the model")
    parser.add_argument("--overrides", metavar="FILE",
                        help="a JSON file of the person's overrides: {UNIT_ID: {\"level\": ..., "
                             "\"skip\": ..., \"add_requests\": [...], \"remove_requests\": [...]}}")


def build_plan_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui plan",
        description="Print the fused plan: the rules' levels, the LLM planner's, the final "
                    "level and who decided it, extra requests and skips.")
    parser.add_argument("--json", action="store_true", help="the fused plan JSON (seed 001)")
    _add_plan_options(parser)
    add_selectors(parser)
    return parser


def build_bundle_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui bundle",
        description="Print the context bundles of the planned units: the diff, the context of "
                    "each unit's final level and its extra requests, under a token budget.")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="one JSON document: {\"bundles\": [...], \"allocation\": {...}}")
    output.add_argument("--jsonl", action="store_true",
                        help="JSON Lines: a {\"record\": \"bundle\"} line per bundle as it is "
                             "built, then the {\"record\": \"allocation\"} line")
    output.add_argument("--markdown", action="store_true",
                        help="the JSON+Markdown hybrid the review prompt uses")
    parser.add_argument("--unit", action="append", default=[], metavar="ID",
                        help="only this unit (an id or unique prefix; repeatable; includes "
                             "skipped units)")
    parser.add_argument("--budget", type=int, metavar="TOKENS",
                        help="tokens per unit bundle (default: context.unit_budget)")
    parser.add_argument("--review-budget", type=int, metavar="TOKENS",
                        help="tokens for all bundles together (default: context.review_budget); "
                             "units that do not fit are deferred whole, by priority")
    _add_plan_options(parser)
    add_selectors(parser)
    return parser


def _add_agent_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules-plan", action="store_true",
                        help="plan on the rules alone (no LLM planner call before the agent)")
    parser.add_argument("--overrides", metavar="FILE",
                        help="the person's overrides as a JSON file (see 'reviewtui plan')")
    parser.add_argument("--max-tool-rounds", type=int, default=8, metavar="N",
                        help="tool rounds the agent may use per answer (default 8)")


def build_review_parser() -> argparse.ArgumentParser:
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
    parser.add_argument("--all-batches", action="store_true",
                        help="also review the units deferred by the review budget, in later "
                             "batches (default: context.review_batches review budgets)")
    _add_agent_options(parser)
    add_selectors(parser)
    return parser


def build_ask_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui ask",
        description="Ask about the change; the answer streams to stdout. Continues the last "
                    "session of this change unless --new or --session. Exit status 3: the "
                    "answer stopped at the model's output token limit (--continue goes on).")
    parser.add_argument("question", metavar="QUESTION", nargs="?", default=None,
                        help="what to ask")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--session", metavar="ID", help="continue this session (id or prefix)")
    which.add_argument("--new", action="store_true", help="start a new session")
    parser.add_argument("--continue", dest="continue_answer", action="store_true",
                        help="ask the model to go on from where the session's last answer "
                             "stopped (the token limit, or a cut stream); no QUESTION")
    _add_agent_options(parser)
    add_selectors(parser)
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


def build_export_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui export",
        description="Write the person's review of the change: the verdict, the reviewer's "
                    "comments, the accepted (and untriaged) findings with their lines quoted, "
                    "and how many units were reviewed, skipped or left.")
    parser.add_argument("--format", choices=("markdown", "json", "sarif"), default="markdown",
                        help="markdown (default; ready to paste as a pull-request review), "
                             "json (the ExportedReview schema) or sarif (SARIF 2.1.0)")
    parser.add_argument("--output", "-o", metavar="FILE", help="write to FILE, not stdout")
    parser.add_argument("--all-findings", action="store_true",
                        help="also dismissed, gone and fixed findings, with their state")
    add_selectors(parser)
    return parser


def _findings_list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="the findings as JSON (with their ids, states and fixes)")
    add_selectors(parser, description=False)


def _findings_apply_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("finding", metavar="ID", help="a finding id (or a unique prefix)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the patch and check that it applies; write nothing")
    add_selectors(parser, description=False)


def _findings_undo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("finding", metavar="ID",
                        help="the finding whose applied fix to undo (id or unique prefix)")
    add_selectors(parser, description=False)


def _findings_fix_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("finding", metavar="ID", help="a finding id (or a unique prefix)")
    parser.add_argument("--max-tool-rounds", type=int, default=8, metavar="N",
                        help="tool rounds the model may use (default 8)")
    add_selectors(parser, description=False)


# action -> (description, the arguments it takes); no action: the list
FINDINGS_ACTIONS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "fix": ("Ask the model for a fix to one finding (read-only tools, as in a review); the fix "
            "is checked against the file as reviewed and kept on the finding, and its patch "
            "printed. Nothing is written to the working tree.", _findings_fix_arguments),
    "apply": ("Apply a finding's fix to the working tree: only inside the repository, never "
              "through a link, never to a read-only file, and only while the file still "
              "holds the reviewed lines. Exit status 2 with the reason when it does not apply.",
              _findings_apply_arguments),
    "undo": ("Undo a finding's applied fix: the file's exact bytes from before, once, and "
             "only if the file was not edited since.", _findings_undo_arguments),
}


def build_findings_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui findings",
        description="List the findings kept for the change (id, state, severity, lines, fix); "
                    "'findings fix ID' asks the model for a fix, 'findings apply ID "
                    "[--dry-run]' applies it, 'findings undo ID' undoes it.")
    _findings_list_arguments(parser)
    return parser


def _parse_findings(argv: Sequence[str]) -> argparse.Namespace:
    if argv and argv[0] in FINDINGS_ACTIONS:
        action = argv[0]
        description, arguments = FINDINGS_ACTIONS[action]
        parser = argparse.ArgumentParser(prog=f"reviewtui findings {action}",
                                         description=description)
        arguments(parser)
        args = parser.parse_intermixed_args(argv[1:])
        args.action = action
        return args
    args = build_findings_parser().parse_intermixed_args(argv)
    args.action = "list"
    return args


def build_eval_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui eval",
        description="Measure the triage on the repository's own bug history: find bug-fix "
                    "commits, blame the lines they fixed to find the commits that introduced "
                    "them (SZZ), index each such commit as 'index --commit' would and report "
                    "where the priority order put the unit holding the bug (recall@1/3/5, "
                    "MRR, effort), beside file order, largest-first and random order.")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="every case (fix, bug commit, target lines, ranks, the unit "
                             "that held the bug) and the metrics as JSON")
    output.add_argument("--markdown", action="store_true", help="the report as Markdown")
    parser.add_argument("--samples", action="store_true",
                        help="with --json: every unit's learned-priority features too (what "
                             "--fit trains on)")
    parser.add_argument("--since", metavar="DATE",
                        help="only fixes committed since DATE (anything 'git log --since' "
                             "takes: 2024-01-01, '2 years ago')")
    parser.add_argument("--max-cases", type=int, metavar="N",
                        help="at most N bug-introducing commits (default: eval.max_cases)")
    parser.add_argument("--jobs", "-j", type=int, metavar="N",
                        help="worker processes ranking cases (default: one per core)")
    parser.add_argument("--no-cache", action="store_true",
                        help="mine and rank everything again, ignoring (and not writing) "
                             ".git/reviewtui/eval/")
    learning = parser.add_mutually_exclusive_group()
    learning.add_argument("--fit", action="store_true",
                          help="also fit the learned priority's weights on this repository's "
                               "older cases, report them against the weights in use on the "
                               "newer cases, and propose them (.git/reviewtui/eval/)")
    learning.add_argument("--accept-weights", action="store_true",
                          help="accept the proposed weights: write "
                               ".reviewtui/triage_weights.toml (delete it to revert)")
    review = parser.add_argument_group(
        "review", "with a model configured, also run the review agent on each ranked case "
                  "(its bug commit, rules plan) and report whether a finding lands within 3 "
                  "lines of a blamed line, the other findings, tokens and time -- with the "
                  "planned context and with the diff alone")
    review.add_argument("--review", action="store_true",
                        help="run the review agent on each case (estimates the requests, "
                             "tokens and cost first; asks above eval.review_confirm_tokens)")
    review.add_argument("--context", choices=("both", "planned", "diff_only"), default=None,
                        help="which context to review with: the planned levels, every unit "
                             "at diff_only, or both side by side (default)")
    review.add_argument("--yes", "-y", action="store_true",
                        help="send without asking, whatever the estimate")
    review.add_argument("--max-tool-rounds", type=int, default=None, metavar="N",
                        help="tool rounds the agent may take per request (default: 8)")
    parser.add_argument("path", nargs="?", default=None, metavar="PATH",
                        help="repository (default: the current directory, searched upwards)")
    return parser


PARSERS: dict[str, Callable[[], argparse.ArgumentParser]] = {
    "": build_parser,
    "index": build_index_parser,
    "rules": build_rules_parser,
    "plan": build_plan_parser,
    "bundle": build_bundle_parser,
    "review": build_review_parser,
    "ask": build_ask_parser,
    "sessions": build_sessions_parser,
    "export": build_export_parser,
    "eval": build_eval_parser,
    "findings": build_findings_parser,
}


def parse(command: str, argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv`` (the words after the subcommand) for ``command`` ("" = the workbench).

    Options may come anywhere, also between positionals (``ask "why?" --new PATH``).
    """
    if command == "rules":
        return _parse_rules(argv)
    if command == "findings":
        return _parse_findings(argv)
    return PARSERS[command]().parse_intermixed_args(argv)
