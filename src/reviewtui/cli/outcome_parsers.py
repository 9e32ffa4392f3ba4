"""The command lines of what a review leaves behind: ``reviewtui findings`` (list, fix, apply,
undo the kept findings) and ``reviewtui eval`` (the triage measured on the bug history).

Split from ``cli.parser`` (which dispatches to them) to keep each module to one screenful of
options per command.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from reviewtui.cli.selectors import add_selectors


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


def parse_findings(argv: Sequence[str]) -> argparse.Namespace:
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
