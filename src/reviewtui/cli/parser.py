"""Every ``reviewtui`` command line, in one place: the selectors, each subcommand's options.

The first word picks the subcommand (``reviewtui index ...``); anything else is the workbench's
own command line (``reviewtui [selectors] [PATH]``), so a repository may even be called
``index`` when given as ``./index``. Building a parser imports nothing heavy: the pipeline loads
only once a command runs.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence

from reviewtui import __version__
from reviewtui.cli.outcome_parsers import (
    build_eval_parser,
    build_findings_parser,
    parse_findings,
)
from reviewtui.cli.selectors import add_selectors

SUBCOMMANDS = ("index", "rules", "plan", "bundle", "review", "ask", "sessions", "export",
               "eval", "findings", "publish")


def typed_text(value: str) -> str:
    """A text argument (a question, a prompt, an id): a byte of argv the locale could not
    decode reaches Python as a lone surrogate, which no UTF-8 writer (the tokenizer, SQLite,
    the HTTP body) accepts -- it becomes U+FFFD, as undecodable bytes do everywhere else.
    Paths are not passed through this: their bytes must stay as they are."""
    return re.sub("[\ud800-\udfff]", "\ufffd", value)


def output_path(value: str) -> str | None:
    """``--output FILE``: ``-`` is stdout (None), as for every other tool; an empty path is a
    mistake (a shell variable that was not set), not a quiet "stdout"."""
    if value == "-":
        return None
    if not value.strip():
        raise argparse.ArgumentTypeError("an empty path (- is stdout)")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui",
        description="Review a code change with an LLM, from the terminal.",
        epilog="subcommands: index (print the review index), plan (the fused rule + LLM "
               "plan), bundle (each unit's context bundle), review (the review agent's "
               "findings), ask (chat about the change), sessions (stored chats), export (the "
               "person's review as Markdown, JSON or SARIF), publish (the person's review "
               "to its pull request), findings (the kept findings; "
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
    parser.add_argument("--repo", metavar="PATH", nargs="?", const=".",
                        help="repository (default, and --repo alone: the current directory)")


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
              ".reviewtui/rules.* and learned_rules.*. Exit 1 when a pack that loads names "
              "what never takes effect: a rule to change that is no rule, a language no file "
              "is read as, a tag no unit gets.", _rules_check_arguments),
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


REPLAN_HELP = ("ask the model for a new plan even when one is kept for this change (the new "
               "one is kept instead); without it a plan kept from an earlier run on the same "
               "change, model and prompt is used")


def _add_plan_options(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--no-llm", action="store_true",
                       help="plan on the rules alone, without asking the model")
    which.add_argument("--replan", action="store_true", help=REPLAN_HELP)
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
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--rules-plan", action="store_true",
                       help="plan on the rules alone (no LLM planner call before the agent)")
    which.add_argument("--replan", action="store_true", help=REPLAN_HELP)
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
    parser.add_argument("--output", "-o", metavar="FILE", type=output_path,
                        help="write to FILE, not stdout (- is stdout)")
    parser.add_argument("--fail-on", choices=("P0", "P1", "P2", "P3"), metavar="SEVERITY",
                        help="exit with status 1 when a finding is this severe or worse "
                             "(P0-P3), for CI")
    parser.add_argument("--unit", action="append", default=[], metavar="ID",
                        help="only this unit (id or unique prefix; repeatable)")
    parser.add_argument("--prompt", metavar="TEXT", type=typed_text,
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
                        help="what to ask")  # typed_text once known not to be --continue's PATH
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--session", metavar="ID", type=typed_text,
                       help="continue this session (id or prefix)")
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
    parser.add_argument("--limit", type=int, default=50, metavar="N",
                        help="at most N sessions (default 50; 0 or less: all of them)")
    parser.add_argument("path", nargs="?", default=None, metavar="PATH",
                        help="repository (default: the current directory)")
    return parser


def build_export_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui export",
        description="Write the person's review of the change: the verdict, the reviewer's "
                    "comments, the accepted (and untriaged) findings with their lines quoted, "
                    "and how many units were reviewed, skipped or left.")
    parser.add_argument("--format", choices=("markdown", "json", "sarif", "rdjson"),
                        default="markdown",
                        help="markdown (default; ready to paste as a pull-request review), "
                             "json (the ExportedReview schema), sarif (SARIF 2.1.0) or rdjson "
                             "(Reviewdog Diagnostic Format: reviewdog -f=rdjson posts it)")
    parser.add_argument("--output", "-o", metavar="FILE", type=output_path,
                        help="write to FILE, not stdout (- is stdout)")
    parser.add_argument("--all-findings", action="store_true",
                        help="also dismissed, gone and fixed findings, with their state")
    add_selectors(parser)
    return parser


def build_publish_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui publish",
        description="Publish the person's review of a pull/merge request opened with --pr: "
                    "one review with the verdict and the summary, the person's comments and "
                    "the accepted findings as line comments (suggestion blocks for fixes), "
                    "findings off the diff in the summary. Publishing again edits what was "
                    "published, never duplicates it. The token comes from GH_TOKEN, "
                    "GITHUB_TOKEN or 'gh auth token' (GitHub), GITLAB_TOKEN or glab's "
                    "config (GitLab).")
    parser.add_argument("--pr", required=True, metavar="N|URL",
                        help="the pull/merge request (as given to 'reviewtui --pr')")
    parser.add_argument("--dry-run", action="store_true",
                        help="print exactly what would be sent (and the review threads already "
                             "on the pull request), send nothing")
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
    "publish": build_publish_parser,
}


def parse(command: str, argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv`` (the words after the subcommand) for ``command`` ("" = the workbench).

    Options may come anywhere, also between positionals (``ask "why?" --new PATH``).
    """
    if command == "rules":
        return _parse_rules(argv)
    if command == "findings":
        return parse_findings(argv)
    return PARSERS[command]().parse_intermixed_args(argv)
